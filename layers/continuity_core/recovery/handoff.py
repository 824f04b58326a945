"""Hand-off: a session hands its work to the next session of its project, given first and once.

``continuity handoff`` (or the MCP tool ``handoff``) writes a ``handoff`` checkpoint of the session
(its rolling digest, with everything pending merged in) and an open hand-off carrying that digest,
the person's note, the branch, the commit and the paths with uncommitted changes. The next *new*
session of the project (not the one that handed off, not a sub-agent's, not a /clear, fork or
resume that continues a session of its own) that the hand-off is addressed to gets it first in its
session-start block, marked "Hand-off from …", in place of the guessed project recovery; consuming
it is part of the start's one write, so a second start does not get it again.

Who a session is (for ``--to``): the client-set user id (``CONTINUITY_USER``, sent as ``user``),
else the name of the token the hook came with. ``to`` matches that person or the session's
machine name, case-insensitively; a hand-off without ``to`` goes to the next session of anyone
holding a token of the agent.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import TYPE_CHECKING

from continuity_core.checkpoints.passive_digest import format_duration
from continuity_core.kernel.clock import Clock
from continuity_core.models.checkpoint_trigger import CheckpointTrigger
from continuity_core.models.handoff import MAX_OPEN_HANDOFFS, Handoff, HandoffRequest
from continuity_core.recovery.fit import fit
from continuity_core.recovery.ports import HandoffStore
from continuity_core.recovery.recovery_block import render_digest
from continuity_core.redaction import redact

if TYPE_CHECKING:
    from continuity_core.checkpoints.writer import CheckpointWriter

HANDOFF_HEADING = "## Hand-off from"
UNCOMMITTED_SHOWN = 20
SECTION_NAME = "handoff"


class SessionNotFoundError(Exception):
    """The session to hand off is unknown to the service."""


class NoProjectError(Exception):
    """The session has no project: no next session could receive its hand-off."""


class HandoffService:
    """``POST /api/sessions/{session_key}/handoff``."""

    def __init__(self, writer: CheckpointWriter, handoffs: HandoffStore, clock: Clock) -> None:
        self._writer = writer
        self._handoffs = handoffs
        self._clock = clock

    def write(
        self, agent_id: str, session_key: str, request: HandoffRequest, token_name: str | None
    ) -> Handoff:
        result = self._writer.flush(
            agent_id, session_key, CheckpointTrigger.HANDOFF, worth_writing=lambda state: True
        )
        checkpoint = result.checkpoint
        if checkpoint is None:
            raise SessionNotFoundError(f"session {session_key!r} is unknown to the service")
        if not checkpoint.project_normalized:
            raise NoProjectError(f"session {session_key!r} has no project to hand off to")
        uncommitted = [redact(path) for path in request.uncommitted]
        handoff = Handoff(
            id=str(uuid.uuid4()),
            session_key=session_key,
            harness=checkpoint.harness,
            project=checkpoint.project,
            project_normalized=checkpoint.project_normalized,
            created_at=checkpoint.created_at,
            by=_clean(request.user) or _clean(token_name),
            machine=_clean(request.machine),
            to=_clean(request.to),
            note=redact(request.note.strip()) if request.note and request.note.strip() else None,
            branch=redact(request.branch) if request.branch else None,
            commit=request.commit.lower() if request.commit else None,
            uncommitted=uncommitted,
            uncommitted_total=max(len(uncommitted), request.uncommitted_total or 0),
            checkpoint_id=checkpoint.id,
            digest=checkpoint.digest,
            session_digest=checkpoint.session_digest,
        )
        opened = self._handoffs.open_for_project(agent_id, handoff.project_normalized, MAX_OPEN_HANDOFFS + 1)
        self._handoffs.put(agent_id, handoff, to_close(opened, handoff))
        return handoff

    def open_for_project(self, agent_id: str, project_normalized: str) -> list[Handoff]:
        return self._handoffs.open_for_project(agent_id, project_normalized, MAX_OPEN_HANDOFFS + 1)


def to_close(opened: list[Handoff], new: Handoff) -> list[Handoff]:
    """The open hand-offs a new one closes: the same session's earlier one (it is replaced), and the
    oldest beyond MAX_OPEN_HANDOFFS with the new one counted."""
    same = [h for h in opened if h.session_key == new.session_key]
    rest = [h for h in opened if h.session_key != new.session_key]  # newest first
    return same + rest[MAX_OPEN_HANDOFFS - 1 :]


def _clean(name: str | None) -> str | None:
    return name.strip() or None if name else None


def addressed_to(handoff: Handoff, person: str | None, machine: str | None) -> bool:
    if handoff.to is None:
        return True
    wanted = handoff.to.casefold()
    return any(name is not None and name.strip().casefold() == wanted for name in (person, machine))


def choose_handoff(
    handoffs: list[Handoff], session_key: str | None, person: str | None, machine: str | None = None
) -> Handoff | None:
    """The newest open hand-off this session may receive: not its own, addressed to it. One
    addressed to it by name wins over one for anyone."""
    mine = [
        h for h in handoffs if h.open and h.session_key != session_key and addressed_to(h, person, machine)
    ]
    named = [h for h in mine if h.to is not None]
    chosen = named or mine
    return chosen[0] if chosen else None


def handoff_head(handoff: Handoff, now: datetime) -> str:
    who = handoff.by or f"session {handoff.session_key}"
    note = " ".join((handoff.note or "").split()) or "(no note)"
    where = ", ".join(x for x in (handoff.harness, handoff.machine and f"on {handoff.machine}") if x)
    lines = [
        f"{HANDOFF_HEADING} {who}: {note}",
        f"_Session `{handoff.session_key}` ({where}) handed its work to "
        f"{'you (' + handoff.to + ')' if handoff.to else 'the next session of this project'} "
        f"{format_duration(now - handoff.created_at)} ago "
        f"({handoff.created_at.isoformat(timespec='seconds')}); it is given once, to this session: "
        "continue from here._",
    ]
    if handoff.branch or handoff.commit:
        branch = f"branch `{handoff.branch}`" if handoff.branch else "a detached head"
        commit = f" at commit `{handoff.commit[:12]}`" if handoff.commit else ""
        lines.append(f"- Git: {branch}{commit}")
    if handoff.uncommitted_total:
        shown = ", ".join(f"`{p}`" for p in handoff.uncommitted[:UNCOMMITTED_SHOWN])
        more = handoff.uncommitted_total - min(len(handoff.uncommitted), UNCOMMITTED_SHOWN)
        extra = f" and {more} more" if more > 0 else ""
        lines.append(f"- Uncommitted changes ({handoff.uncommitted_total} paths): {shown}{extra}")
    return "\n".join(lines)


def render_handoff(handoff: Handoff, now: datetime, budget: int) -> tuple[str, bool]:
    """(block, cut): the hand-off's head (never cut while the budget holds it), then the session's
    rolling digest as the recovery block renders it."""
    head = handoff_head(handoff, now)
    digest = handoff.session_digest
    if digest is not None and not digest.empty:
        roots = [r for r in (handoff.project, handoff.project_normalized) if r]
        return render_digest(digest, head, budget, roots)
    text = "\n\n".join(part for part in (head, handoff.digest) if part)
    return (fit(text, budget), True) if len(text) > budget else (text, False)
