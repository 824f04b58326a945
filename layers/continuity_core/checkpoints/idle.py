"""The idle sweep: the final checkpoint of a session whose end never came.

Harnesses often send no session end (a desktop app closed, Gemini CLI not waiting), so a session's
last prompts would sit pending until retention. Every few minutes the sweep reads the idle index
(sessions that got pending prompts, by when they were last seen active: bounded reads, never a
scan), and for each session quiet for ``idleCloseMinutes`` with something pending writes a checkpoint
with trigger ``idle``. A session still active is moved to its last activity; one with nothing
pending leaves the index. Every write is conditioned on what the sweep read (checkpoints/writer.py's
version check; the index's own place), so a prompt arriving meanwhile is never lost: it is either
in the idle checkpoint or keeps the session in the index.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta

from continuity_core.checkpoints.ports import FlushOutcome, IdleCandidate, IdleIndex
from continuity_core.checkpoints.writer import CheckpointWriter
from continuity_core.hooks.ports import StateStore
from continuity_core.kernel.clock import Clock
from continuity_core.kernel.config import ContinuityConfig
from continuity_core.kernel.errors import FlushConflictError
from continuity_core.models.checkpoint_trigger import CheckpointTrigger
from continuity_core.models.state import SessionState

# Sessions one round reads (one bounded query per index shard); a run goes on round after round
# while time allows and a round came back full, at most MAX_ROUNDS; the rest stay due for the next run.
MAX_PER_ROUND = 200
MAX_ROUNDS = 10


@dataclass
class IdleReport:
    looked_at: int = 0
    closed: int = 0  # idle checkpoints written
    still_active: int = 0  # moved on to their last activity
    settled: int = 0  # out of the index: nothing pending (or the session is gone)
    conflicts: int = 0  # the session kept changing under the writer: the next run tries again

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


class IdleSweeper:
    def __init__(
        self,
        index: IdleIndex,
        states: StateStore,
        writer: CheckpointWriter,
        config: ContinuityConfig,
        clock: Clock,
        limit: int = MAX_PER_ROUND,
    ) -> None:
        self._index = index
        self._states = states
        self._writer = writer
        self._config = config
        self._clock = clock
        self._limit = limit

    def run(self, should_stop: Callable[[], bool] = lambda: False) -> IdleReport:
        report = IdleReport()
        cutoff = self._clock() - timedelta(minutes=self._config.idle_close_minutes)
        for _ in range(MAX_ROUNDS):
            due = self._index.due(cutoff, self._limit)
            looked, conflicts = report.looked_at, report.conflicts
            if not self._round(due, cutoff, report, should_stop):
                break
            # A short round read everything due; a round that moved nothing (conflicts) stops too.
            moved = (report.looked_at - looked) - (report.conflicts - conflicts)
            if len(due) < self._limit or moved <= 0:
                break
        return report

    def _round(
        self, due: list[IdleCandidate], cutoff: datetime, report: IdleReport, should_stop: Callable[[], bool]
    ) -> bool:
        """False when time ran out."""
        by_agent: dict[str, list[IdleCandidate]] = defaultdict(list)
        for candidate in due:
            by_agent[candidate.agent_id].append(candidate)
        for agent_id, candidates in by_agent.items():
            states = self._states.get_many(agent_id, [c.session_key for c in candidates])
            for candidate in candidates:
                if should_stop():
                    return False
                report.looked_at += 1
                self._sweep(candidate, states.get(candidate.session_key), cutoff, report)
        return True

    def _sweep(
        self, candidate: IdleCandidate, state: SessionState | None, cutoff: datetime, report: IdleReport
    ) -> None:
        if state is None or not state.has_pending:
            report.settled += self._index.settle(candidate, state.version if state else None)
            return
        if state.last_activity_at > cutoff:
            report.still_active += self._index.recheck(candidate, state.last_activity_at)
            return
        try:
            result = self._writer.flush(
                candidate.agent_id,
                candidate.session_key,
                CheckpointTrigger.IDLE,
                worth_writing=lambda s: s.has_pending and s.last_activity_at <= cutoff,
            )
        except FlushConflictError:
            report.conflicts += 1
            return
        report.closed += result.outcome is FlushOutcome.WRITTEN
        after = self._states.get(candidate.agent_id, candidate.session_key)
        if after is not None and after.has_pending:  # a prompt came meanwhile: it keeps the session in
            self._index.recheck(candidate, after.last_activity_at)
        else:
            self._index.settle(candidate, after.version if after else None)
