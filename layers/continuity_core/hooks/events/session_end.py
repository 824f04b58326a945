"""Session end: the session's final checkpoint, or, at a ``/clear``, a ``clear`` checkpoint the next
session (started with source ``clear``) recovers exactly; the state is marked ended."""

from __future__ import annotations

from dataclasses import dataclass

from continuity_core.checkpoints.ports import Writer
from continuity_core.hooks.events.shared import HookOutcome, append_transcript, nothing_to_say, written
from continuity_core.hooks.ports import StateStore
from continuity_core.kernel.clock import Clock
from continuity_core.models.checkpoint_trigger import CheckpointTrigger
from continuity_core.models.hooks import Hook, HookResponse
from continuity_core.models.state import SessionState
from continuity_core.transcripts.ports import TranscriptLog


@dataclass(frozen=True)
class SessionEnd:
    states: StateStore
    writer: Writer
    transcripts: TranscriptLog
    clock: Clock

    def handle(self, agent_id: str, hook: Hook) -> HookOutcome:
        append_transcript(self.transcripts, self.states, self.clock, agent_id, hook)
        now = self.clock()
        state = self.states.get(agent_id, hook.session_key)
        if state is None:
            return nothing_to_say(hook)
        if (hook.reason or "").lower() == "clear":
            # The cleared session's whole story, as a ``clear`` checkpoint: the session-start
            # (source=clear) that follows, under a new session id, recovers exactly this one.
            result = self.writer.flush(
                agent_id, hook.session_key, CheckpointTrigger.CLEAR, worth_writing=_worth_clearing
            )
        else:
            result = self.writer.flush(agent_id, hook.session_key, CheckpointTrigger.SESSION_END)
        self.states.end_session(agent_id, hook.session_key, now)
        return HookOutcome(HookResponse(event=hook.event), checkpoint_written=written(result))


def _worth_clearing(state: SessionState) -> bool:
    """A /clear links its session to the next one: worth a checkpoint unless one just did (a replay)."""
    if state.has_pending:
        return True
    return state.total_prompts > 0 and state.last_checkpoint_trigger != CheckpointTrigger.CLEAR.value
