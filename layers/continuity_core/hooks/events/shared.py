"""What several hook handlers share, as plain functions (no base class): the outcome they answer
with, the session identity a hook names, the transcript append, and the request-path checkpoint of
a full pending list.

Each function takes the ports it uses as arguments, so a handler passes what it holds and nothing
is optional: a handler that appends the transcript holds a ``TranscriptLog``."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from continuity_core.hooks.idempotency import hook_fingerprint
from continuity_core.hooks.ports import StateStore
from continuity_core.kernel.clock import Clock
from continuity_core.kernel.config import ContinuityConfig
from continuity_core.kernel.errors import FlushConflictError, TranscriptGapError
from continuity_core.models.checkpoint_trigger import CheckpointTrigger
from continuity_core.models.hooks import Hook, HookResponse
from continuity_core.models.state import SessionIdentity, SessionOrigin, SessionState, origin_values
from continuity_core.transcripts.ports import TranscriptHint, TranscriptLog

if TYPE_CHECKING:  # annotations only: what a prompt or a stop does not use stays unloaded
    from continuity_core.checkpoints.ports import CheckpointStore, FlushResult, Writer
    from continuity_core.recovery.fit import Injection
    from continuity_core.recovery.recovery import Recovery


@dataclass(frozen=True)
class HookOutcome:
    """The answer plus what happened, for metrics and logs."""

    response: HookResponse
    flush_requested: bool = False
    flush_merged: bool = False
    duplicate: bool = False
    recovery: Recovery | None = None
    nudged: bool = False
    inherited: bool = False  # a sub-agent got its parent's context
    checkpoint_written: str | None = None  # trigger of a checkpoint written on the request path
    truncated: bool = False  # the injected context left something out to fit the harness's cap


class HookHandler(Protocol):
    """One event's rules: what a hook of that event stores, and the answer."""

    def handle(self, agent_id: str, hook: Hook) -> HookOutcome: ...


def nothing_to_say(hook: Hook) -> HookOutcome:
    return HookOutcome(HookResponse(event=hook.event))


def append_transcript(
    transcripts: TranscriptLog,
    states: StateStore,
    clock: Clock,
    agent_id: str,
    hook: Hook,
    hint: TranscriptHint | None = None,
) -> None:
    """After the hook's own effect, so a 409 (gap) never loses the prompt; the client resends.
    ``hint``: what the prompt's state update said of the transcript (one request when it fits)."""
    if hook.transcript is None:
        return
    delta = hook.transcript
    # Raw: the appender redacts it with the stored text before it (a secret split across two
    # deltas is found whole), keeping lengths, so offsets stay the client's characters.
    result = transcripts.append(agent_id, identity(hook), delta.offset, delta.text, clock(), hint)
    if result.hint is not None:  # the state's hint was wrong: the next prompt appends in one request
        states.set_transcript_hint(
            agent_id, hook.session_key, result.hint.previous_end, result.hint.head_written_at
        )
    if result.gap:
        raise TranscriptGapError(result.length)


def flush_if_full(writer: Writer, agent_id: str, state: SessionState) -> FlushResult | None:
    """A pending list is full (a burst, a replayed spool outran the queued flush): checkpoint it
    here, so the state stays bounded and no prompt is dropped. A flush in flight then finds its
    token gone and writes nothing. Raced by the session's next hooks: the next one tries again."""
    if not state.is_full:
        return None
    try:
        return writer.flush(agent_id, state.session_key, CheckpointTrigger.PERIODIC)
    except FlushConflictError:
        return None


def own_recovery(
    checkpoints: CheckpointStore, config: ContinuityConfig, agent_id: str, hook: Hook, now: datetime
) -> tuple[Recovery | None, Injection]:
    """The recovery block of this session's own latest checkpoint (the story that was just
    compacted), with the ledger line, inside the harness's cap: after a compaction, at
    pre-compaction or at the prompt that reports one."""
    # Imported here: the prompt handler is built at every cold start, and only the rare prompt that
    # reports a compaction needs recovery's rules (the digest's rendering and scoring, ~50 ms).
    from continuity_core.recovery.fit import assemble, injection_limit
    from continuity_core.recovery.recovery import (
        RecoverySource,
        find_start_context,
        ledger_line,
        recovery_section,
    )

    limit = injection_limit(hook)
    start = find_start_context(
        checkpoints,
        agent_id,
        hook.session_key,
        None,
        hook.project_normalized,
        config,
        now,
        start_source="compact",
        harness=hook.harness,
    )
    recovery = start.recovery
    if recovery is not None and recovery.source is not RecoverySource.SAME_SESSION:
        recovery = None  # another session's story is no recovery of this one's compaction
    ledger = ledger_line(start.recent_decisions, now)
    sections = [recovery_section(recovery, config, now, limit, ledger, beside_summary=True), ledger]
    return recovery, assemble([s for s in sections if s], limit)


def written(result: FlushResult | None) -> str | None:
    if result is None or result.checkpoint is None:
        return None
    return result.checkpoint.trigger.value


def fingerprint(hook: Hook) -> str | None:
    """Only a hook with a key needs one (hashing the prompt costs microseconds, not a write)."""
    return hook_fingerprint(hook) if hook.idempotency_key else None


def origin(hook: Hook) -> SessionOrigin:
    return SessionOrigin(**origin_values(hook))


def identity(hook: Hook) -> SessionIdentity:
    return SessionIdentity(
        session_key=hook.session_key,
        harness=hook.harness,
        project=hook.project,
        project_normalized=hook.project_normalized,
        **origin_values(hook),
    )
