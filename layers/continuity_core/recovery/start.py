"""What a session start injects, composed once: for the session-start hook and for its preview.

``compose_start`` places the recovery block, the ledger line and a sub-agent's inherited block
under the harness's cap; the hook (``hooks/ingest.py``) calls it after marking the session seen,
``StartPreview`` calls it for ``GET /api/preview`` and writes nothing, so what ``continuity
preview`` shows is what a session starting now in the project would get.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from continuity_core.checkpoints.ports import CheckpointStore
from continuity_core.kernel.clock import Clock
from continuity_core.kernel.config import ContinuityConfig
from continuity_core.models.handoff import Handoff
from continuity_core.models.hooks import Hook
from continuity_core.models.injections import InjectionRecord, InjectionSection
from continuity_core.models.recovery import PreviewAnswer
from continuity_core.models.state import SessionOrigin
from continuity_core.recovery.fit import MAX_INJECTION_CHARS, PlacedSection, Section, assemble
from continuity_core.recovery.handoff import SECTION_NAME as HANDOFF_SECTION
from continuity_core.recovery.handoff import render_handoff
from continuity_core.recovery.ports import InheritedBlock
from continuity_core.recovery.recovery import (
    LEDGER_LINE_CHARS,
    Receiver,
    Recovery,
    RecoverySource,
    StartContext,
    find_start_context,
    ledger_line,
    recovery_section,
)
from continuity_core.redaction import redact

# The source a fresh session starts with (Claude Code's SessionStart ``startup``).
STARTUP = "startup"
# The source of a start right after the harness compacted: the agent holds the harness's summary.
COMPACT_SOURCE = "compact"
INHERITED = "inherited"  # the inherited block's section name
HANDOFF_SOURCE = "handoff"  # how a start's recovered session was found when it was handed off


@dataclass(frozen=True)
class StartInjection:
    text: str | None
    recovery: Recovery | None  # None when a sub-agent's inheritance replaced a guessed recovery
    inherited: bool
    truncated: bool
    sections: tuple[PlacedSection, ...] = ()
    parent: InheritedBlock | None = None  # the parent a sub-agent inherited from, and how it was found
    handoff: Handoff | None = None  # the open hand-off given (the start's write consumes it)


def compose_start(
    start: StartContext,
    config: ContinuityConfig,
    now: datetime,
    limit: int,
    inherit: Callable[[int], InheritedBlock | None],
    beside_summary: bool = False,
) -> StartInjection:
    """The injection from what ``find_start_context`` found; ``inherit(budget)`` answers the
    inherited block within ``budget`` characters (None: nothing to inherit). ``beside_summary``: the
    start follows the harness's compaction of this same session, whose summary the agent now holds
    (the block then keeps only what that summary dropped)."""
    recovery, handoff = start.recovery, start.handoff
    # A sub-agent gets its parent's context; the project's latest session is then no guess to make,
    # and the project's hand-off is for a session of its own, not for a sub-agent.
    guessed = recovery is not None and recovery.source is RecoverySource.SAME_PROJECT
    reserved = 0 if recovery is None or guessed else min(config.recovery_budget_chars, limit)
    parent = inherit(limit - reserved - LEDGER_LINE_CHARS - 8)
    if parent is not None and guessed:
        recovery = None
    if parent is not None:
        handoff = None
    ledger = ledger_line(start.recent_decisions, now)
    sections = [
        handoff_section(handoff, now, limit, ledger)
        if handoff
        else recovery_section(recovery, config, now, limit, ledger, beside_summary=beside_summary),
        ledger,
        Section(text=parent.text, name=INHERITED) if parent is not None else None,
    ]
    injection = assemble([s for s in sections if s], limit)
    return StartInjection(
        injection.text, recovery, parent is not None, injection.truncated, injection.sections, parent, handoff
    )


def handoff_section(handoff: Handoff, now: datetime, limit: int, ledger: Section | None) -> Section:
    """The hand-off, first and in full: the whole cap but the ledger line's room (when there is a
    ledger line). Not ``recoveryBudgetChars``: that reserves room for a recovery the service chose,
    a hand-off is what the person asked the next session to get."""
    room = len(ledger.text) + 2 if ledger is not None else 0
    budget = max(limit - room, LEDGER_LINE_CHARS)
    text, cut = render_handoff(handoff, now, budget)
    return Section(text=text, reserved_chars=budget, cut=cut, name=HANDOFF_SECTION)


class StartPreview:
    """``GET /api/preview``: the session start's composition for a new session, read-only."""

    def __init__(self, checkpoints: CheckpointStore, config: ContinuityConfig, clock: Clock) -> None:
        self._checkpoints = checkpoints
        self._config = config
        self._clock = clock

    def preview(
        self, agent_id: str, project_normalized: str, cap: int | None, origin: SessionOrigin | None = None
    ) -> PreviewAnswer:
        now = self._clock()
        start = find_start_context(
            self._checkpoints,
            agent_id,
            None,
            None,
            project_normalized,
            self._config,
            now,
            start_source=STARTUP,
            origin=origin,
            receiver=Receiver(),  # a hand-off to anyone shows; one addressed by name does not
        )
        limit = cap or MAX_INJECTION_CHARS
        composed = compose_start(start, self._config, now, limit, lambda budget: None)
        source, session_key, checkpoint_id = recovered_from(composed)
        return PreviewAnswer(
            project_normalized=project_normalized,
            text=composed.text,
            source=source,
            session_key=session_key,
            checkpoint_id=checkpoint_id,
            decisions=len(start.recent_decisions),
            truncated=composed.truncated,
            chars=len(composed.text or ""),
            cap_chars=limit,
            sections=placed_sections(composed.sections),
        )


def recovered_from(composed: StartInjection) -> tuple[str | None, str | None, str | None]:
    """(how it was found, the session, the checkpoint) of what the start recovered: a hand-off's
    ``handoff`` checkpoint, or the recovery's."""
    if composed.handoff is not None:
        return HANDOFF_SOURCE, composed.handoff.session_key, composed.handoff.checkpoint_id
    if composed.recovery is None:
        return None, None, None
    checkpoint = composed.recovery.checkpoint
    return composed.recovery.source.value, checkpoint.session_key, checkpoint.id


def placed_sections(sections: tuple[PlacedSection, ...]) -> list[InjectionSection]:
    return [InjectionSection(name=s.name, chars=s.chars, truncated=s.truncated) for s in sections]


def injection_record(
    hook: Hook, event: str, composed: StartInjection, limit: int, now: datetime
) -> InjectionRecord:
    """What the inspector keeps of an injection: the block redacted, its sections, and the links it
    followed (the session it recovered, the parent it inherited from) with how each was found."""
    source, recovered_key, recovered_id = recovered_from(composed)
    return InjectionRecord(
        session_key=hook.session_key,
        event=event,
        at=now,
        harness=hook.harness,
        source=hook.source,
        subagent_id=hook.subagent_id,
        text=redact(composed.text) if composed.text is not None else None,
        chars=len(composed.text or ""),
        cap_chars=limit,
        truncated=composed.truncated,
        sections=placed_sections(composed.sections),
        recovery_source=source,
        recovered_session_key=recovered_key,
        recovered_checkpoint_id=recovered_id,
        parent_session_key=composed.parent.parent_session_key if composed.parent is not None else None,
        parent_found_by=composed.parent.found_by if composed.parent is not None else None,
    )
