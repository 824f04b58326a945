"""Lineage: which session a session continued, which parent a sub-agent inherited from, and how
each link was found, read from the injections the session starts stored (``recovery/start.py``
records the recovery's source and the parent's, as ``recovery/recovery.py`` and ``recovery/inherit.py``
decided them).
"""

from __future__ import annotations

from continuity_core.hooks.ports import SessionLinks
from continuity_core.kernel.names import SUBAGENT_KEY_PART
from continuity_core.models.injections import InjectionRecord, LineageLink
from continuity_core.models.state import SessionState
from continuity_core.recovery.inherit import ParentSource
from continuity_core.recovery.recovery import RecoverySource

SUBAGENT = "subagent"
CONTINUED = "continued"
SUBAGENT_START = "subagent_start"

# How a start found the session it continues (RecoverySource), in the words the dashboard shows.
CONTINUATION_FOUND_BY = {
    RecoverySource.PREVIOUS_SESSION.value: "explicit key (the previous session the client named)",
    RecoverySource.FORKED_SESSION.value: "explicit key (the session a fork started from)",
    RecoverySource.CLEARED_SESSION.value: "/clear: this harness's session of the project cleared just before",
    RecoverySource.SAME_PROJECT.value: "recency guess: the project's latest session",
    "handoff": "hand-off: the session handed its work over (continuity handoff)",
}
GUESSES = frozenset({RecoverySource.SAME_PROJECT.value, ParentSource.CLAUDE_CODE_RECENT.value})


def links_of(records: list[InjectionRecord]) -> list[LineageLink]:
    """The links a session's own injections name: where it came from, and the sub-agents its
    harness started under its own session id (Claude Code's and Codex's SubagentStart)."""
    links: list[LineageLink] = []
    for record in records:
        if record.event == SUBAGENT_START and record.subagent_id:
            links.append(
                LineageLink(
                    kind=SUBAGENT,
                    from_session=record.parent_session_key or record.session_key,
                    to_session=f"{record.session_key}{SUBAGENT_KEY_PART}{record.subagent_id}",
                    found_by=record.parent_found_by or "the harness's sub-agent id under this session",
                    guess=record.parent_found_by in GUESSES,
                    at=record.at,
                )
            )
            continue
        if record.parent_session_key and record.parent_session_key != record.session_key:
            links.append(
                LineageLink(
                    kind=SUBAGENT,
                    from_session=record.parent_session_key,
                    to_session=record.session_key,
                    found_by=record.parent_found_by or "",
                    guess=record.parent_found_by in GUESSES,
                    at=record.at,
                )
            )
        recovered = record.recovered_session_key
        if recovered and recovered != record.session_key and record.recovery_source in CONTINUATION_FOUND_BY:
            links.append(
                LineageLink(
                    kind=CONTINUED,
                    from_session=recovered,
                    to_session=record.session_key,
                    found_by=CONTINUATION_FOUND_BY[record.recovery_source],
                    guess=record.recovery_source in GUESSES,
                    at=record.at,
                )
            )
    return links


def session_links(record: InjectionRecord) -> SessionLinks:
    """What the session's state keeps of its start's links (another session only)."""
    links = [link for link in links_of([record]) if link.to_session == record.session_key]
    continued = next((link for link in links if link.kind == CONTINUED), None)
    parent = next((link for link in links if link.kind == SUBAGENT), None)
    return SessionLinks(
        continued_from=continued.from_session if continued else None,
        continued_found_by=continued.found_by if continued else None,
        parent_session_key=parent.from_session if parent else None,
        parent_found_by=parent.found_by if parent else None,
    )


def children(session_key: str, states: list[SessionState]) -> list[LineageLink]:
    """The sessions whose start named ``session_key`` as the one they continued or their parent."""
    links = []
    for state in states:
        if state.continued_from == session_key:
            found_by = state.continued_found_by or ""
            links.append(
                LineageLink(
                    kind=CONTINUED,
                    from_session=session_key,
                    to_session=state.session_key,
                    found_by=found_by,
                    guess=found_by == CONTINUATION_FOUND_BY[RecoverySource.SAME_PROJECT.value],
                    at=state.started_at,
                )
            )
        if state.parent_session_key == session_key and state.session_key != session_key:
            links.append(
                LineageLink(
                    kind=SUBAGENT,
                    from_session=session_key,
                    to_session=state.session_key,
                    found_by=state.parent_found_by or "",
                    guess=state.parent_found_by in GUESSES,
                    at=state.started_at,
                )
            )
    return links


def origins(links: list[LineageLink], session_key: str) -> list[str]:
    """The sessions ``session_key`` came from (its parent, the session it continued)."""
    return [link.from_session for link in links if link.to_session == session_key]
