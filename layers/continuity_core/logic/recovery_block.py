"""The recovery block rendered from a rolling session digest, inside a character budget.

Layout: the last instruction (verbatim), then constraints, decisions, open questions, findings,
remembered facts, files in play, next steps, the most recent distinct prompts, and what is no longer
current (superseded decisions, answered questions, each marked as such). Every fact says where it
came from. The budget is shared fairly: the last instruction and the constraints are placed first
and never dropped while anything else remains; the other kinds split what is left, a kind needing
less than its share leaving the rest to the others. Whole lines only: what does not fit is counted
in a closing line, never cut silently. No text appears twice.
"""

from __future__ import annotations

from dataclasses import dataclass

from continuity_core.logic.injection import fit
from continuity_core.logic.rolling import fact_key, score
from continuity_core.models.session_digest import Fact, FactKind, FactSource, FactStatus, SessionDigest

LAST_INSTRUCTION_SHARE = 0.35  # of the budget, at most, for the last instruction
SUMMARY_SHARE = 0.15  # and for the agent's own summary
# The closing line: what was left out, of ~8 kinds, and what the digest dropped before.
OMITTED_LINE_CHARS = 300
MORE = "`continuity recover 3` (MCP tool `recover`, level 3) has the full checkpoint"

_TITLES = {
    FactKind.CONSTRAINT: "Constraints (still in force)",
    FactKind.DECISION: "Decisions",
    FactKind.QUESTION: "Open Questions and Blockers",
    FactKind.FINDING: "Findings",
    FactKind.REMEMBERED: "Remembered",
    FactKind.FILE: "Files in Play",
    FactKind.NEXT_STEP: "Next Steps",
}
_SHARED_ORDER = (
    FactKind.DECISION,
    FactKind.QUESTION,
    FactKind.FINDING,
    FactKind.REMEMBERED,
    FactKind.FILE,
    FactKind.NEXT_STEP,
)
_SOURCE_LABEL = {
    FactSource.PROMPT: "prompt {n}",
    FactSource.REMEMBER: "remembered",
    FactSource.AGENT: "agent, prompt {n}",
    FactSource.AGENT_DIGEST: "agent digest",
    FactSource.COMPACTION_SUMMARY: "compaction summary",
}


def provenance(fact: Fact) -> str:
    label = _SOURCE_LABEL[fact.source]
    if "{n}" in label:
        label = (
            label.format(n=fact.prompt)
            if fact.prompt
            else label.split(",")[0].replace("prompt {n}", "earlier")
        )
    if fact.seen > 1:
        label += f", said {fact.seen} times"
    return label


def fact_line(fact: Fact, roots: list[str] | None = None) -> str:
    if fact.kind is FactKind.FILE:
        path = _relative(fact.text, roots or [])
        when = f", prompt {fact.last_prompt or fact.prompt}" if fact.prompt else ""
        return f"- `{path}` ({fact.detail or 'mentioned'}{when})"
    if fact.kind is FactKind.REMEMBERED and fact.source is FactSource.REMEMBER:
        return f"- “{fact.text}” ({provenance(fact)})"
    return f"- {fact.text} ({provenance(fact)})"


def _relative(path: str, roots: list[str]) -> str:
    for root in roots:
        prefix = root.rstrip("/") + "/"
        if path.startswith(prefix) and len(path) > len(prefix):
            return path[len(prefix) :]
    return path


def ended_line(fact: Fact) -> str:
    what = "superseded" if fact.status is FactStatus.SUPERSEDED else "answered/resolved"
    when = f" at prompt {fact.ended_prompt}" if fact.ended_prompt else ""
    by = f" by: {fact.ended_by}" if fact.ended_by else ""
    return f"- ~~{fact.text}~~ — {what}{when}{by}"


def _clip_visibly(text: str, room: int) -> str:
    if len(text) <= room:
        return text
    kept = text[: max(0, room - 40)].rstrip()
    return f"{kept} […{len(text) - len(kept)} characters cut]"


def _age_label(fact: Fact) -> str:
    return f"agent digest, prompt {fact.prompt}" if fact.prompt else "agent digest"


@dataclass
class _Section:
    title: str
    lines: list[str]  # in priority order
    order: list[int]  # display position of each line

    @property
    def need(self) -> int:
        return _size(self.title, self.lines)


def _size(title: str, lines: list[str]) -> int:
    # "### {title}\n" + the lines, newline-separated, + the separator before the next section
    return len(title) + 6 + sum(len(line) + 1 for line in lines) if lines else 0


def render_digest(
    digest: SessionDigest, header: str, budget: int, roots: list[str] | None = None
) -> tuple[str, bool]:
    """(block, cut): the digest as markdown under ``header``, at most ``budget`` characters; paths
    under one of the project ``roots`` are shown relative to it."""
    parts = [header]
    used = len(header)
    instruction = digest.last_instruction
    shown: set[str] = set()
    if instruction is not None:
        where = f"prompt {instruction.prompt}, verbatim" if instruction.prompt else "verbatim"
        title = f"### Last Instruction ({where})"
        room = max(200, int(budget * LAST_INSTRUCTION_SHARE)) - len(title) - 4
        text = _clip_visibly(instruction.text, room)
        quoted = "\n".join(f"> {line}" if line else ">" for line in text.splitlines())
        block = f"{title}\n{quoted}"
        parts.append(block)
        used += len(block) + 2
        shown.add(fact_key(FactKind.NEXT_STEP, instruction.text))
    if digest.summary is not None:
        title = f"### The Agent's Own Summary ({_age_label(digest.summary)})"
        room = max(200, int(budget * SUMMARY_SHARE)) - len(title) - 2
        block = f"{title}\n{_clip_visibly(digest.summary.text, room)}"
        parts.append(block)
        used += len(block) + 2
    sections = _sections(digest, shown, instruction, roots or [])
    omitted: dict[str, int] = {}
    room = max(0, budget - used - OMITTED_LINE_CHARS)
    constraints = sections[0]
    allowance = {id(constraints): min(constraints.need, room)}
    allowance |= _fair_shares(sections[1:], room - allowance[id(constraints)])
    chosen: dict[int, list[int]] = {}
    spare = 0
    for section in sections:
        picked, left = _pick(section, allowance[id(section)] + spare)
        chosen[id(section)] = picked
        spare = left
        dropped = len(section.lines) - len(picked)
        if dropped:
            omitted[section.title.split(" (")[0].lower()] = dropped
    for section in sections:
        picked = chosen[id(section)]
        if picked:
            lines = [section.lines[i] for i in sorted(picked, key=lambda i: section.order[i])]
            parts.append("\n".join([f"### {section.title}", *lines]))
    cut = bool(omitted)
    notes = []
    if cut:
        notes.append("left out for space: " + ", ".join(f"{n} {what}" for what, n in omitted.items()))
    if digest.evicted:
        notes.append("older minor facts were dropped earlier to keep the digest bounded (rules last)")
    if notes:
        parts.append(f"_{'; '.join(notes).capitalize()}. {MORE}._")
    text = "\n\n".join(parts)
    if len(text) > budget:  # only when the fixed parts alone overflow a very small budget
        return fit(text, budget), True
    return text, cut


def _sections(
    digest: SessionDigest, shown: set[str], instruction: Fact | None, roots: list[str]
) -> list[_Section]:
    prompts = digest.prompts
    sections: list[_Section] = []
    for kind in (FactKind.CONSTRAINT, *_SHARED_ORDER):
        facts = [f for f in digest.of(kind) if fact_key(f.kind, f.text) not in shown]
        ranked = sorted(range(len(facts)), key=lambda i: score(facts[i], prompts, roots), reverse=True)
        if kind is FactKind.CONSTRAINT:  # rules are all equal: keep the user's order, drop the newest last
            ranked = list(range(len(facts)))
        lines = [fact_line(facts[i], roots) for i in ranked]
        sections.append(_Section(_TITLES[kind], lines, ranked))
    # A prompt already shown as a fact, or one that states what is no longer current, is not repeated.
    texts = [f.text.rstrip("…") for f in digest.facts if f.kind is not FactKind.FILE and len(f.text) > 20]
    notes = [
        note
        for note in digest.recent_prompts
        if not (instruction and note.prompt == instruction.prompt)
        and not any(t[:120] in note.text for t in texts)
    ]
    distinct: dict[str, int] = {}
    for note in notes:
        distinct[fact_key(FactKind.NEXT_STEP, note.text)] = note.prompt
    recent = [n for n in notes if distinct.get(fact_key(FactKind.NEXT_STEP, n.text)) == n.prompt]
    newest_first = list(reversed(recent))
    sections.append(
        _Section(
            "Recent Prompts (before the last instruction)",
            [f"- (prompt {n.prompt}) {n.text}" for n in newest_first],
            [n.prompt for n in newest_first],
        )
    )
    ended = sorted(
        (f for f in digest.facts if f.status is not FactStatus.ACTIVE),
        key=lambda f: f.ended_prompt or 0,
        reverse=True,
    )
    sections.append(
        _Section("No Longer Current", [ended_line(f) for f in ended], [f.ended_prompt or 0 for f in ended])
    )
    return sections


def _fair_shares(sections: list[_Section], room: int) -> dict[int, int]:
    """Water-filling: each section gets what it needs up to an equal share of what is left."""
    shares: dict[int, int] = {}
    waiting = [s for s in sections if s.need]
    for section in sections:
        shares[id(section)] = 0
    while waiting and room > 0:
        share = room // len(waiting)
        small = [s for s in waiting if s.need <= share]
        if not small:
            for section in waiting:
                shares[id(section)] = share
            break
        for section in small:
            shares[id(section)] = section.need
            room -= section.need
            waiting.remove(section)
    return shares


def _pick(section: _Section, allowance: int) -> tuple[list[int], int]:
    """The lines (by priority) that fit ``allowance``; and what is left of it."""
    if not section.lines:
        return [], allowance
    left = allowance - _size(section.title, [""]) + 1
    picked: list[int] = []
    for index, line in enumerate(section.lines):
        if len(line) + 1 <= left:
            picked.append(index)
            left -= len(line) + 1
    if not picked:
        return [], allowance
    return picked, max(0, left)
