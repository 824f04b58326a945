"""The briefing's sections and lines: the ``Section`` a builder fills, the section names in display
order, and the lines the sections and other views share (a fact, a file, a check, an ended item).

Every line is short (``LINE_CHARS``; the quoted instruction aside) and says something once: ``line``
cuts a struck-through line at its end, any other in its middle, so its start and its point both stay.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from continuity_core.checkpoints.ranking import strongest_action
from continuity_core.extraction.claims import clip, clip_middle
from continuity_core.extraction.paths import names_a_file
from continuity_core.extraction.salience import term_set
from continuity_core.extraction.sticky import FileAction
from continuity_core.models.session_digest import CheckVerdict, Fact, FactKind, FactStatus, FailingTest

LINE_CHARS = 200

WHERE = "Where things stand"
NEXT = "Next"
RULES = "Rules in force"
DECISIONS = "Decisions"
OPEN = "Open"
CHECKS = "Checks"
FILES = "Files"
ENDED = "No longer current"
ORDER = (WHERE, NEXT, RULES, DECISIONS, OPEN, CHECKS, FILES, ENDED)
_PRODUCT = re.compile(r"^[A-Z][A-Za-z0-9]*\.js$")


@dataclass
class Section:
    name: str  # one of ORDER
    lines: list[str] = field(default_factory=list)  # best first; shown in this order
    fixed: bool = False  # placed whole (the quoted instruction)
    title: str = ""  # the heading, when it says more than the name
    order: list[int] = field(default_factory=list)  # each line's display position (default: as listed)
    first: float = 0.0  # the share of the room it is given before the others (the rules: never crowded out)
    first_lines: int = 0  # how many of its best lines that share is for

    def shown(self, picked: list[str]) -> list[str]:
        """The picked lines in display order."""
        if not self.order:
            return picked
        position = {text: self.order[i] for i, text in enumerate(self.lines)}
        return sorted(picked, key=lambda text: position.get(text, 0))

    @property
    def heading(self) -> str:
        return f"### {self.title or self.name}"


def line(text: str) -> str:
    """A bullet of at most ``LINE_CHARS``: a struck-through line cut at its end, any other in its
    middle (its start and its point both stay)."""
    if text.startswith("~~"):
        return "- " + clip(text, LINE_CHARS - 2)
    return "- " + clip_middle(text, LINE_CHARS - 2)


def at_prompt(n: int | None) -> str:
    """The prompt a line's fact came from, as `` (prompt 3)``; nothing when it is unknown."""
    return f" (prompt {n})" if n else ""


def check_line(check: CheckVerdict) -> str:
    mark = "passed" if check.passed else "FAILED"
    return line(f"{mark}: `{clip(check.target, 80)}` — {check.verdict}{at_prompt(check.prompt)}")


def failing_lines(failing: list[FailingTest]) -> list[str]:
    """One line per test file and run (a pytest node's ``path::Class``), its failing tests named."""
    groups: dict[tuple[str, str, int | None], list[str]] = {}
    for test in failing:
        where, _, name = test.test.rpartition("::")
        groups.setdefault((where, test.runner, test.prompt), []).append(name)
    lines = []
    for (where, runner, prompt), names in groups.items():
        named = ", ".join(names)
        tests = named if not where else f"{where}::{{{named}}}" if len(names) > 1 else f"{where}::{named}"
        lines.append(
            line(f"still failing: {tests} ({runner}{', since prompt ' + str(prompt) if prompt else ''})")
        )
    return lines


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
        return clip(f"- `{path}` ({_actions(fact.detail)}{when})", LINE_CHARS)
    return line(fact.text.rstrip("…") + at_prompt(fact.prompt))


def _actions(detail: str | None) -> str:
    """What was done to a file, the work first: "written, edited, read" (named in passing only when
    nothing else was done to it)."""
    done = [a for a in (detail or "mentioned").split(",") if a]
    worked = [a for a in done if a not in (FileAction.MENTIONED.value, FileAction.SYMBOL.value)]
    order = (
        FileAction.WRITTEN.value,
        FileAction.EDITED.value,
        FileAction.DELETED.value,
        FileAction.READ.value,
    )
    return ", ".join(sorted(worked, key=lambda a: order.index(a) if a in order else 9)) or done[0]


def shown_file(fact: Fact, roots: list[str]) -> bool:
    """A file worth a line: the project's own, named as a file, not deleted since."""
    if strongest_action(fact.detail) == FileAction.DELETED.value:
        return False
    if fact.detail == FileAction.SYMBOL.value:
        return False
    if fact.detail == FileAction.MENTIONED.value and _PRODUCT.match(fact.text):
        return False  # "Next.js", "Node.js": a product named in passing, not a file
    return names_a_file(_relative(fact.text, roots)) and not fact.text.startswith(("/", "~"))


def _relative(path: str, roots: list[str]) -> str:
    for root in roots:
        prefix = root.rstrip("/") + "/"
        if path.startswith(prefix) and len(path) > len(prefix):
            return path[len(prefix) :]
    return path


def _gist(question: str, answer: str, room: int) -> str:
    """A long question cut to ``room`` around what its answer speaks of, so that a reader sees what
    links the two."""
    flat = " ".join(question.split())
    if len(flat) <= room:
        return flat
    lowered = flat.lower()
    found = [i for t in term_set(answer) & term_set(flat) if (i := lowered.find(t)) >= 0]
    if not found or min(found) < room - 20:
        return clip(flat, room)
    start = max(0, min(found) - room // 3)
    return "…" + clip(flat[start:], room - 1)


def ended_line(fact: Fact) -> str:
    if fact.kind is FactKind.QUESTION and fact.ended_by:  # the answer is what a successor needs
        when = f" at prompt {fact.ended_prompt}" if fact.ended_prompt else ""
        return line(f"~~{_gist(fact.text, fact.ended_by, 70)}~~ — answered{when}: {clip(fact.ended_by, 110)}")
    what = "superseded" if fact.status is FactStatus.SUPERSEDED else "answered/resolved"
    by = f" by: {clip(fact.ended_by, 80)}" if fact.ended_by else ""
    when = f" at prompt {fact.ended_prompt}" if fact.ended_prompt else ""
    return line(f"~~{clip(fact.text, 90)}~~ — {what}{when}{by}")
