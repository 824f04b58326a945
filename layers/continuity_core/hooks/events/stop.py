"""Stop and sub-agent stop: the turn ended (stop), or a sub-agent finished (sub-agent stop, under the
sub-agent's own key). Its transcript lands and the session counts as active; no prompt, no
checkpoint. One handler serves both events: their rules are the same."""

from __future__ import annotations

from dataclasses import dataclass

from continuity_core.hooks.events.shared import HookOutcome, append_transcript, identity, nothing_to_say
from continuity_core.hooks.ports import StateStore
from continuity_core.kernel.clock import Clock
from continuity_core.models.hooks import Hook
from continuity_core.transcripts.ports import TranscriptLog


@dataclass(frozen=True)
class Stop:
    states: StateStore
    transcripts: TranscriptLog
    clock: Clock

    def handle(self, agent_id: str, hook: Hook) -> HookOutcome:
        self.states.touch(agent_id, identity(hook), self.clock())
        append_transcript(self.transcripts, self.states, self.clock, agent_id, hook)
        return nothing_to_say(hook)
