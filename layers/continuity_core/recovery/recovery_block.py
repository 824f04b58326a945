"""The recovery block: the briefing an engineer would leave a colleague, from a rolling session digest.

One layout for every source (startup, resume, clear, compact, a new session of the project, a
hand-off, ``recover 2``, the MCP ``recover`` tool, the dashboard's injection view): under the
caller's heading and provenance line, the briefing's sections (``recovery/briefing.py``: Where things
stand, Next, Rules in force, Decisions, Open, Checks, Files, No longer current), each only when it
has something, their lines drawn by ``recovery/briefing_lines.py``.

After a compaction whose summary the digest took in, the block is the compaction-loss check: the
facts the summary already holds are left out and one line says so.

Every line is short (``briefing_lines.LINE_CHARS``; the quoted instruction aside) and says something
once. The budget is shared round-robin, a line per section at a time in the order above, so every
section keeps its best lines; what does not fit is counted in a closing line, never cut silently.
"""

from __future__ import annotations

from continuity_core.models.session_digest import FactStatus, SessionDigest
from continuity_core.recovery.briefing import briefing
from continuity_core.recovery.briefing_lines import ORDER, Section
from continuity_core.recovery.fit import fit

BRIEFING_CHARS = 4000  # the whole block, on every source
AFTER_SUMMARY_CHARS = 2500  # beside a compaction summary the agent already reads
MORE = "`continuity recover 3` (MCP `recover`, level 3) has the rest"
FIRST_THREE = ORDER[:3]  # level 1 of tiered recovery


def render_digest(
    digest: SessionDigest,
    header: str,
    budget: int,
    roots: list[str] | None = None,
    titles: tuple[str, ...] = ORDER,
    whole: bool = False,
    beside_summary: bool = False,
) -> tuple[str, bool]:
    """(block, cut): the briefing under ``header``, at most ``budget`` characters and, unless
    ``whole`` (level 3 of tiered recovery), never more than ``BRIEFING_CHARS`` (``AFTER_SUMMARY_CHARS``
    beside a compaction summary: ``beside_summary``, the agent holds the harness's summary the digest
    took in, so the block leaves out what that summary says)."""
    after_summary = beside_summary and digest.compacted_prompt is not None
    cap = AFTER_SUMMARY_CHARS if after_summary else BRIEFING_CHARS
    limit = budget if whole else min(budget, cap)
    sections = [s for s in briefing(digest, roots, after_summary) if s.name in titles and s.lines]
    notes: list[str] = []
    if after_summary:
        held = sum(1 for f in digest.facts if f.in_summary and f.status is FactStatus.ACTIVE)
        notes.append(
            f"_Compaction-loss check: the harness's summary (prompt {digest.compacted_prompt}) already "
            f"holds {held} of this session's facts; below is what it dropped._"
        )
    head = "\n\n".join([header, *notes])
    room = limit - len(head) - 2 - len(_closing({s.name.lower(): 99 for s in sections}, digest)) - 2
    chosen = _share(sections, room)
    parts = [head]
    omitted: dict[str, int] = {}
    for section in sections:
        picked = chosen.get(section.name, [])
        if len(picked) < len(section.lines):
            omitted[section.name.lower()] = len(section.lines) - len(picked)
        if picked:
            parts.append("\n".join([section.heading, *section.shown(picked)]))
    closing = _closing(omitted, digest)
    if closing:
        parts.append(closing)
    text = "\n\n".join(parts)
    if len(text) > limit:  # only when the header alone overflows a very small budget
        return fit(text, limit), True
    return text, bool(omitted)


def _share(sections: list[Section], room: int) -> dict[str, list[str]]:
    """The fixed sections whole; then water-filling by characters: each section gets what it needs
    up to an equal share of what is left (a section of short lines, files, gets more of them), takes
    its best lines that fit, and what it leaves goes to the next."""
    chosen: dict[str, list[str]] = {s.name: [] for s in sections}
    for section in sections:
        if section.fixed:
            need = _need(section, section.lines)
            if need <= room:
                chosen[section.name] = list(section.lines)
                room -= need
    for section in sections:  # the rules in force: what they need, up to their share, first
        if section.first and not section.fixed:
            most = int(room * section.first)
            for text in section.lines[: section.first_lines]:
                cost = len(text) + 1 + (0 if chosen[section.name] else len(section.heading) + 2)
                if cost <= most:
                    chosen[section.name].append(text)
                    most -= cost
                    room -= cost
    waiting = [s for s in sections if not s.fixed and s.lines]
    allowance = {s.name: 0 for s in waiting}
    left = room
    pending = list(waiting)
    while pending and left > 0:
        share = left // len(pending)
        small = [s for s in pending if _need(s, s.lines) <= share]
        if not small:
            for section in pending:
                allowance[section.name] = share
            break
        for section in small:
            allowance[section.name] = _need(section, section.lines)
            left -= allowance[section.name]
            pending.remove(section)
    spare = 0
    for section in waiting:  # in display order; what one leaves, the next may take
        budget = allowance[section.name] + spare
        used = 0
        for text in section.lines:
            cost = len(text) + 1 + (0 if chosen[section.name] else len(section.heading) + 2)
            if text not in chosen[section.name] and used + cost <= budget:
                chosen[section.name].append(text)
                used += cost
        spare = budget - used
    for section in waiting:  # what is left at the end: the best lines that did not fit, in order
        for text in section.lines:
            cost = len(text) + 1 + (0 if chosen[section.name] else len(section.heading) + 2)
            if text not in chosen[section.name] and cost <= spare:
                chosen[section.name].append(text)
                spare -= cost
    return chosen


def _need(section: Section, lines: list[str]) -> int:
    """A section's size in the block: its heading, its lines, the blank line before it."""
    return len(section.heading) + 2 + sum(len(x) + 1 for x in lines) if lines else 0


def _closing(omitted: dict[str, int], digest: SessionDigest) -> str:
    notes = []
    if omitted:
        notes.append("left out for space: " + ", ".join(f"{n} {what}" for what, n in omitted.items()))
    if digest.evicted:
        notes.append("older minor facts were dropped earlier")
    return f"_{'; '.join(notes).capitalize()}. {MORE}._" if notes else ""
