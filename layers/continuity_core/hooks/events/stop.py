"""Stop and sub-agent stop: the turn ended (stop), or a sub-agent finished (sub-agent stop, under the
sub-agent's own key). Its transcript lands and the session counts as active; no prompt, no
checkpoint. One handler serves both events: their rules are the same.

Dependencies, all required: the state, the transcript log and the clock."""

from __future__ import annotations

from continuity_core.hooks.events.shared import HookOutcome, append_transcript, identity, nothing_to_say
from continuity_core.models.hooks import Hook
from continuity_core.ports import Clock, StateStore, TranscriptLog


class Stop:
    def __init__(self, states: StateStore, transcripts: TranscriptLog, clock: Clock) -> None:
        self._states = states
        self._transcripts = transcripts
        self._clock = clock

    def handle(self, agent_id: str, hook: Hook) -> HookOutcome:
        self._states.touch(agent_id, identity(hook), self._clock())
        append_transcript(self._transcripts, self._states, self._clock, agent_id, hook)
        return nothing_to_say(hook)
