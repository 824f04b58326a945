"""Writing checkpoints from session state: consume exactly what was written, latest state wins."""

from __future__ import annotations

import random
import time
from collections import OrderedDict
from collections.abc import Callable
from datetime import datetime

from continuity_core.checkpoints.checkpoints import build_checkpoint, cap_evictions
from continuity_core.checkpoints.ports import CheckpointStore, FlushOutcome, FlushResult, StateChangedError
from continuity_core.checkpoints.rolling import Statement, merge_digests, roll
from continuity_core.checkpoints.rolling_inputs import digest_inputs
from continuity_core.hooks.ports import StateStore
from continuity_core.kernel.clock import Clock
from continuity_core.kernel.config import ContinuityConfig
from continuity_core.kernel.errors import FlushConflictError, StorageUnavailableError
from continuity_core.models.checkpoint import Checkpoint
from continuity_core.models.checkpoint_trigger import CheckpointTrigger
from continuity_core.models.session_digest import SessionDigest
from continuity_core.models.state import SessionState
from continuity_core.transcripts.ports import TranscriptBodyMissingError, TranscriptStore

MAX_ATTEMPTS = 6
# Checkpoints read for the digest they carry: the newest, plus two in case writers raced.
DIGEST_SOURCES = 3
# The most transcript one checkpoint reads for the digest (a session far behind reads its latest part).
MAX_TRANSCRIPT_READ = 400_000
# Sessions whose last written digest a warm process keeps (saves the writer a query per checkpoint).
REMEMBERED_SESSIONS = 512


class CheckpointWriter:
    def __init__(
        self,
        states: StateStore,
        checkpoints: CheckpointStore,
        config: ContinuityConfig,
        clock: Clock,
        sleep: Callable[[float], None] = time.sleep,
        transcripts: TranscriptStore | None = None,
    ) -> None:
        self._states = states
        self._checkpoints = checkpoints
        self._config = config
        self._clock = clock
        self._sleep = sleep
        self._transcripts = transcripts
        # The digest this process last wrote per session, with its checkpoint's sequence: when the
        # state says no checkpoint came since (``checkpoints_written``), it is the newest, unread.
        self._written: OrderedDict[tuple[str, str], tuple[int, SessionDigest]] = OrderedDict()

    def flush(
        self,
        agent_id: str,
        session_key: str,
        trigger: CheckpointTrigger = CheckpointTrigger.PERIODIC,
        flush_token: str | None = None,
        render: Callable[[SessionState], str] | None = None,
        worth_writing: Callable[[SessionState], bool] = lambda state: state.has_pending,
        extra: list[Statement] | None = None,
    ) -> FlushResult:
        """Checkpoint what is pending now. With ``flush_token``, only if that flush is still the one.

        Optimistic: read, build, commit on the read version; on a race, read again (latest wins).
        ``worth_writing`` decides on the state read (default: only when something is pending).
        Every checkpoint carries the rolling session digest: the previous one with what is pending
        (and the transcript since it last read, and ``extra``: e.g. the harness's compaction context)
        merged in.
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
            previous, unfinished = self._previous(agent_id, state)
            rolled = self._rolled(agent_id, state, now, extra, previous)
            checkpoint = build_checkpoint(
                state, trigger, now, digest=render(state) if render else None, session_digest=rolled
            )
            evicted = cap_evictions(
                self._checkpoints, agent_id, checkpoint, self._config.max_checkpoints_per_session
            )
            # A commit cut short after its checkpoint's put (the reset never came): this one holds
            # all of it (rolled in above) and takes its place, so no prompt is in two checkpoints.
            unfinished_ids = {c.id for c in unfinished}
            evicted = [c for c in evicted if c.id not in unfinished_ids]
            try:
                self._checkpoints.commit(
                    agent_id, checkpoint, consumed=state, now=now, evict=evicted, replaces=unfinished
                )
            except StateChangedError:
                self._forget_written(agent_id, session_key)
                self._sleep(random.uniform(0.02, 0.08) * (attempt + 1))
                continue
            except Exception:
                # The checkpoint may be stored without its reset: the next attempt must read the
                # session's checkpoints (to take that one over), not trust what this process wrote.
                self._forget_written(agent_id, session_key)
                raise
            self._note_written(agent_id, checkpoint)
            return FlushResult(FlushOutcome.WRITTEN, checkpoint, len(evicted))
        raise FlushConflictError(f"session {session_key} kept changing; retry later")

    def _rolled(
        self,
        agent_id: str,
        state: SessionState,
        now: datetime,
        extra: list[Statement] | None,
        previous: SessionDigest | None,
    ) -> SessionDigest:
        """The session's digest as of now: the last checkpoints' digest plus what came since."""
        start = previous.transcript_end if previous else 0
        transcript, end = self._transcript_since(agent_id, state, start)
        known = previous.recent_prompts if previous else []
        inputs = digest_inputs(state, transcript, known, now, extra)
        return roll(
            previous,
            inputs.statements,
            now=now,
            prompts=state.total_prompts,
            transcript_end=end,
            last_instruction=inputs.last_instruction,
            recent=inputs.recent,
            roots=[root for root in (state.project, state.project_normalized) if root],
        )

    def _transcript_since(self, agent_id: str, state: SessionState, start: int) -> tuple[str, int]:
        """The live transcript from ``start`` (at most its last MAX_TRANSCRIPT_READ characters), and
        where it ends. Unreadable: nothing, and the next checkpoint tries again from ``start``."""
        # The state's hint (where the transcript ended after the last hook that carried some):
        # none ever, or where the digest already read to, means nothing new to read.
        if self._transcripts is None or state.transcript_end in (None, start):
            return "", start
        try:
            found = self._transcripts.read_since(agent_id, state.session_key, start)
        except (TranscriptBodyMissingError, StorageUnavailableError):
            return "", start
        if found is None:
            return "", start
        text, end = found
        return text[-MAX_TRANSCRIPT_READ:], end

    def _previous(self, agent_id: str, state: SessionState) -> tuple[SessionDigest | None, list[Checkpoint]]:
        """The digest the session's last checkpoints carry, and the checkpoints whose commit never
        reset the state (a sequence past ``checkpoints_written``: the writer stopped between its two
        writes)."""
        written = self._written.get((agent_id, state.session_key))
        if written is not None and written[0] == state.checkpoints_written:
            return written[1], []
        recent = self._checkpoints.recent_for_session(agent_id, state.session_key, DIGEST_SOURCES)
        unfinished = [c for c in recent if c.sequence > state.checkpoints_written]
        return merge_digests(c.session_digest for c in recent), unfinished

    def _forget_written(self, agent_id: str, session_key: str) -> None:
        self._written.pop((agent_id, session_key), None)

    def _note_written(self, agent_id: str, checkpoint: Checkpoint) -> None:
        if checkpoint.session_digest is None:
            return
        key = (agent_id, checkpoint.session_key)
        self._written[key] = (checkpoint.sequence, checkpoint.session_digest)
        self._written.move_to_end(key)
        while len(self._written) > REMEMBERED_SESSIONS:
            self._written.popitem(last=False)
