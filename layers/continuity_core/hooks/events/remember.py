"""Remember: what the agent or user asked to keep, into the session state (one write); a full
pending list is checkpointed at once.

Dependencies, all required: the state, the checkpoint writer and the clock."""

from __future__ import annotations

from continuity_core.checkpoints.writer import CheckpointWriter
from continuity_core.extraction.terms import snippet
from continuity_core.hooks.events.shared import (
    HookOutcome,
    fingerprint,
    flush_if_full,
    identity,
    nothing_to_say,
    written,
)
from continuity_core.models.hooks import Hook, HookResponse
from continuity_core.ports import Clock, StateStore

REMEMBER_CHARS = 500


class Remember:
    def __init__(self, states: StateStore, writer: CheckpointWriter, clock: Clock) -> None:
        self._states = states
        self._writer = writer
        self._clock = clock

    def handle(self, agent_id: str, hook: Hook) -> HookOutcome:
        content = snippet(hook.content or hook.prompt, REMEMBER_CHARS)
        if not content:
            return nothing_to_say(hook)
        state = self._states.record_remember(
            agent_id, identity(hook), content, self._clock(), hook.idempotency_key, fingerprint(hook)
        )
        early = flush_if_full(self._writer, agent_id, state)
        return HookOutcome(HookResponse(event=hook.event), checkpoint_written=written(early))
