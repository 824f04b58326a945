"""Recovery at session start: find what to hand back, and render it.

Lookup order: the same session (no time limit) → an explicit previous session → the same project
within the recovery window. The project index query also brings the ledger's newest decisions, so
recovery costs the same few requests however many checkpoints are stored.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum

from continuity_core.config import ContinuityConfig
from continuity_core.logic.digest import format_duration
from continuity_core.logic.injection import Section, fit
from continuity_core.models.checkpoint import Checkpoint, CheckpointTrigger
from continuity_core.models.digest import LedgerEntry
from continuity_core.ports import CheckpointStore

RECOVERY_HEADING = "## Session Recovery Context"
FORK_HEADING = "### Ledger changed since your last checkpoint"
LEDGER_HEADING = "## Decision Ledger"
LEDGER_LINE_CHARS = 400
# Enough recent checkpoints to find the passive one behind a newer agent digest.
RECENT = 4


class RecoverySource(StrEnum):
    SAME_SESSION = "same_session"
    PREVIOUS_SESSION = "previous_session"
    SAME_PROJECT = "same_project"


@dataclass(frozen=True)
class Recovery:
    checkpoints: list[Checkpoint]  # the latest, then the last passive one when an agent digest is newer
    source: RecoverySource
    changed_decisions: list[LedgerEntry] = field(default_factory=list)

    @property
    def checkpoint(self) -> Checkpoint:
        return self.checkpoints[0]


@dataclass(frozen=True)
class StartContext:
    recovery: Recovery | None
    recent_decisions: list[LedgerEntry]


def pick(recent: list[Checkpoint]) -> list[Checkpoint]:
    """The newest checkpoint; if it is the agent's digest, also the newest passive one of its session."""
    if not recent:
        return []
    latest = recent[0]
    if latest.trigger is not CheckpointTrigger.AGENT:
        return [latest]
    passive = next(
        (
            c
            for c in recent[1:]
            if c.trigger is not CheckpointTrigger.AGENT and c.session_key == latest.session_key
        ),
        None,
    )
    return [latest, passive] if passive else [latest]


def find_start_context(
    store: CheckpointStore,
    agent_id: str,
    session_key: str,
    previous_session_key: str | None,
    project_normalized: str | None,
    config: ContinuityConfig,
    now: datetime,
) -> StartContext:
    own = store.recent_for_session(agent_id, session_key, RECENT)
    source = RecoverySource.SAME_SESSION
    if not own and previous_session_key and previous_session_key != session_key:
        own = store.recent_for_session(agent_id, previous_session_key, RECENT)
        source = RecoverySource.PREVIOUS_SESSION
    decisions: list[LedgerEntry] = []
    if project_normalized:
        since = now - timedelta(hours=config.recovery_window_hours)
        snapshot = store.project_snapshot(agent_id, project_normalized, since, RECENT)
        decisions = snapshot.recent_decisions
        if not own:
            own, source = snapshot.checkpoints, RecoverySource.SAME_PROJECT
    chosen = pick(own)
    if not chosen:
        return StartContext(recovery=None, recent_decisions=decisions)
    latest = chosen[0]
    changed = [
        d for d in decisions if d.created_at > latest.created_at and d.session_key != latest.session_key
    ]
    return StartContext(Recovery(chosen, source, changed), decisions)


def find_recovery(
    store: CheckpointStore,
    agent_id: str,
    session_key: str,
    previous_session_key: str | None,
    project_normalized: str | None,
    config: ContinuityConfig,
    now: datetime,
) -> Recovery | None:
    return find_start_context(
        store, agent_id, session_key, previous_session_key, project_normalized, config, now
    ).recovery


def describe_decision(entry: LedgerEntry, now: datetime) -> str:
    who = f"session {entry.session_key}, {format_duration(now - entry.created_at)} ago"
    reason = f" — {entry.rationale}" if entry.rationale else ""
    return f"- {entry.decision}{reason} ({who})"


def render_recovery(recovery: Recovery, now: datetime) -> str:
    latest = recovery.checkpoint
    origin = (
        "this session" if recovery.source is RecoverySource.SAME_SESSION else f"session {latest.session_key}"
    )
    age = format_duration(now - latest.created_at)
    parts = [
        f"{RECOVERY_HEADING}\n"
        f"_Recovered from the {latest.trigger.value} checkpoint of {origin}, "
        f"written {age} ago ({latest.created_at.isoformat(timespec='seconds')})._"
    ]
    if recovery.changed_decisions:
        # The ledger is the authority: put what changed first, where a cut cannot reach it.
        parts.append(
            FORK_HEADING
            + "\n_Decided by other sessions after this checkpoint; they override it:_\n"
            + "\n".join(describe_decision(d, now) for d in reversed(recovery.changed_decisions))
        )
    parts += [checkpoint.digest for checkpoint in recovery.checkpoints]
    return "\n\n".join(parts)


def recovery_section(recovery: Recovery | None, config: ContinuityConfig, now: datetime) -> Section | None:
    if recovery is None:
        return None
    return Section(text=render_recovery(recovery, now), reserved_chars=config.recovery_budget_chars)


def ledger_line(decisions: list[LedgerEntry], now: datetime) -> Section | None:
    """Level 1 of the ledger at session start: the last three decisions and where to find more."""
    if not decisions:
        return None
    newest = decisions[:3]
    text = "\n".join(
        [
            LEDGER_HEADING,
            *(f"- {d.decision} ({format_duration(now - d.created_at)} ago)" for d in newest),
            "More: MCP tool `recover` level 2 or 3, or `continuity recover 2`.",
        ]
    )
    return Section(text=fit(text, LEDGER_LINE_CHARS))
