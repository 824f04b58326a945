"""A prompt: its snippet into the session state (one write), a debounced flush when a checkpoint is
due, the transcript delta, and the compaction nudge; or, at the prompt that reports a compaction
(Gemini CLI), the recovery block a compact session start would have had."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from continuity_core.checkpoints.due import (
    ARMED_TOKEN_CHARS,
    STALE_FLUSH_AFTER,
    armed_flush_to_send,
    is_checkpoint_due,
    is_flush_in_flight,
)
from continuity_core.extraction.terms import snippet
from continuity_core.hooks.events.shared import (
    HookOutcome,
    append_transcript,
    fingerprint,
    flush_if_full,
    identity,
    own_recovery,
    written,
)
from continuity_core.hooks.ports import FlushQueue, PromptRecord, StateStore
from continuity_core.kernel.clock import Clock
from continuity_core.kernel.config import ContinuityConfig
from continuity_core.models.checkpoint_trigger import CheckpointTrigger
from continuity_core.models.hooks import Hook, HookResponse
from continuity_core.models.state import SNIPPET_CHARS, SessionState
from continuity_core.transcripts.ports import TranscriptHint, TranscriptLog

if TYPE_CHECKING:  # annotations only: a prompt rarely writes a checkpoint or reads one
    from continuity_core.checkpoints.ports import CheckpointStore, Writer

# The compaction nudge's fallback when the client reports no harness figure (older clients, harnesses
# that record none): the readable transcript's characters, ~4 a token. It undercounts (tool results
# are cut to 500 characters): on real Claude Code sessions it is 2-25 % of the real context.
CHARS_PER_TOKEN = 4
NUDGE_TEXT = (
    "Continuity: this session's context is about {percent}% full and will be compacted soon. "
    "Before it is, call the `session_digest` tool (Continuity MCP server) with a short summary, "
    "your decisions with their rationale, and your next steps, so they survive the compaction."
)


@dataclass(frozen=True)
class UserPrompt:
    states: StateStore
    checkpoints: CheckpointStore
    flushes: FlushQueue
    writer: Writer
    transcripts: TranscriptLog
    config: ContinuityConfig
    clock: Clock

    def handle(self, agent_id: str, hook: Hook) -> HookOutcome:
        now = self.clock()
        record = PromptRecord(
            snippet=snippet(hook.prompt, SNIPPET_CHARS),
            idempotency_key=hook.idempotency_key,
            body_fingerprint=fingerprint(hook),
            transcript_chars=hook.transcript_chars,
            context_tokens=hook.context_tokens,
            transcript_end=_delta_end(hook),
            compacted=hook.compacted,
            flush_token=uuid.uuid4().hex[:ARMED_TOKEN_CHARS],
        )
        state = self.states.record_prompt(agent_id, identity(hook), record, now)
        early = flush_if_full(self.writer, agent_id, state)
        requested, merged = (False, False) if early else self._request_flush_if_due(agent_id, state)
        hint = None
        if record.transcript_end is not None:
            previous = state.transcript_prev_end
            hint = TranscriptHint(-1 if previous is None else previous, state.transcript_head_at)
        append_transcript(self.transcripts, self.states, self.clock, agent_id, hook, hint)
        if hook.compacted:
            return self._recover_after_compaction(agent_id, hook, requested, merged)
        nudge = self._nudge(agent_id, state, now)
        return HookOutcome(
            HookResponse(event=hook.event, additional_context=nudge),
            flush_requested=requested,
            flush_merged=merged,
            nudged=nudge is not None,
            checkpoint_written=written(early),
        )

    def _recover_after_compaction(
        self, agent_id: str, hook: Hook, requested: bool, merged: bool
    ) -> HookOutcome:
        """The harness compacted and starts no session for it (Gemini CLI): checkpoint what the
        session holds now (its compaction summary included, from the transcript) and answer this
        prompt with the recovery block a compact session start would have had."""
        trigger, worth = CheckpointTrigger.POST_COMPACTION, _worth_after_compaction
        result = self.writer.flush(agent_id, hook.session_key, trigger, worth_writing=worth)
        recovery, injection = own_recovery(self.checkpoints, self.config, agent_id, hook, self.clock())
        return HookOutcome(
            HookResponse(event=hook.event, additional_context=injection.text),
            flush_requested=requested,
            flush_merged=merged,
            recovery=recovery,
            checkpoint_written=written(result),
            truncated=injection.truncated,
        )

    def _nudge(self, agent_id: str, state: SessionState, now: datetime) -> str | None:
        """Once per crossing of the threshold, unless the agent already wrote a digest since re-arming.

        The context is the harness's own figure (``context_tokens``, the last one the client sent)
        whenever the session reported one; the transcript estimate (``transcript_chars`` / 4) only
        when it never did. Either re-arms when it falls below the threshold (a compaction)."""
        if state.context_tokens is not None:
            used = float(state.context_tokens)
        elif state.transcript_chars is not None:
            used = state.transcript_chars / CHARS_PER_TOKEN
        else:
            return None
        window = self.config.context_window_tokens
        if used < self.config.nudge_point_tokens:
            if state.nudged:  # the context shrank (compaction): re-arm
                self.states.set_nudged(agent_id, state.session_key, False, now)
            return None
        if state.nudged:
            return None
        armed_at = state.nudge_armed_at or state.started_at
        digested = state.last_digest_at is not None and state.last_digest_at >= armed_at
        if not self.states.set_nudged(agent_id, state.session_key, True, now) or digested:
            return None
        return NUDGE_TEXT.format(percent=round(100 * used / window))

    def _request_flush_if_due(self, agent_id: str, state: SessionState) -> tuple[bool, bool]:
        """(requested, merged): at most one flush in flight per session; later triggers merge."""
        now = self.clock()
        if not is_checkpoint_due(state, self.config, now):
            return False, False
        if is_flush_in_flight(state, self.config, now):
            return False, True
        armed = armed_flush_to_send(state, self.config)
        if armed is not None:
            try:
                self.flushes.request_flush(
                    agent_id, state.session_key, armed, self.config.flush_delay_seconds
                )
            except Exception:
                # Claimed as if long ago (presumed lost): the next prompt claims it afresh and asks again.
                lost_at = now - STALE_FLUSH_AFTER - STALE_FLUSH_AFTER
                self.states.claim_flush(agent_id, state.session_key, armed, lost_at, lost_at)
                raise
            return True, False
        token = uuid.uuid4().hex
        claimed = self.states.claim_flush(
            agent_id, state.session_key, token, now, stale_before=now - STALE_FLUSH_AFTER
        )
        if not claimed:
            return False, True
        try:
            self.flushes.request_flush(agent_id, state.session_key, token, self.config.flush_delay_seconds)
        except Exception:
            # Let the next prompt try again instead of waiting for the claim to go stale.
            self.states.release_flush(agent_id, state.session_key, token)
            raise
        return True, False


def _worth_after_compaction(state: SessionState) -> bool:
    """The prompt that found the compaction is pending; a replay finds this trigger already last."""
    return state.has_pending or state.last_checkpoint_trigger != CheckpointTrigger.POST_COMPACTION.value


def _delta_end(hook: Hook) -> int | None:
    """Where the transcript delta the hook carries ends (redaction keeps lengths), if it has text."""
    if hook.transcript is None or not hook.transcript.text:
        return None
    return hook.transcript.offset + len(hook.transcript.text)
