"""Tiered recovery (Loa): small by default, more on demand, built from the rolling digest's facts.

Level 1 (≤ 400 chars): the short form of the recovery block: the last instruction, the constraints,
the newest decisions and open questions. Level 2 (≤ 2,000): the same with decisions, findings and
files in play listed with their provenance, the project ledger's decisions (agent digests, labelled
so), and search hits for a query. Level 3: the latest session's whole rolling digest (every fact the
recovery block had no room for), every checkpoint of that session and the whole ledger. A checkpoint
without a rolling digest (written before it existed) falls back to its summary and next steps.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime

from continuity_core.checkpoints.passive_digest import format_duration
from continuity_core.checkpoints.ports import CheckpointStore, LedgerStore
from continuity_core.extraction.sticky import ASKED
from continuity_core.kernel.clock import Clock
from continuity_core.models.checkpoint import Checkpoint
from continuity_core.models.digest import LedgerEntry
from continuity_core.models.session_digest import Fact, FactKind, SessionDigest
from continuity_core.recovery.fit import fit
from continuity_core.recovery.recovery import RECENT, describe_decision, pick
from continuity_core.recovery.recovery_block import fact_line, render_digest, shown_file
from continuity_core.sessions.ports import TranscriptSearch

LEVEL_LIMITS = {1: 400, 2: 2000, 3: 200_000}
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
            parts.append(render_digest(latest.session_digest, header, LEVEL_LIMITS[3])[0])
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


def open_questions(digest: SessionDigest) -> list[Fact]:
    """Still open: not closed, and not a question asked and answered in the same turn."""
    return [
        f
        for f in digest.of(FactKind.QUESTION)
        if not (f.detail == ASKED and f.answer and f.answer_prompt == f.prompt)
    ]


def ledger_only(decisions: list[LedgerEntry], digest: SessionDigest | None) -> list[LedgerEntry]:
    """The ledger's decisions the rolling digest does not already hold (other sessions' mostly)."""
    held = {" ".join(f.text.lower().split()) for f in digest.facts} if digest else set()
    return [d for d in decisions if " ".join(d.decision.lower().split()) not in held]


def level_one(
    chosen: list[Checkpoint], digest: SessionDigest | None, decisions: list[LedgerEntry], now: datetime
) -> str:
    """One line each: where it comes from, the last instruction, the constraints, the newest
    decisions, the open questions and the next steps; each line gets a fair share of
    ``LEVEL_LIMITS[1]``."""
    head = headline(chosen[0], now) if chosen else "Latest: no checkpoint yet, only the project's ledger."
    rows: list[tuple[str, list[str]]] = []
    if digest is not None:
        if digest.last_instruction is not None:
            rows.append(("Last instruction: ", [clip(digest.last_instruction.text, INSTRUCTION_CHARS_2)]))
        rows.append(("Constraints: ", [f.text for f in digest.of(FactKind.CONSTRAINT)]))
        rows.append(
            (
                "Decisions: ",
                [f.text for f in newest_first(digest.of(FactKind.DECISION))]
                + [d.decision for d in ledger_only(decisions, digest)],
            )
        )
        rows.append(("Open: ", [f.text for f in newest_first(open_questions(digest))]))
        rows.append(("Next: ", [f.text for f in newest_first(digest.of(FactKind.NEXT_STEP))]))
    else:
        latest = chosen[0] if chosen else None
        state = next((c.summary for c in chosen if c.summary), None)
        if state:
            rows.append(("State: ", [state]))
        if latest is not None and latest.next_steps:
            rows.append(("Next: ", list(latest.next_steps)))
        rows.append(("Decisions: ", [d.decision for d in decisions]))
    rows = [(label, items) for label, items in rows if items]
    room = LEVEL_LIMITS[1] - len(head) - len(rows)
    lines = [head]
    for (label, items), share in zip(
        rows, _fair([len(t) + len(" | ".join(i)) for t, i in rows], room), strict=True
    ):
        lines.append(label + _items_within(items, share - len(label)))
    return "\n".join(lines)


def _fair(needs: list[int], room: int) -> list[int]:
    """Water-filling: each gets what it needs up to an equal share of what is left."""
    shares = [0] * len(needs)
    waiting = [i for i, need in enumerate(needs) if need]
    while waiting and room > 0:
        share = room // len(waiting)
        small = [i for i in waiting if needs[i] <= share]
        if not small:
            for i in waiting:
                shares[i] = share
            break
        for i in small:
            shares[i] = needs[i]
            room -= needs[i]
            waiting.remove(i)
    return shares


def _items_within(items: list[str], room: int) -> str:
    """Whole items, " | "-separated, while they fit (the count of the rest said); the first one is
    cut with ``[truncated]`` when even it does not fit."""
    shown: list[str] = []
    used = 0
    for index, item in enumerate(items):
        flat = " ".join(item.split())
        rest = len(items) - index - 1
        more = len(f" (+{rest} more)") if rest else 0
        if used + len(flat) + (3 if shown else 0) + more <= room:
            shown.append(flat)
            used += len(flat) + (3 if len(shown) > 1 else 0)
            continue
        if not shown:
            shown.append(clip(flat, max(20, room - len(f" (+{len(items) - 1} more)"))))
        left = len(items) - len(shown)
        return " | ".join(shown) + (f" (+{left} more)" if left else "")
    return " | ".join(shown)


def level_two(
    chosen: list[Checkpoint],
    digest: SessionDigest | None,
    decisions: list[LedgerEntry],
    now: datetime,
    query: str | None,
    hits: list[str] | None,
) -> str:
    """Sections of whole lines with their provenance, filled in turns (a line of each section per
    round, in priority order) so that no kind crowds out the others within ``LEVEL_LIMITS[2]``."""
    head = headline(chosen[0], now) if chosen else "Latest: no checkpoint yet, only the project's ledger."
    sections: list[tuple[str, list[str]]] = []
    if hits is not None and query:
        sections.append((f"### Search: {query.strip()}", hits or ["(no hits)"]))
    if digest is not None:
        roots = [r for r in (chosen[0].project_normalized, chosen[0].project) if r] if chosen else []
        instruction = digest.last_instruction
        if instruction is not None:
            where = f" (prompt {instruction.prompt})" if instruction.prompt else ""
            sections.append(
                (f"### Last instruction{where}", ["> " + clip(instruction.text, INSTRUCTION_CHARS_2)])
            )
        by_kind = [
            ("### Constraints (still in force)", digest.of(FactKind.CONSTRAINT)),
            (DIGEST_DECISIONS, newest_first(digest.of(FactKind.DECISION))),
            ("### Open questions", newest_first(open_questions(digest))),
            ("### Findings", newest_first(digest.of(FactKind.FINDING))),
            (
                "### Files in play",
                newest_first([f for f in digest.of(FactKind.FILE) if shown_file(f, roots)]),
            ),
        ]
        sections += [(title, [fact_line(f, roots) for f in facts]) for title, facts in by_kind]
        if digest.summary is not None:
            sections.append(("### The agent's own summary", [clip(digest.summary.text, 300)]))
    elif chosen:
        state = next((c.summary for c in chosen if c.summary), None)
        sections.append(("### State", [state] if state else []))
        sections.append(("### Next steps", [f"- {step}" for step in chosen[0].next_steps]))
    others = ledger_only(decisions, digest)
    sections.append((LEDGER_DECISIONS, [describe_decision(d, now) for d in others]))
    return _in_turns(head, [(t, lines) for t, lines in sections if lines], LEVEL_LIMITS[2])


def _in_turns(head: str, sections: list[tuple[str, list[str]]], limit: int) -> str:
    room = limit - len(head) - len(MORE_LINE) - 4
    taken = [0] * len(sections)
    progressed = True
    while progressed:
        progressed = False
        for index, (title, lines) in enumerate(sections):
            if taken[index] >= len(lines):
                continue
            cost = len(lines[taken[index]]) + 1 + (len(title) + 2 if not taken[index] else 0)
            if cost <= room:
                room -= cost
                taken[index] += 1
                progressed = True
    parts = [head]
    for (title, lines), count in zip(sections, taken, strict=True):
        if count:
            more = len(lines) - count
            parts.append("\n".join([title, *lines[:count]]) + (f"\n- … {more} more" if more else ""))
    if any(count < len(lines) for (_, lines), count in zip(sections, taken, strict=True)):
        parts.append(MORE_LINE)
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
