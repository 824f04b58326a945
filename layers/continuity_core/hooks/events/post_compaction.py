"""Post-compaction: the harness's summary goes into the rolling digest at once, in a checkpoint the
next recovery reads (the same summary read again from the transcript later is the same fact,
merged)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from continuity_core.checkpoints.ports import Writer
from continuity_core.checkpoints.rolling import Statement
from continuity_core.extraction.sticky import Role
from continuity_core.hooks.events.shared import HookOutcome, append_transcript, identity, written
from continuity_core.hooks.ports import StateStore
from continuity_core.kernel.clock import Clock
from continuity_core.models.checkpoint_trigger import CheckpointTrigger
from continuity_core.models.hooks import Hook, HookResponse
from continuity_core.models.session_digest import FactSource
from continuity_core.models.state import SessionState
from continuity_core.transcripts.ports import TranscriptLog


@dataclass(frozen=True)
class PostCompaction:
    states: StateStore
    writer: Writer
    transcripts: TranscriptLog
    clock: Clock

    def handle(self, agent_id: str, hook: Hook) -> HookOutcome:
        append_transcript(self.transcripts, self.states, self.clock, agent_id, hook)
        now = self.clock()
        self.states.touch(agent_id, identity(hook), now)
        summary = (hook.compact_summary or "").strip()

        def worth_writing(state: SessionState) -> bool:
            if state.has_pending:
                return True
            # A replay of the same hook finds this trigger already last: nothing new to write.
            return bool(summary) and state.last_checkpoint_trigger != CheckpointTrigger.POST_COMPACTION.value

        result = self.writer.flush(
            agent_id,
            hook.session_key,
            CheckpointTrigger.POST_COMPACTION,
            worth_writing=worth_writing,
            extra=_summary_statements(summary, now),
        )
        return HookOutcome(HookResponse(event=hook.event), checkpoint_written=written(result))


def _summary_statements(summary: str, now: datetime) -> list[Statement]:
    """The harness's compaction summary, read for the rules, decisions and findings it states."""
    if not summary:
        return []
    return [Statement(summary, Role.SUMMARY, FactSource.COMPACTION_SUMMARY, None, now)]
