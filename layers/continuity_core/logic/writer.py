"""Writing checkpoints from session state: consume exactly what was written, latest state wins."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from continuity_core.config import ContinuityConfig
from continuity_core.logic.checkpoints import build_checkpoint, cap_evictions
from continuity_core.models.checkpoint import Checkpoint, CheckpointTrigger
from continuity_core.models.state import SessionState
from continuity_core.ports import CheckpointStore, Clock, FlushConflictError, StateChangedError, StateStore

MAX_ATTEMPTS = 6


class FlushOutcome(StrEnum):
    WRITTEN = "written"
    NOTHING_PENDING = "nothing_pending"
    SUPERSEDED = "superseded"  # duplicate delivery, or a newer flush owns the session


@dataclass(frozen=True)
class FlushResult:
    outcome: FlushOutcome
    checkpoint: Checkpoint | None = None
    evicted: int = 0


class CheckpointWriter:
    def __init__(
        self,
        states: StateStore,
        checkpoints: CheckpointStore,
        config: ContinuityConfig,
        clock: Clock,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._states = states
        self._checkpoints = checkpoints
        self._config = config
        self._clock = clock
        self._sleep = sleep

    def flush(
        self,
        agent_id: str,
        session_key: str,
        trigger: CheckpointTrigger = CheckpointTrigger.PERIODIC,
        flush_token: str | None = None,
        render: Callable[[SessionState], str] | None = None,
        worth_writing: Callable[[SessionState], bool] = lambda state: state.has_pending,
    ) -> FlushResult:
        """Checkpoint what is pending now. With ``flush_token``, only if that flush is still the one.

        Optimistic: read, build, commit on the read version; on a race, read again (latest wins).
        ``worth_writing`` decides on the state read (default: only when something is pending).
        """
        for attempt in range(MAX_ATTEMPTS):
            state = self._states.get(agent_id, session_key)
            if state is None or (flush_token is not None and state.flush_token != flush_token):
                return FlushResult(FlushOutcome.SUPERSEDED)
            if not worth_writing(state):
                if flush_token is not None:
                    self._states.release_flush(agent_id, session_key, flush_token)
                return FlushResult(FlushOutcome.NOTHING_PENDING)
            now = self._clock()
            checkpoint = build_checkpoint(state, trigger, now, digest=render(state) if render else None)
            evicted = cap_evictions(
                self._checkpoints, agent_id, checkpoint, self._config.max_checkpoints_per_session
            )
            try:
                self._checkpoints.commit(agent_id, checkpoint, consumed=state, now=now, evict=evicted)
            except StateChangedError:
                self._sleep(random.uniform(0.02, 0.08) * (attempt + 1))
                continue
            return FlushResult(FlushOutcome.WRITTEN, checkpoint, len(evicted))
        raise FlushConflictError(f"session {session_key} kept changing; retry later")
