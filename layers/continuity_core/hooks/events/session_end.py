"""Session end: the session's final checkpoint, or, at a ``/clear``, a ``clear`` checkpoint the next
session (started with source ``clear``) recovers exactly; the state is marked ended.

Dependencies, all required: the state, the checkpoint writer, the transcript log and the clock."""

from __future__ import annotations

from continuity_core.checkpoints.writer import CheckpointWriter
from continuity_core.hooks.events.shared import HookOutcome, append_transcript, nothing_to_say, written
from continuity_core.models.checkpoint import CheckpointTrigger
from continuity_core.models.hooks import Hook, HookResponse
from continuity_core.models.state import SessionState
from continuity_core.ports import Clock, StateStore, TranscriptLog


class SessionEnd:
    def __init__(
        self, states: StateStore, writer: CheckpointWriter, transcripts: TranscriptLog, clock: Clock
    ) -> None:
        self._states = states
        self._writer = writer
        self._transcripts = transcripts
        self._clock = clock

    def handle(self, agent_id: str, hook: Hook) -> HookOutcome:
        append_transcript(self._transcripts, self._states, self._clock, agent_id, hook)
        now = self._clock()
        state = self._states.get(agent_id, hook.session_key)
        if state is None:
            return nothing_to_say(hook)
        if (hook.reason or "").lower() == "clear":
            # The cleared session's whole story, as a ``clear`` checkpoint: the session-start
            # (source=clear) that follows, under a new session id, recovers exactly this one.
            result = self._writer.flush(
                agent_id, hook.session_key, CheckpointTrigger.CLEAR, worth_writing=_worth_clearing
            )
        else:
            result = self._writer.flush(agent_id, hook.session_key, CheckpointTrigger.SESSION_END)
        self._states.end_session(agent_id, hook.session_key, now)
        return HookOutcome(HookResponse(event=hook.event), checkpoint_written=written(result))


def _worth_clearing(state: SessionState) -> bool:
    """A /clear links its session to the next one: worth a checkpoint unless one just did (a replay)."""
    if state.has_pending:
        return True
    return state.total_prompts > 0 and state.last_checkpoint_trigger != CheckpointTrigger.CLEAR.value
