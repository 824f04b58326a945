"""The recovery block rendered from a rolling session digest, inside a character budget.

Layout: the last instruction (verbatim), then constraints, decisions, open questions, findings,
remembered facts, files in play, next steps, the most recent distinct prompts, and what is no longer
current (superseded decisions, answered questions, each marked as such). Every fact says where it
came from. The budget is shared fairly: the last instruction and the constraints are placed first
and never dropped while anything else remains; the other kinds split what is left, a kind needing
less than its share leaving the rest to the others. Whole lines only: what does not fit is counted
in a closing line, never cut silently. No text appears twice.

One module: one renderer read top to bottom, the line each kind of fact makes and the budget they
share (``_fair_shares``), which must see every section at once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from continuity_core.checkpoints.rolling import (
    CONCLUSION,
    fact_key,
    score,
    strongest_action,
    visibly_linked,
)
from continuity_core.extraction.paths import names_a_file
from continuity_core.extraction.salience import (
    is_tentative,
    rare_terms,
    salience,
    select,
    term_set,
    topic_terms,
)
from continuity_core.extraction.sticky import ASKED, FileAction
from continuity_core.extraction.terms import snippet
from continuity_core.models.session_digest import (
    Fact,
    FactKind,
    FactSource,
    FactStatus,
    FailingTest,
    SessionDigest,
)
from continuity_core.recovery.fit import fit

LAST_INSTRUCTION_SHARE = 0.35  # of the budget, at most, for the last instruction
SUMMARY_SHARE = 0.15  # and for the agent's own summary
PROGRESS_SHARE = 0.2  # and for where things stand
USER_WORDS_CHARS = 3000  # the user's own sentences, at most
USER_WORDS_FIRST = 1600  # of which placed before the structured sections share the rest
DONE_SHOWN = 5  # finished plan items shown (the newest)
FAILING_SHOWN = 6  # failing tests named (the newest)
COMMITS_SHOWN = 4
# A decision or question said in the session (not an agent digest's) needs this much content to be
# shown: "OK, we're going to make a little experiment here." and "did that fix it?" have none.
FACT_FLOOR = 0.5
_SAID_LIVE = (FactSource.PROMPT, FactSource.AGENT)
ENDED_TEXT_CHARS = 160  # a question shown with its likely answer: its gist is enough
_PLAN_MARK = {"done": "[x]", "doing": "[>]", "todo": "[ ]"}
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
    FactKind.SAID: "In the User's Own Words (in order said)",
}
_SHARED_ORDER = (
    FactKind.DECISION,
    FactKind.QUESTION,
    FactKind.SAID,
    FactKind.FINDING,
    FactKind.REMEMBERED,
    FactKind.FILE,
    FactKind.NEXT_STEP,
)
DROPPED_TITLE = "Not in the Harness's Compaction Summary"
DROPPED_SAID_FLOOR = 0.9  # the user's plain sentences listed there: only the telling ones
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
        first, last = fact.prompt, fact.last_prompt
        when = (
            f", prompts {first}-{last}"
            if first and last and last != first
            else f", prompt {first}"
            if first
            else ""
        )
        done = ", ".join(a for a in (fact.detail or "mentioned").split(",") if a)
        return f"- `{path}` ({done}{when})"
    if fact.kind is FactKind.REMEMBERED and fact.source is FactSource.REMEMBER:
        return f"- “{fact.text}” ({provenance(fact)})"
    if fact.kind is FactKind.SAID:
        return f"- (prompt {fact.prompt}) {fact.text}" + (
            f" (said {fact.seen} times)" if fact.seen > 1 else ""
        )
    if fact.accepted_prompt is not None:
        proposed = f"the agent's proposal at prompt {fact.prompt}"
        return f"- {fact.text} ({proposed}, accepted at prompt {fact.accepted_prompt})"
    line = f"- {fact.text} ({provenance(fact)})"
    if fact.kind is FactKind.QUESTION and fact.answer:
        line = f"- {snippet(fact.text, ENDED_TEXT_CHARS)} ({provenance(fact)})"
        line += f" — possibly answered at prompt {fact.answer_prompt}: {fact.answer}"
    return line


def shown_file(fact: Fact, roots: list[str]) -> bool:
    """A file worth a line: the project's own, named as a file, not deleted since."""
    if strongest_action(fact.detail) == FileAction.DELETED.value:
        return False
    if fact.detail == FileAction.SYMBOL.value:
        return False
    if fact.detail == FileAction.MENTIONED.value and _PRODUCT.match(fact.text):
        return False  # "Next.js", "Node.js": a product named in passing, not a file
    return names_a_file(_relative(fact.text, roots)) and not fact.text.startswith(("/", "~"))


_PRODUCT = re.compile(r"^[A-Z][A-Za-z0-9]*\.js$")


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
    # A closed question's gist is enough (its answer is what counts); a decision keeps its words, as a
    # sentence may hold another decision that still stands.
    text = fact.text
    if fact.kind is FactKind.QUESTION:
        text = _gist(fact.text, fact.ended_by or "")
        if not visibly_linked(text, fact.ended_by or ""):  # the cut lost what links the two: all of it
            text = fact.text
    return f"- ~~{text}~~ — {what}{when}{by}"


def _gist(question: str, answer: str) -> str:
    """A long question cut to ``ENDED_TEXT_CHARS`` around what its answer speaks of, so the reader
    sees what links the two."""
    flat = snippet(question, 10 * ENDED_TEXT_CHARS) or ""
    if len(flat) <= ENDED_TEXT_CHARS:
        return flat
    lowered = flat.lower()
    found = [lowered.find(t) for t in term_set(answer) & term_set(flat) if lowered.find(t) >= 0]
    head = snippet(flat, ENDED_TEXT_CHARS) or ""
    if not found or min(found) < len(head) - 20:
        return head
    start = max(0, min(found) - ENDED_TEXT_CHARS // 3)
    return "…" + (snippet(flat[start:], ENDED_TEXT_CHARS - 1) or "")


def _clip_visibly(text: str, room: int) -> str:
    if len(text) <= room:
        return text
    kept = text[: max(0, room - 52)].rstrip()
    return f"{kept} […{len(text) - len(kept)} characters cut] [truncated]"


def _age_label(fact: Fact) -> str:
    return f"agent digest, prompt {fact.prompt}" if fact.prompt else "agent digest"


def progress_block(digest: SessionDigest, room: int) -> str | None:
    """Where things stand: the agent's task list, the session's commits, tests still failing, and
    what the agent last reported, so finished work never reads as pending."""
    lines: list[str] = []
    if digest.plan:
        done = [i for i in digest.plan if i.status == "done"]
        rest = [i for i in digest.plan if i.status != "done"]
        when = f", prompt {digest.plan_prompt}" if digest.plan_prompt else ""
        lines.append(
            f"Task list (the agent's own, latest state{when}; {len(done)} of {len(digest.plan)} done):"
        )
        hidden = len(done) - DONE_SHOWN
        if hidden > 0:
            lines.append(f"- [x] … {hidden} more done")
        lines += [f"- {_PLAN_MARK.get(i.status, '[ ]')} {i.text}" for i in [*done[-DONE_SHOWN:], *rest]]
    if digest.failing:
        lines.append("Tests failing in the last run that ran them:")
        shown = digest.failing[-FAILING_SHOWN:]
        lines += _failing_lines(shown)
        if len(digest.failing) > len(shown):
            lines.append(f"- … and {len(digest.failing) - len(shown)} more failing")
    if digest.commits:
        commits = digest.commits[-COMMITS_SHOWN:]
        lines.append("Commits made this session (newest last): " + "; ".join(f"`{c}`" for c in commits))
    if digest.report is not None:
        lines.append(f"The agent's last report (prompt {digest.report.prompt}): {digest.report.text}")
    if not lines:
        return None
    return _clip_visibly("\n".join(["### Where Things Stand", *lines]), room)


def _failing_lines(failing: list[FailingTest]) -> list[str]:
    """One line per test file and run (a pytest node's ``path::Class``), its failing tests named."""
    groups: dict[tuple[str, str, int | None], list[str]] = {}
    for test in failing:
        where, _, name = test.test.rpartition("::")
        groups.setdefault((where, test.runner, test.prompt), []).append(name)
    lines = []
    for (where, runner, prompt), names in groups.items():
        named = ", ".join(names)
        tests = named if not where else f"{where}::{{{named}}}" if len(names) > 1 else f"{where}::{named}"
        since = f", since prompt {prompt}" if prompt is not None else ""
        lines.append(f"- failing: {tests} ({runner}{since})")
    return lines


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
        if text == instruction.text and text.endswith("…"):  # cut when it was stored
            text += " [truncated]"
        quoted = "\n".join(f"> {line}" if line else ">" for line in text.splitlines())
        block = f"{title}\n{quoted}"
        parts.append(block)
        used += len(block) + 2
        shown.add(fact_key(FactKind.NEXT_STEP, instruction.text))
    standing = progress_block(digest, max(200, int(budget * PROGRESS_SHARE)))
    if standing is not None:
        parts.append(standing)
        used += len(standing) + 2
    if digest.summary is not None:
        title = f"### The Agent's Own Summary ({_age_label(digest.summary)})"
        room = max(200, int(budget * SUMMARY_SHARE)) - len(title) - 2
        block = f"{title}\n{_clip_visibly(digest.summary.text, room)}"
        parts.append(block)
        used += len(block) + 2
    sections = _sections(digest, shown, instruction, roots or [])
    omitted: dict[str, int] = {}
    room = max(0, budget - used - OMITTED_LINE_CHARS)
    display = list(sections)
    words = next(x for x in sections if x.title == _TITLES[FactKind.SAID])
    allowance: dict[int, int] = {}
    # What the compaction summary dropped, the rules, then the user's own words: placed first.
    for first, most in ((sections[0], room), (sections[1], room), (words, USER_WORDS_FIRST)):
        allowance[id(first)] = min(first.need, room, most)
        room -= allowance[id(first)]
    structured = [x for x in sections[2:] if x is not words]
    allowance |= _fair_shares(structured, room)
    sections = [*sections[:2], words, *structured]
    chosen: dict[int, list[int]] = {}
    spare = 0
    for section in sections:
        picked, left = _pick(section, allowance[id(section)] + spare)
        chosen[id(section)] = picked
        spare = left
        dropped = len(section.lines) - len(picked)
        if dropped:
            omitted[section.title.split(" (")[0].lower()] = dropped
    for section in display:
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
    sections: list[_Section] = [_dropped_by_summary(digest, shown, roots)]
    outdated = _outdated_terms(digest)
    for kind in (FactKind.CONSTRAINT, *_SHARED_ORDER):
        facts = [f for f in digest.of(kind) if fact_key(f.kind, f.text) not in shown]
        if kind in (FactKind.SAID, FactKind.FINDING):
            facts = [f for f in facts if not _outdated(f, outdated)]
        if kind in (FactKind.DECISION, FactKind.QUESTION):  # "did that fix it?": nothing to act on
            facts = [f for f in facts if f.source not in _SAID_LIVE or salience(f.text).score >= FACT_FLOOR]
        if kind is FactKind.FINDING:  # "the issue is X. Let me check:" is a guess its check settled
            facts = [f for f in facts if f.source is not FactSource.AGENT or not is_tentative(f.text)]
        if kind is FactKind.FINDING and digest.report is not None:  # already in Where Things Stand
            facts = [f for f in facts if f.text.rstrip("…") not in digest.report.text]
        if kind is FactKind.FILE:
            facts = [f for f in facts if shown_file(f, roots)]
        if kind is FactKind.QUESTION:  # asked and answered in the same turn: conversation, not open
            facts = [f for f in facts if not (f.detail == ASKED and f.answer and f.answer_prompt == f.prompt)]
        ranked = sorted(range(len(facts)), key=lambda i: score(facts[i], prompts, roots), reverse=True)
        if kind is FactKind.CONSTRAINT:  # rules are all equal: keep the user's order, drop the newest last
            ranked = list(range(len(facts)))
        if kind is FactKind.SAID:
            ranked = _users_words(digest, facts)
        order = [facts[i].prompt or 0 for i in ranked] if kind is FactKind.SAID else ranked
        lines = [fact_line(facts[i], roots) for i in ranked]
        sections.append(_Section(_TITLES[kind], lines, order))
    # A prompt already shown as a fact, or one that states what is no longer current, is not repeated.
    # (the user's plain sentences are shown only when picked: they do not stand for the prompt)
    texts = [
        f.text.rstrip("…")
        for f in digest.facts
        if f.kind not in (FactKind.FILE, FactKind.SAID) and len(f.text) > 20
    ]
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
    # Decisions and questions first (newest first), then the user's plain sentences taken back.
    ended = sorted(
        (f for f in digest.facts if f.status is not FactStatus.ACTIVE),
        key=lambda f: (f.kind is FactKind.SAID, -(f.ended_prompt or 0)),
    )
    sections.append(
        _Section("No Longer Current", [ended_line(f) for f in ended], [-(f.ended_prompt or 0) for f in ended])
    )
    return sections


def _outdated_terms(digest: SessionDigest) -> list[tuple[int, frozenset[str]]]:
    """Per superseded decision: when, and the rare terms it had that what replaced it has not (the
    old value: "esbuild" after "move to WXT")."""
    found = []
    for fact in digest.facts:
        if fact.status is FactStatus.SUPERSEDED and fact.ended_prompt is not None:
            old = rare_terms(fact.text) - rare_terms(fact.ended_by or "")
            if old:
                found.append((fact.ended_prompt, old))
    return found


def _outdated(fact: Fact, outdated: list[tuple[int, frozenset[str]]]) -> bool:
    """A sentence of before a change that names the old value: shown, it would read as current."""
    if fact.detail not in (None, CONCLUSION, ASKED) or fact.accepted_prompt is not None:
        return False
    said = fact.last_prompt or fact.prompt or 0
    terms = rare_terms(fact.text)
    return any(said < when and terms & old for when, old in outdated)


def _users_words(digest: SessionDigest, facts: list[Fact]) -> list[int]:
    """The user's sentences worth showing, best first: specific, rare, not the session's running
    topic, repeated, each new against those already picked; within ``USER_WORDS_CHARS``."""
    said = [(f.prompt, f.text) for f in digest.facts if f.source is FactSource.PROMPT]
    topic = topic_terms(said, digest.prompts)
    scores = {
        i: salience(f.text, prompt=f.prompt, prompts=digest.prompts, seen=f.seen, topic=topic)
        for i, f in enumerate(facts)
    }
    return select(
        list(range(len(facts))),
        lambda i: scores[i],
        lambda i: len(fact_line(facts[i])) + 1,
        USER_WORDS_CHARS,
    )


def _dropped_by_summary(digest: SessionDigest, shown: set[str], roots: list[str]) -> _Section:
    """After a compaction whose summary we hold: the facts of before it that the summary does not
    say, first; the rest is in the summary the agent already has (and in the sections below)."""
    when = digest.compacted_prompt
    if when is None:
        return _Section(DROPPED_TITLE, [], [])
    dropped = [
        f
        for f in digest.facts
        if f.status is FactStatus.ACTIVE
        and f.kind not in (FactKind.FILE, FactKind.NEXT_STEP)
        and (f.kind is not FactKind.SAID or salience(f.text).score >= DROPPED_SAID_FLOOR)
        and not f.in_summary
        and (f.prompt or 0) <= when
        and fact_key(f.kind, f.text) not in shown
    ]
    held = sum(1 for f in digest.facts if f.in_summary and f.status is FactStatus.ACTIVE)
    ranked = sorted(range(len(dropped)), key=lambda i: score(dropped[i], digest.prompts, roots), reverse=True)
    for fact in dropped:
        shown.add(fact_key(fact.kind, fact.text))
    title = f"{DROPPED_TITLE} (prompt {when}; it already holds {held} of this session's facts)"
    return _Section(title, [fact_line(dropped[i], roots) for i in ranked], ranked)


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
