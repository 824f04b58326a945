"""Remember: what the agent or user asked to keep, into the session state (one write); a full
pending list is checkpointed at once."""

from __future__ import annotations

from dataclasses import dataclass

from continuity_core.checkpoints.ports import Writer
from continuity_core.extraction.terms import snippet
from continuity_core.hooks.events.shared import (
    HookOutcome,
    fingerprint,
    flush_if_full,
    identity,
    nothing_to_say,
    written,
)
from continuity_core.hooks.ports import StateStore
from continuity_core.kernel.clock import Clock
from continuity_core.models.hooks import Hook, HookResponse

REMEMBER_CHARS = 500


@dataclass(frozen=True)
class Remember:
    states: StateStore
    writer: Writer
    clock: Clock

    def handle(self, agent_id: str, hook: Hook) -> HookOutcome:
        content = snippet(hook.content or hook.prompt, REMEMBER_CHARS)
        if not content:
            return nothing_to_say(hook)
        state = self.states.record_remember(
            agent_id, identity(hook), content, self.clock(), hook.idempotency_key, fingerprint(hook)
        )
        early = flush_if_full(self.writer, agent_id, state)
        return HookOutcome(HookResponse(event=hook.event), checkpoint_written=written(early))
