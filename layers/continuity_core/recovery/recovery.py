"""Recovery at session start: find what to hand back, and render it.

Lookup order: the same session (no time limit) → an explicit previous session (the session a fork
or a resume under a new id continues: the client reads it from the harness's transcript) → after a /clear, the
session just cleared (its ``clear`` checkpoint, same harness) → the same project within the recovery
window (unless ``crossSessionRecovery`` is off). The project index query also brings the ledger's
newest decisions, so recovery costs the same few requests however many checkpoints are stored.

A project is its repository (the client's ``hook/project_id.py``), so "the same project" spans
machines, clones, worktrees and harnesses. Across sessions (``origin_rank``): only the same person's
work (a session naming no person matches anyone; ``crossPersonRecovery`` lifts it); a session on
another branch is not recovered at all (a branch is another line of work: its next steps are not
this session's; the ledger line still shows its decisions, and a hand-off is the explicit way
across); of the rest, the same branch first. The block says where the work came from ("from
ana-laptop, branch `fix/refunds`, Claude Code"). After a /clear, the cleared session is this
machine's. Data written before project ids (keyed by the folder's real path, ``project_path``) is
read when the project's own key has nothing in the window (``read_project``).

A checkpoint carries the rolling session digest, so the newest one holds the session's whole story;
the block is rendered from it (``recovery/recovery_block.py``). Checkpoints written before the digest
existed are rendered from their own text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from enum import StrEnum

from continuity_core.checkpoints.passive_digest import format_duration
from continuity_core.checkpoints.ports import CheckpointStore, ProjectSnapshot
from continuity_core.extraction.claims import clip
from continuity_core.kernel.config import ContinuityConfig
from continuity_core.models.checkpoint import Checkpoint
from continuity_core.models.checkpoint_trigger import CheckpointTrigger
from continuity_core.models.digest import LedgerEntry
from continuity_core.models.handoff import Handoff
from continuity_core.models.state import SessionOrigin
from continuity_core.recovery.fit import Section, fit
from continuity_core.recovery.handoff import choose_handoff
from continuity_core.recovery.recovery_block import BRIEFING_CHARS, render_digest

RECOVERY_HEADING = "## Session Recovery Context"
FORK_HEADING = "### Ledger changed since your last checkpoint"
LEDGER_HEADING = "## Decision Ledger"
LEDGER_LINE_CHARS = 400
# Enough recent checkpoints to find the passive one behind a newer agent digest.
RECENT = 4


class RecoverySource(StrEnum):
    SAME_SESSION = "same_session"
    PREVIOUS_SESSION = "previous_session"
    FORKED_SESSION = "forked_session"  # the previous session, named by a fork's start (source=fork)
    CLEARED_SESSION = "cleared_session"
    SAME_PROJECT = "same_project"


UNBOUNDED = 10**9
# A session-start with source=clear follows its session-end(reason=clear) within moments.
CLEAR_LINK_WINDOW = timedelta(minutes=10)
CLEAR_SOURCES = frozenset({"clear"})
FORK_SOURCES = frozenset({"fork"})


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
    handoff: Handoff | None = None  # an open hand-off for this session: given in place of a guess


@dataclass(frozen=True)
class Receiver:
    """A session start that may receive an open hand-off: a new session (not a sub-agent's, not one
    continuing its own), and who it is for ``--to``."""

    person: str | None = None
    machine: str | None = None


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
    session_key: str | None,
    previous_session_key: str | None,
    project_normalized: str | None,
    config: ContinuityConfig,
    now: datetime,
    start_source: str | None = None,
    harness: str | None = None,
    origin: SessionOrigin | None = None,
    receiver: Receiver | None = None,
) -> StartContext:
    # No session key: a session not started yet (the preview), which has nothing of its own.
    own = store.recent_for_session(agent_id, session_key, RECENT) if session_key else []
    snapshot = read_project(store, agent_id, project_normalized, config, now, origin)
    return choose_start(
        store,
        agent_id,
        session_key,
        own,
        previous_session_key,
        snapshot,
        config,
        now,
        start_source,
        harness,
        origin,
        receiver,
    )


def read_project(
    store: CheckpointStore,
    agent_id: str,
    project_normalized: str | None,
    config: ContinuityConfig,
    now: datetime,
    origin: SessionOrigin | None = None,
) -> ProjectSnapshot | None:
    """The project index's one query (its newest checkpoints within the window and the ledger head).

    The alias of data written before project ids: when the project's key lists no checkpoint and
    the client sent the folder's real path (``project_path``, the key it used before), that key is
    read too. Once the project's own key holds a checkpoint, the second query is never made."""
    if not project_normalized:
        return None
    since = now - timedelta(hours=config.recovery_window_hours)
    snapshot = store.project_snapshot(agent_id, project_normalized, since, RECENT)
    old_key = origin.project_path if origin is not None else None
    if snapshot.checkpoints or not old_key or old_key == project_normalized:
        return snapshot
    older = store.project_snapshot(agent_id, old_key, since, RECENT)
    decisions = sorted(
        [*snapshot.recent_decisions, *older.recent_decisions], key=lambda d: d.created_at, reverse=True
    )
    return replace(
        older, recent_decisions=decisions[: max(len(snapshot.recent_decisions), len(older.recent_decisions))]
    )


def own_from_snapshot(snapshot: ProjectSnapshot | None, session_key: str | None) -> list[Checkpoint] | None:
    """A session's newest checkpoints, read off the project's newest-first listing instead of a query
    of the session: when the listing holds one of them, nothing of the session is newer (it would be
    listed first), so it is the session's latest, as ``recent_for_session`` answers. None when the
    listing cannot tell: it holds none of them (the session may have none, or only older ones), or
    its newest is an agent digest whose passive checkpoint behind it is not listed."""
    if snapshot is None or not session_key:
        return None
    mine = [c for c in snapshot.checkpoints if c.session_key == session_key]
    if not mine:
        return None
    if mine[0].trigger is CheckpointTrigger.AGENT and len(pick(mine)) == 1:
        return None
    return mine


def choose_start(
    store: CheckpointStore,
    agent_id: str,
    session_key: str | None,
    own: list[Checkpoint],
    previous_session_key: str | None,
    snapshot: ProjectSnapshot | None,
    config: ContinuityConfig,
    now: datetime,
    start_source: str | None = None,
    harness: str | None = None,
    origin: SessionOrigin | None = None,
    receiver: Receiver | None = None,
) -> StartContext:
    """The lookup order over what was read: ``own`` (the session's newest checkpoints), the explicit
    previous session (read off ``snapshot`` when listed there, else queried), the cleared session and
    the project (from ``snapshot``, ranked by ``origin_rank``). A ``receiver`` whose start would only
    guess (the project's latest, or nothing) gets an open hand-off addressed to it instead
    (``recovery/handoff.py``)."""
    source = RecoverySource.SAME_SESSION
    if not own and previous_session_key and previous_session_key != session_key:
        listed = own_from_snapshot(snapshot, previous_session_key)
        if listed is None:
            listed = store.recent_for_session(agent_id, previous_session_key, RECENT)
        own = listed
        forked = (start_source or "").lower() in FORK_SOURCES
        source = RecoverySource.FORKED_SESSION if forked else RecoverySource.PREVIOUS_SESSION
    decisions: list[LedgerEntry] = []
    if snapshot is not None:
        decisions = snapshot.recent_decisions
        others = [c for c in snapshot.checkpoints if c.session_key != session_key]
        cleared = _cleared(others, start_source, harness, now, origin)
        if not own and cleared is not None:
            own, source = [cleared], RecoverySource.CLEARED_SESSION
        elif not own and config.cross_session_recovery:
            own, source = origin_rank(others, origin, config), RecoverySource.SAME_PROJECT
    chosen = pick(own)
    guessing = not chosen or source is RecoverySource.SAME_PROJECT
    if receiver is not None and snapshot is not None and guessing:
        handoff = choose_handoff(snapshot.handoffs, session_key, receiver.person, receiver.machine)
        if handoff is not None:
            return StartContext(recovery=None, recent_decisions=decisions, handoff=handoff)
    if not chosen:
        return StartContext(recovery=None, recent_decisions=decisions)
    latest = chosen[0]
    changed = [
        d for d in decisions if d.created_at > latest.created_at and d.session_key != latest.session_key
    ]
    return StartContext(Recovery(chosen, source, changed), decisions)


def origin_rank(
    checkpoints: list[Checkpoint], origin: SessionOrigin | None, config: ContinuityConfig
) -> list[Checkpoint]:
    """The project's checkpoints another session may recover, best first: the same person's (or
    anyone's, with ``crossPersonRecovery``; a side naming no person matches), none of another
    branch, the same branch before a branch unknown, newest first within each."""
    if origin is None:
        return checkpoints
    mine = [
        c
        for c in checkpoints
        if (config.cross_person_recovery or not (c.user and origin.user) or c.user == origin.user)
        and not (c.branch and origin.branch and c.branch != origin.branch)
    ]
    # Stable: a session's checkpoints keep their order, so ``pick`` still finds the passive one.
    return sorted(mine, key=lambda c: 0 if origin.branch and c.branch == origin.branch else 1)


def _cleared(
    checkpoints: list[Checkpoint],
    start_source: str | None,
    harness: str | None,
    now: datetime,
    origin: SessionOrigin | None = None,
) -> Checkpoint | None:
    """After /clear: the newest ``clear`` checkpoint of the same harness on the same machine,
    written moments ago (a /clear on another machine of the project is another person's, or
    another window's)."""
    if (start_source or "").lower() not in CLEAR_SOURCES:
        return None
    machine = origin.machine_id if origin is not None else None
    return next(
        (
            c
            for c in checkpoints
            if c.trigger is CheckpointTrigger.CLEAR
            and (harness is None or c.harness == harness)
            and (machine is None or c.machine_id is None or c.machine_id == machine)
            and now - c.created_at <= CLEAR_LINK_WINDOW
        ),
        None,
    )


def describe_decision(entry: LedgerEntry, now: datetime) -> str:
    who = f"session {entry.session_key}, {format_duration(now - entry.created_at)} ago"
    reason = f" — {entry.rationale}" if entry.rationale else ""
    return f"- {entry.decision}{reason} ({who})"


_ORIGINS = {
    RecoverySource.SAME_SESSION: "this session",
    RecoverySource.PREVIOUS_SESSION: "session {key} (named as the previous session)",
    RecoverySource.FORKED_SESSION: "session {key} (the session this one was forked from)",
    RecoverySource.CLEARED_SESSION: "session {key} (the session you just cleared)",
    RecoverySource.SAME_PROJECT: "session {key} (an earlier one here: check it still applies)",
}


PROVENANCE_CHARS = 200
# A UUID session key is shown by its first 8 characters; a key a person reads (``laptop-session``) whole.
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.IGNORECASE)

HARNESS_NAMES = {
    "claude-code": "Claude Code",
    "codex": "Codex",
    "gemini": "Gemini CLI",
    "opencode": "OpenCode",
    "openclaw": "OpenClaw",
}


def where_from(checkpoint: Checkpoint) -> str:
    """ "from ana-laptop, branch `fix/refunds`, Claude Code": where another session's work was done
    (what its client said; parts it did not say are left out)."""
    parts = []
    if checkpoint.machine_name:
        parts.append(f"from {checkpoint.machine_name}")
    if checkpoint.user:
        parts.append(f"by {checkpoint.user}")
    if checkpoint.branch:
        parts.append(f"branch `{checkpoint.branch}`")
    parts.append(HARNESS_NAMES.get(checkpoint.harness, checkpoint.harness))
    return ", ".join(parts)


def render_recovery(
    recovery: Recovery, now: datetime, budget: int | None = None, beside_summary: bool = False
) -> tuple[str, bool]:
    """(block, cut): the recovery block, at most ``budget`` characters when given; ``beside_summary``:
    the agent holds the harness's compaction summary of this session (the compaction-loss check)."""
    latest = recovery.checkpoint
    parts = [f"{RECOVERY_HEADING}\n{provenance_line(recovery, now)}"]
    if recovery.changed_decisions:
        # The ledger is the authority: put what changed first, where a cut cannot reach it.
        parts.append(
            FORK_HEADING
            + "\n_Decided by other sessions after this checkpoint; they override it:_\n"
            + "\n".join(describe_decision(d, now) for d in reversed(recovery.changed_decisions))
        )
    head = "\n\n".join(parts)
    digest = latest.session_digest
    if digest is not None and not digest.empty:
        roots = [r for r in (latest.project, latest.project_normalized) if r]
        return render_digest(
            digest, head, budget if budget is not None else UNBOUNDED, roots, beside_summary=beside_summary
        )
    text = "\n\n".join([head, *(checkpoint.digest for checkpoint in recovery.checkpoints)])
    if budget is not None and len(text) > budget:
        return fit(text, budget), True
    return text, False


def provenance_line(recovery: Recovery, now: datetime) -> str:
    """One line: which session, which checkpoint, how old, from which machine and harness."""
    latest = recovery.checkpoint
    key = latest.session_key[:8] if _UUID.match(latest.session_key) else latest.session_key
    origin = _ORIGINS[recovery.source].format(key=key)
    digest = latest.session_digest
    count = digest.prompts if digest and digest.prompts else latest.prompt_count
    if digest is not None and digest.last_instruction is not None:  # typed mid-turn: no hook counted it
        count = max(count, digest.last_instruction.prompt or 0)
    prompts = f"; {count} prompt{'' if count == 1 else 's'}" if count else ""
    trigger = latest.trigger.value.replace("_", "-")
    age = format_duration(now - latest.created_at)
    which = f"{trigger} checkpoint {latest.sequence}, {age} old"
    text = f"Recovered from {origin}: {which}; {where_from(latest)}{prompts}."
    return f"_{clip(text, PROVENANCE_CHARS - 2)}_"


def recovery_section(
    recovery: Recovery | None,
    config: ContinuityConfig,
    now: datetime,
    limit: int | None = None,
    ledger: Section | None = None,
    beside_summary: bool = False,
) -> Section | None:
    """The recovery block inside its reservation (``recoveryBudgetChars``, or less under a small cap);
    with the ledger line beside it, the two together stay within the briefing's size."""
    if recovery is None:
        return None
    # Under the harness's cap, the ledger line keeps its room next to the block.
    cap = (limit - LEDGER_LINE_CHARS - 2) if limit else config.recovery_budget_chars
    beside = len(ledger.text) + 2 if ledger is not None else 0
    budget = min(config.recovery_budget_chars, max(cap, LEDGER_LINE_CHARS), BRIEFING_CHARS - beside)
    own = recovery.source is RecoverySource.SAME_SESSION  # another session's summary is not the agent's
    text, cut = render_recovery(recovery, now, budget, beside_summary=beside_summary and own)
    return Section(text=text, reserved_chars=budget, cut=cut, name="recovery")


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
    return Section(text=fit(text, LEDGER_LINE_CHARS), name="ledger")
