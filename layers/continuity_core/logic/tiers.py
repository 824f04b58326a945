"""Tiered recovery (Loa): small by default, more on demand.

Level 1 (≤ 400 chars): the latest checkpoint's reasoning state and next steps, and the last three
decisions. Level 2 (≤ 2,000): level 1, recent decisions with their rationale, and search hits for a
query. Level 3: the latest session's whole rolling digest (every fact the recovery block had no room
for), every checkpoint of that session and the whole ledger.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime

from continuity_core.logic.digest import format_duration
from continuity_core.logic.injection import fit
from continuity_core.logic.recovery import RECENT, describe_decision, pick
from continuity_core.logic.recovery_block import render_digest
from continuity_core.models.checkpoint import Checkpoint
from continuity_core.models.digest import LedgerEntry
from continuity_core.ports import CheckpointStore, Clock, LedgerStore, TranscriptSearch

LEVEL_LIMITS = {1: 400, 2: 2000, 3: 200_000}
RECENT_DECISIONS = 10
SEARCH_HITS = 5
SNIPPET_CHARS = 240
# Explicit recovery has no time window: the beginning of Continuity's time is old enough.
BEGINNING = datetime(2000, 1, 1, tzinfo=UTC)
_TERM = re.compile(r"\w+")


@dataclass(frozen=True)
class TieredAnswer:
    level: int
    text: str
    session_key: str | None


class NothingToRecoverError(LookupError):
    """Neither the session nor the project has anything stored."""


class TieredRecovery:
    def __init__(
        self,
        checkpoints: CheckpointStore,
        ledger: LedgerStore,
        clock: Clock,
        search: TranscriptSearch | None = None,
    ) -> None:
        self._checkpoints = checkpoints
        self._ledger = ledger
        self._clock = clock
        self._search = search

    def recover(
        self,
        agent_id: str,
        level: int,
        project_normalized: str | None,
        session_key: str | None = None,
        query: str | None = None,
    ) -> TieredAnswer:
        now = self._clock()
        recent: list[Checkpoint] = []
        if session_key:
            recent = self._checkpoints.recent_for_session(agent_id, session_key, RECENT)
        if not recent and project_normalized:
            recent = self._checkpoints.project_snapshot(
                agent_id, project_normalized, BEGINNING, RECENT
            ).checkpoints
        chosen = pick(recent)
        project = project_normalized or (chosen[0].project_normalized if chosen else None)
        decisions = self._decisions(agent_id, project, RECENT_DECISIONS if level < 3 else None)
        if not chosen and not decisions:
            raise NothingToRecoverError("nothing stored for this session or project yet")
        parts = [level_one(chosen, decisions, now)]
        if level >= 2:
            parts.append(self._level_two(agent_id, decisions, project, session_key, query, now))
        if level >= 3 and chosen:
            parts.append(self._level_three(agent_id, chosen[0], decisions, now))
        text = fit("\n\n".join(p for p in parts if p), LEVEL_LIMITS[level])
        return TieredAnswer(level=level, text=text, session_key=chosen[0].session_key if chosen else None)

    def _decisions(self, agent_id: str, project: str | None, limit: int | None) -> list[LedgerEntry]:
        """Newest first; ``None`` means the whole ledger."""
        if not project:
            return []
        found: list[LedgerEntry] = []
        token: str | None = None
        while True:
            page = self._ledger.page(agent_id, project, limit=min(limit or 100, 100), token=token)
            found += page.entries
            token = page.next_token
            if not token or (limit is not None and len(found) >= limit):
                return found[:limit] if limit is not None else found

    def _level_two(
        self,
        agent_id: str,
        decisions: list[LedgerEntry],
        project: str | None,
        session_key: str | None,
        query: str | None,
        now: datetime,
    ) -> str:
        parts = []
        if decisions:
            parts.append("### Recent decisions\n" + "\n".join(describe_decision(d, now) for d in decisions))
        if query and query.strip():
            hits = self._hits(agent_id, query, project, session_key)
            parts.append(f"### Search: {query.strip()}\n" + ("\n".join(hits) if hits else "(no hits)"))
        return "\n\n".join(parts)

    def _hits(self, agent_id: str, query: str, project: str | None, session_key: str | None) -> list[str]:
        hits: list[str] = []
        if self._search is not None:
            for hit in self._search.search(agent_id, query, SEARCH_HITS, project_normalized=project):
                hits.append(f"- [{hit.session_key}] {hit.snippet}")
        if len(hits) < SEARCH_HITS and project:
            checkpoints = self._checkpoints.list_for_project(agent_id, project, limit=20)
            hits += checkpoint_hits(checkpoints, query, SEARCH_HITS - len(hits))
        return hits

    def _level_three(
        self, agent_id: str, latest: Checkpoint, decisions: list[LedgerEntry], now: datetime
    ) -> str:
        session_key = latest.session_key
        history = self._checkpoints.list_for_session(agent_id, session_key, limit=500)
        parts = []
        if latest.session_digest is not None and not latest.session_digest.empty:
            header = f"### The whole session digest of {session_key}"
            parts.append(render_digest(latest.session_digest, header, LEVEL_LIMITS[3])[0])
        parts.append(f"### Every checkpoint of session {session_key}")
        parts += [
            f"#### {c.trigger.value} checkpoint {c.sequence}, {c.created_at.isoformat(timespec='seconds')}\n"
            + c.digest
            for c in history
        ]
        parts.append(
            "### The whole ledger\n"
            + ("\n".join(describe_decision(d, now) for d in reversed(decisions)) or "(empty)")
        )
        return "\n\n".join(parts)


def level_one(chosen: list[Checkpoint], decisions: list[LedgerEntry], now: datetime) -> str:
    lines = []
    if chosen:
        latest = chosen[0]
        lines.append(
            f"Latest: {latest.trigger.value} checkpoint of session {latest.session_key}, "
            f"{format_duration(now - latest.created_at)} ago."
        )
        state = latest.summary or next((c.summary for c in chosen[1:] if c.summary), None)
        if state:
            lines.append(f"State: {state}")
        if latest.next_steps:
            lines.append("Next: " + "; ".join(latest.next_steps))
    if decisions:
        lines.append("Decisions: " + " | ".join(d.decision for d in decisions[:3]))
    return "\n".join(lines)


def checkpoint_hits(checkpoints: list[Checkpoint], query: str, limit: int) -> list[str]:
    """Checkpoints whose digest holds the query's terms, best first, each with a snippet."""
    terms = [t.lower() for t in _TERM.findall(query) if len(t) > 1]
    if not terms:
        return []
    scored = []
    for checkpoint in checkpoints:
        text = checkpoint.digest.lower()
        score = sum(text.count(term) for term in terms)
        if score:
            scored.append((score, checkpoint))
    scored.sort(key=lambda pair: (-pair[0], -pair[1].created_at.timestamp()))
    return [f"- [{c.session_key}] {around(c.digest, terms)}" for _, c in scored[:limit]]


def around(text: str, terms: list[str], width: int = SNIPPET_CHARS) -> str:
    lowered = text.lower()
    first = min((i for i in (lowered.find(t) for t in terms) if i >= 0), default=0)
    start = max(0, first - width // 3)
    piece = " ".join(text[start : start + width].split())
    return ("…" if start else "") + piece + ("…" if start + width < len(text) else "")
