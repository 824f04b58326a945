"""Tiered recovery (Loa): small by default, more on demand, built from the rolling digest's facts.

Level 1: the recovery block's first three sections (where things stand, next, rules in force), whole
lines. Level 2: the recovery block itself (the same briefing a session start injects), then search
hits for a query and the project ledger's decisions of other sessions. Level 3: the latest session's
briefing without the block's size cap, every checkpoint of that session and the whole ledger. A checkpoint
without a rolling digest (written before it existed) falls back to its summary and next steps.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime

from continuity_core.checkpoints.passive_digest import format_duration
from continuity_core.checkpoints.ports import CheckpointStore, LedgerStore
from continuity_core.kernel.clock import Clock
from continuity_core.models.checkpoint import Checkpoint
from continuity_core.models.digest import LedgerEntry
from continuity_core.models.session_digest import Fact, SessionDigest
from continuity_core.recovery.fit import fit
from continuity_core.recovery.recovery import RECENT, describe_decision, pick
from continuity_core.recovery.recovery_block import BRIEFING_CHARS, FIRST_THREE, render_digest
from continuity_core.sessions.ports import TranscriptSearch

# Level 1: the briefing's first three sections; 2: the whole briefing, search hits and the ledger.
LEVEL_LIMITS = {1: 1500, 2: 6000, 3: 200_000}
RECENT_DECISIONS = 10
SEARCH_HITS = 5
SNIPPET_CHARS = 240
# Explicit recovery has no time window: the beginning of Continuity's time is old enough.
BEGINNING = datetime(2000, 1, 1, tzinfo=UTC)
_TERM = re.compile(r"\w+")
TRUNCATED = " [truncated]"
INSTRUCTION_CHARS_2 = 500  # the last instruction's share of level 2
MORE_LINE = "_More: `continuity recover 3` (MCP `recover`, level 3) has the whole digest._"
DIGEST_DECISIONS = (
    "### Decisions (the session's rolling digest: prompts, the agent, its digests; newest first)"
)
LEDGER_DECISIONS = "### The project's decision ledger (recorded by agents' session_digest)"


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
        digest = rolling_digest(chosen)
        hits: list[str] | None = None
        if level >= 2 and query and query.strip():
            hits = self._hits(agent_id, query, project, session_key)
        if level == 1:
            text = level_one(chosen, digest, decisions, now)
        elif level == 2:
            text = level_two(chosen, digest, decisions, now, query, hits)
        else:
            parts = [headline(chosen[0], now) if chosen else ""]
            if hits is not None and query:
                parts.append(_search_section(query, hits))
            parts.append(self._level_three(agent_id, chosen[0], decisions, now) if chosen else "")
            if not chosen:
                parts.append(_ledger_section(decisions, now))
            text = "\n\n".join(p for p in parts if p)
        text = fit(text, LEVEL_LIMITS[level])
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
            parts.append(render_digest(latest.session_digest, header, LEVEL_LIMITS[3], whole=True)[0])
        parts.append(f"### Every checkpoint of session {session_key}")
        parts += [
            f"#### {c.trigger.value} checkpoint {c.sequence}, {c.created_at.isoformat(timespec='seconds')}\n"
            + c.digest
            for c in history
        ]
        parts.append(_ledger_section(decisions, now))
        return "\n\n".join(parts)


def rolling_digest(chosen: list[Checkpoint]) -> SessionDigest | None:
    """The newest rolling digest among the picked checkpoints (an agent's digest carries one too)."""
    return next(
        (c.session_digest for c in chosen if c.session_digest is not None and not c.session_digest.empty),
        None,
    )


def headline(latest: Checkpoint, now: datetime) -> str:
    return (
        f"Latest: {latest.trigger.value} checkpoint of session {latest.session_key}, "
        f"{format_duration(now - latest.created_at)} ago."
    )


def clip(text: str, room: int) -> str:
    """``text`` on one line, cut to ``room`` characters with ``[truncated]`` when it does not fit
    (a text already cut when it was stored, ending in "…", says so too)."""
    flat = " ".join(text.split())
    if flat.endswith("…"):
        flat = flat[:-1].rstrip() + TRUNCATED
    if len(flat) <= room:
        return flat
    return flat[: max(0, room - len(TRUNCATED))].rstrip() + TRUNCATED


def newest_first(facts: list[Fact]) -> list[Fact]:
    return sorted(facts, key=lambda f: (f.last_prompt or f.prompt or 0, f.at), reverse=True)


def ledger_only(decisions: list[LedgerEntry], digest: SessionDigest | None) -> list[LedgerEntry]:
    """The ledger's decisions the rolling digest does not already hold (other sessions' mostly)."""
    held = {" ".join(f.text.lower().split()) for f in digest.facts} if digest else set()
    return [d for d in decisions if " ".join(d.decision.lower().split()) not in held]


def level_one(
    chosen: list[Checkpoint], digest: SessionDigest | None, decisions: list[LedgerEntry], now: datetime
) -> str:
    """The briefing's first three sections (where things stand, next, rules in force), whole lines
    within ``LEVEL_LIMITS[1]``; without a rolling digest, the checkpoint's state and the ledger."""
    head = headline(chosen[0], now) if chosen else "Latest: no checkpoint yet, only the project's ledger."
    if digest is not None:
        roots = _roots(chosen)
        return render_digest(digest, head, LEVEL_LIMITS[1], roots, titles=FIRST_THREE)[0]
    lines = [head]
    state = next((c.summary for c in chosen if c.summary), None)
    if state:
        lines.append(f"State: {clip(state, 300)}")
    if chosen and chosen[0].next_steps:
        lines += [f"- Next: {clip(step, 200)}" for step in chosen[0].next_steps]
    lines += [f"- Decided: {clip(d.decision, 200)}" for d in decisions[:5]]
    return "\n".join(lines)


def _roots(chosen: list[Checkpoint]) -> list[str]:
    return [r for r in (chosen[0].project_normalized, chosen[0].project) if r] if chosen else []


def level_two(
    chosen: list[Checkpoint],
    digest: SessionDigest | None,
    decisions: list[LedgerEntry],
    now: datetime,
    query: str | None,
    hits: list[str] | None,
) -> str:
    """The briefing (the recovery block's layout), then the search hits for ``query`` and the
    ledger's decisions other sessions recorded, within ``LEVEL_LIMITS[2]``."""
    head = headline(chosen[0], now) if chosen else "Latest: no checkpoint yet, only the project's ledger."
    parts = [head]
    if digest is not None:
        parts = [render_digest(digest, head, BRIEFING_CHARS, _roots(chosen))[0]]
    elif chosen:
        state = next((c.summary for c in chosen if c.summary), None)
        if state:
            parts.append(f"### State\n{clip(state, 600)}")
        if chosen[0].next_steps:
            parts.append(
                "### Next steps\n" + "\n".join(f"- {clip(step, 200)}" for step in chosen[0].next_steps)
            )
    if hits is not None and query:
        parts.append(_search_section(query, hits))
    others = ledger_only(decisions, digest)
    if others:
        parts.append(f"{LEDGER_DECISIONS}\n" + "\n".join(describe_decision(d, now) for d in others))
    return "\n\n".join(parts)


def _search_section(query: str, hits: list[str]) -> str:
    return f"### Search: {query.strip()}\n" + ("\n".join(hits) if hits else "(no hits)")


def _ledger_section(decisions: list[LedgerEntry], now: datetime) -> str:
    return f"{LEDGER_DECISIONS}\n" + (
        "\n".join(describe_decision(d, now) for d in reversed(decisions)) or "(empty)"
    )


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
