"""The recovery block: the briefing an engineer would leave a colleague, from a rolling session digest.

One layout for every source (startup, resume, clear, compact, a new session of the project, a
hand-off, ``recover 2``, the MCP ``recover`` tool, the dashboard's injection view). Under the
caller's heading and provenance line, in this order, each section only when it has something:

- **Where things stand**: the agent's task list (latest state), its last report as short claims,
  what it found, the session's commits, and edits no check has run on since;
- **Next**: the user's last instruction, quoted (pasted output summarised), and whether the agent
  has reported on it;
- **Rules in force**: the user's standing constraints and remembered facts, in their words, and the
  project's rules the session relied on (its hooks, the commands it ran its checks with);
- **Decisions**: current ones, one line each, with what a reversal replaced;
- **Open**: questions and problems still open (one answered by a sentence about it leaves);
- **Checks**: the latest verdict per test, lint, type, format or build command, failing first;
- **Files**: the few that matter, with what happened to each;
- **No longer current**: the few reversed or finished items a successor might otherwise redo.

After a compaction whose summary the digest took in, the block is the compaction-loss check: the
facts the summary already holds are left out and one line says so.

Every line is short (``LINE_CHARS``; the quoted instruction aside) and says something once. The
budget is shared round-robin, a line per section at a time in the order above, so every section
keeps its best lines; what does not fit is counted in a closing line, never cut silently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from continuity_core.checkpoints.digest_work import CONCLUSION, INSTRUCTS, fact_key, visibly_linked
from continuity_core.checkpoints.ranking import score, strongest_action
from continuity_core.checkpoints.rolling import REWOUND
from continuity_core.extraction.checks import runs_checks, verifies
from continuity_core.extraction.claims import claims, clip, clip_middle, without_lead_in
from continuity_core.extraction.doc_rules import DOCUMENT_RULE
from continuity_core.extraction.pasted import is_material_line, summarise_pasted
from continuity_core.extraction.paths import names_a_file
from continuity_core.extraction.salience import is_tentative, rare_terms, salience, term_set
from continuity_core.extraction.sticky import ASKED, FileAction
from continuity_core.models.session_digest import (
    CheckVerdict,
    Fact,
    FactKind,
    FactSource,
    FactStatus,
    FailingTest,
    SessionDigest,
)
from continuity_core.recovery.fit import fit

BRIEFING_CHARS = 4000  # the whole block, on every source
AFTER_SUMMARY_CHARS = 2500  # beside a compaction summary the agent already reads
LINE_CHARS = 200
INSTRUCTION_CHARS = 600
DONE_SHOWN = 3
TODO_SHOWN = 4
FOUND_SHOWN = 6
EARLIER_SHOWN = 4
NEXT_SHOWN = 3
FILES_SHOWN = 6
LOOKED_AT_SHOWN = 2  # files only read or named: the two that rank highest
ENDED_SHOWN = 6
CHECKS_SHOWN = 6
SAID_SHOWN = 6
RULES_FIRST = 0.6  # of the room, the rules in force take what they need up to this before the others
COMMAND_RUNS = 3  # a command that runs no check is the project's way when the session ran it this often
SAID_FLOOR = 0.9  # a plain sentence of the user's among the rules: only a telling one
FACT_FLOOR = 0.5  # a decision or question said in passing needs this much content
MORE = "`continuity recover 3` (MCP `recover`, level 3) has the rest"

WHERE = "Where things stand"
NEXT = "Next"
RULES = "Rules in force"
DECISIONS = "Decisions"
OPEN = "Open"
CHECKS = "Checks"
FILES = "Files"
ENDED = "No longer current"
ORDER = (WHERE, NEXT, RULES, DECISIONS, OPEN, CHECKS, FILES, ENDED)
FIRST_THREE = ORDER[:3]  # level 1 of tiered recovery
_LIVE = (FactSource.PROMPT, FactSource.AGENT)
_PRODUCT = re.compile(r"^[A-Z][A-Za-z0-9]*\.js$")
# What reads as a proposal awaiting the user's word (not a report's feature list).
_PROPOSES = re.compile(
    r"\?|\b(?:I'?d|I would|should I|shall I|I (?:can|could)|recommend|suggest|option|would you|want me to)\b",
    re.IGNORECASE,
)
# A plain sentence of the user's that says how things should be, not what to do now.
_DIRECTIVE = re.compile(
    r"\b(?:should(?:n'?t)?|must|don'?t|do not|never|always|keep|prefer|rather|instead|make sure|only|"
    r"less work|no need|avoid|without)\b",
    re.IGNORECASE,
)
# Where a rule came from when not from a prompt: a remember, or the harness's compaction summary
# (its words, not the user's).
_SOURCE_NOTE = {
    FactSource.REMEMBER: " (remembered)",
    FactSource.COMPACTION_SUMMARY: " (the harness's summary)",
}
# The user asking for work ("Hey Claude, I'd like your help with …"): the task, not a decision.
_ASKS_FOR = re.compile(
    r"^\W*(?:(?:hey|hi|hello)\b[^,.!]*[,.!]\s*)?"
    r"(?:I'?d like|I want you to|can you|could you|would you|please|help me)\b",
    re.IGNORECASE,
)
# The agent offering to do more ("Would you like me to …?"): settled once the user typed another prompt.
_OFFER = re.compile(
    r"\b(?:would you like|you'?d like|do you want|shall I|should I|want me to|would you prefer)\b",
    re.IGNORECASE,
)


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


def held(fact: Fact, after_summary: bool) -> bool:
    """Beside the compaction summary: what it already says (and what was read out of it)."""
    return after_summary and (fact.in_summary or fact.source is FactSource.COMPACTION_SUMMARY)


def line(text: str) -> str:
    """A bullet of at most ``LINE_CHARS``: a struck-through line cut at its end, any other in its
    middle (its start and its point both stay)."""
    if text.startswith("~~"):
        return "- " + clip(text, LINE_CHARS - 2)
    return "- " + clip_middle(text, LINE_CHARS - 2)


def _prompt(n: int | None) -> str:
    return f" (prompt {n})" if n else ""


# --- the sections ------------------------------------------------------------------------------


def _where(digest: SessionDigest, after_summary: bool, roots: list[str]) -> Section:
    """Shown as a colleague reads it (the task list, the last report, what was found, earlier
    reports, commits, what is unverified); picked so that each kind gets its best lines first."""
    section = Section(WHERE)
    done = [i for i in digest.plan if i.status == "done"]
    doing = [line(f"In progress: {i.text}") for i in digest.plan if i.status == "doing"]
    todo = [line(f"To do: {i.text}") for i in digest.plan if i.status not in ("done", "doing")]
    if len(todo) > TODO_SHOWN:
        todo = [*todo[:TODO_SHOWN], f"- … and {len(todo) - TODO_SHOWN} more to do"]
    if digest.plan:
        section.title = f"{WHERE} (task list: {len(done)} of {len(digest.plan)} done)"
    report = latest_report(digest)
    said = [line(c) for c in claims(report.text)] if report is not None and not after_summary else []
    # Finished tasks: the newest (fewer when a report says what was done, in more words).
    finished = [line(f"Done: {i.text}") for i in done[-(DONE_SHOWN - 1 if said else DONE_SHOWN) :]]
    found = [line(f"Found: {f.text}") for f in _findings(digest, roots, after_summary)]
    earlier = [
        line(f"Earlier{_prompt(f.prompt)}: {f.text}") for f in _earlier_reports(digest, roots, after_summary)
    ]
    commits = (
        [line("Commits: " + "; ".join(f"`{c}`" for c in reversed(digest.commits[-3:])))]
        if digest.commits
        else []
    )
    unverified = [line(text)] if (text := _unverified(digest)) else []
    shown = [
        *doing,
        *todo,
        *finished,
        *said,
        *found,
        *earlier,
        *commits,
        *unverified,
    ]
    # A guess in the report ("the CDN might be caching …") ranks below what the agent found.
    sure = [c for c in said if not is_tentative(c)]
    ranked = [*doing, *sure[:3], *found[:2], *unverified, *todo, *sure[3:], *found[2:], *shown]
    section.lines = list(dict.fromkeys(ranked))
    section.order = [shown.index(text) for text in section.lines]
    return section


def latest_report(digest: SessionDigest) -> Fact | None:
    """The agent's latest word on the work: its last final message, or the summary it gave in its
    own digest (``session_digest``) when that came later."""
    report, summary = digest.report, digest.summary
    if summary is not None and summary.text.strip() and (report is None or summary.at >= report.at):
        return summary
    return report


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


def _findings(digest: SessionDigest, roots: list[str], after_summary: bool) -> list[Fact]:
    """What the agent found out (a root cause, a gotcha) that its last report does not say again."""
    latest = latest_report(digest)
    reported = term_set(latest.text if latest else "")
    outdated = _outdated_terms(digest)
    found = [
        f
        for f in digest.of(FactKind.FINDING)
        if not (f.source is FactSource.AGENT and is_tentative(f.text))
        and f.detail != CONCLUSION
        and not _pasted(f.text)
        and not held(f, after_summary)
        and not _outdated(f, outdated)
        and len(term_set(f.text) - reported) > len(term_set(f.text)) // 2
    ]
    return sorted(found, key=lambda f: score(f, digest.prompts, roots), reverse=True)[:FOUND_SHOWN]


def _earlier_reports(digest: SessionDigest, roots: list[str], after_summary: bool) -> list[Fact]:
    """What earlier turns' reports said was done, that the last report does not say again."""
    report = digest.report
    reported = term_set(report.text) if report else frozenset()
    earlier = [
        f
        for f in digest.of(FactKind.FINDING)
        if f.detail == CONCLUSION
        and not (report is not None and f.prompt == report.prompt)
        and not held(f, after_summary)
        and not _pasted(f.text)
        and len(term_set(f.text) - reported) > len(term_set(f.text)) // 2
    ]
    best = sorted(earlier, key=lambda f: salience(f.text).score, reverse=True)[:EARLIER_SHOWN]
    return sorted(best, key=lambda f: f.prompt or 0)


def _unverified(digest: SessionDigest) -> str | None:
    """Edits no check ran after: what a successor must not take as tested."""
    edited = [
        f.last_prompt or f.prompt or 0
        for f in digest.of(FactKind.FILE)
        if strongest_action(f.detail) in (FileAction.EDITED.value, FileAction.WRITTEN.value)
    ]
    if not edited:
        return None
    last_edit = max(edited)
    if digest.edited_step is not None:  # the order of edits and runs, within one prompt too
        if digest.checked_step is None:
            return "Not verified: no test, lint or type check ran in this session"
        if digest.edited_step > digest.checked_step:
            return f"Not verified: no test, lint or type check ran after the last edits (prompt {last_edit})"
        return None
    checked = max((c.prompt or 0 for c in digest.checks if verifies(c.target)), default=None)
    if checked is None:
        return "Not verified: no test, lint or type check ran in this session"
    if last_edit > checked:
        return f"Not verified: no check ran after the edits of prompt {last_edit}"
    return None


def _next(digest: SessionDigest, after_summary: bool) -> Section:
    section = Section(NEXT, fixed=True)
    instruction = digest.last_instruction
    if instruction is None:
        section.lines += _planned(digest, after_summary)
        return section
    text = summarise_pasted(instruction.text)
    if len(text) > INSTRUCTION_CHARS or text.endswith("…"):
        cut = text[: INSTRUCTION_CHARS - 12]
        if " " in cut[INSTRUCTION_CHARS // 2 :]:  # at a word
            cut = cut[: cut.rfind(" ")]
        text = cut.rstrip().rstrip("…") + " [truncated]"
    # Claude Code keeps a backslash where the user typed a line break (shift-enter): not their words.
    parts = [re.sub(r"\s*\\$", "", part) for part in text.splitlines()]
    section.lines += [f"> {part}" if part else ">" for part in parts if part or section.lines]
    report = digest.report
    pending = any(i.status != "done" for i in digest.plan)
    if after_summary and report is not None and report.prompt == instruction.prompt:
        state = "the agent was working on it when the harness compacted"
    elif report is not None and instruction.prompt and report.prompt == instruction.prompt:
        state = "the agent's last report (under Where things stand) answers it"
        if not pending:
            section.title = (
                f"{NEXT} (the last instruction is done, per the agent's report: wait for the user)"
            )
    elif report is not None and report.prompt and instruction.prompt and report.prompt > instruction.prompt:
        state = "the agent has reported since"
    else:
        state = "no report from the agent on it yet"
    section.lines.append(f"_The user's last instruction{_prompt(instruction.prompt)}; {state}._")
    section.lines += _planned(digest, after_summary)
    proposal = digest.proposal
    if (
        proposal is not None
        and (proposal.prompt or 0) >= (instruction.prompt or 0)
        and _PROPOSES.search(proposal.text)
    ):
        section.lines.append(line(f"The agent proposed, awaiting a reply: {proposal.text}"))
    return section


def _planned(digest: SessionDigest, after_summary: bool) -> list[str]:
    steps = [f for f in digest.of(FactKind.NEXT_STEP) if not held(f, after_summary)][-NEXT_SHOWN:]
    return [line(f"Planned next{_prompt(step.prompt)}: {step.text}") for step in steps]


def _rules(digest: SessionDigest, shown: set[str], after_summary: bool) -> Section:
    """The user's rules first, then the project's (its hooks and commands), then what the documents
    the session read require (the newest document first)."""
    section = Section(RULES, first=RULES_FIRST)
    users: list[str] = []
    documents: list[tuple[int, int, str]] = []
    for order, fact in enumerate(digest.of(FactKind.CONSTRAINT) + digest.of(FactKind.REMEMBERED)):
        if _pasted(fact.text) or held(fact, after_summary):
            continue
        shown.add(fact_key(fact.kind, fact.text))
        if fact.detail and fact.detail.startswith(DOCUMENT_RULE):
            where = f" ({fact.detail.removeprefix(DOCUMENT_RULE)})"
            documents.append(
                (fact.last_prompt or fact.prompt or 0, order, line(fact.text.rstrip("…") + where))
            )
            continue
        who = _SOURCE_NOTE.get(fact.source) or _prompt(fact.prompt)
        room = LINE_CHARS - len(who) - 2
        text = fact.text.rstrip("…")
        if not _DIRECTIVE.search(text.partition(": ")[0]):  # "Never rename col_1: …" is no lead-in
            text = without_lead_in(text, room)
        users.append(line(clip(text, room) + who))
    outdated = _outdated_terms(digest)
    said = [
        f
        for f in digest.of(FactKind.SAID)
        if not _pasted(f.text)
        and not held(f, after_summary)
        and salience(f.text, prompt=f.prompt, prompts=digest.prompts, seen=f.seen).score >= SAID_FLOOR
        and not _outdated(f, outdated)
        and not _is_instruction(digest, f)
        and not INSTRUCTS.match(f.text)  # a task asked for ("Find the TODO …"), not a standing rule
        and not f.text.rstrip().endswith("?")  # a question is no rule
        and "://" not in f.text  # a sentence with a link is a message quoted, an error pasted
    ]
    said.sort(key=lambda f: score(f, digest.prompts), reverse=True)
    quoted = [line(f"“{f.text.rstrip('…')}”{_prompt(f.prompt)}") for f in said[:SAID_SHOWN]]
    documents.sort(key=lambda d: (-d[0], -d[1]))
    section.lines = [*users, *_project_rules(digest, after_summary), *(text for _, _, text in documents)]
    section.first_lines = len(section.lines)  # the user's plain sentences compete like any other line
    section.lines += quoted
    return section


def _project_rules(digest: SessionDigest, after_summary: bool) -> list[str]:
    lines: list[str] = []
    hooks: dict[str, list[str]] = {}  # event -> commands; then one line per set of commands
    for command in digest.commands:
        if command.hook and not (after_summary and command.in_summary):
            hooks.setdefault(command.hook, []).append(f"`{command.command}`")
    events: dict[tuple[str, ...], list[str]] = {}
    for event, run in hooks.items():
        events.setdefault(tuple(run), []).append(event)
    for run_by, names in events.items():
        which = f"{', '.join(names)} hook{'s' if len(names) > 1 else ''}"
        lines.append(line(f"The project's {which} run{'' if len(names) > 1 else 's'} {', '.join(run_by)}"))
    used = [
        f"`{c.command}`"
        for c in sorted(digest.commands, key=lambda c: -c.runs)
        if not c.hook
        and not (after_summary and c.in_summary)
        and (runs_checks(c.command) or c.runs >= COMMAND_RUNS)
    ]
    if used:
        lines.append(line(f"Commands the session ran its checks with: {', '.join(used[:6])}"))
    return lines


def _is_instruction(digest: SessionDigest, fact: Fact) -> bool:
    instruction = digest.last_instruction
    return instruction is not None and fact.text.rstrip("…")[:60] in instruction.text


def _pasted(text: str) -> bool:
    """Output, a log line or a traceback taken for a sentence: no rule, decision or question."""
    first = text.strip().split("\n", 1)[0]
    return is_material_line(first) or summarise_pasted(text) != text.strip()


def _decisions(digest: SessionDigest, shown: set[str], after_summary: bool, roots: list[str]) -> Section:
    replaced = {
        fact_key(FactKind.DECISION, f.ended_by): f
        for f in digest.facts
        if f.status is FactStatus.SUPERSEDED and f.ended_by
    }
    facts = [
        f
        for f in digest.of(FactKind.DECISION)
        if not _pasted(f.text)
        and not held(f, after_summary)
        and (f.source not in _LIVE or salience(f.text).score >= FACT_FLOOR)
        and fact_key(f.kind, f.text) not in shown
        and not _is_instruction(digest, f)
        and not (f.source is FactSource.PROMPT and _ASKS_FOR.match(f.text))  # a task asked for, not a choice
    ]
    facts.sort(key=lambda f: score(f, digest.prompts, roots), reverse=True)
    section = Section(DECISIONS)
    for fact in facts:
        old = replaced.get(fact_key(FactKind.DECISION, fact.text))
        was = f" (this superseded: {clip(old.text, 60)})" if old is not None else ""
        who = (
            f" (the agent's proposal, accepted at prompt {fact.accepted_prompt})"
            if fact.accepted_prompt is not None
            else _prompt(fact.prompt)
        )
        said = without_lead_in(fact.text.rstrip("…"), LINE_CHARS - len(was) - len(who) - 4)
        section.lines.append(line(clip(said, LINE_CHARS - len(was) - len(who) - 4) + was + who))
    return section


def open_questions(digest: SessionDigest, after_summary: bool = False) -> list[Fact]:
    """Still open: not closed, not answered by a sentence about it, not asked and answered in one
    turn, not pasted output, said with some content."""
    return [
        f
        for f in digest.of(FactKind.QUESTION)
        if not (f.detail == ASKED and f.answer and f.answer_prompt == f.prompt)
        and not (f.detail == ASKED and (f.prompt or 0) < digest.prompts and _OFFER.search(f.text))
        and not (f.answer and visibly_linked(f.text, f.answer))
        and not _passed_since(digest, f)
        and not _is_instruction(digest, f)
        and not _pasted(f.text)
        and not held(f, after_summary)
        and (f.source not in _LIVE or salience(f.text).score >= FACT_FLOOR)
    ]


_TEST_NAME = re.compile(r"\btest_\w+|\b\w+_test\b|\bTest[A-Z]\w+")


def _passed_since(digest: SessionDigest, fact: Fact) -> bool:
    """A problem naming tests none of which still fail, with a passing run since: settled."""
    named = set(_TEST_NAME.findall(fact.text))
    if not named:
        return False
    failing = " ".join(t.test for t in digest.failing)
    since = fact.last_prompt or fact.prompt or 0
    passed = any(c.passed and (c.prompt or 0) >= since for c in digest.checks)
    return passed and not any(name in failing for name in named)


def _open(digest: SessionDigest, after_summary: bool, roots: list[str]) -> Section:
    facts = sorted(
        open_questions(digest, after_summary), key=lambda f: score(f, digest.prompts, roots), reverse=True
    )
    return Section(OPEN, [line(f.text.rstrip("…") + _prompt(f.prompt)) for f in facts])


def _checks(digest: SessionDigest, after_summary: bool) -> Section:
    section = Section(CHECKS)
    checks = [c for c in digest.checks if not (after_summary and c.in_summary and c.passed)]
    ordered = sorted(checks, key=lambda c: (c.passed, -(c.prompt or 0)))
    section.lines += [check_line(c) for c in ordered[:CHECKS_SHOWN]]
    section.lines += _failing_lines(digest.failing[-CHECKS_SHOWN:])
    return section


def check_line(check: CheckVerdict) -> str:
    mark = "passed" if check.passed else "FAILED"
    return line(f"{mark}: `{clip(check.target, 80)}` — {check.verdict}{_prompt(check.prompt)}")


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
        lines.append(
            line(f"still failing: {tests} ({runner}{', since prompt ' + str(prompt) if prompt else ''})")
        )
    return lines


def _files(digest: SessionDigest, roots: list[str], after_summary: bool) -> Section:
    """The files worked on (edited, written), then at most ``LOOKED_AT_SHOWN`` only read or named."""
    files = [f for f in digest.of(FactKind.FILE) if shown_file(f, roots) and not held(f, after_summary)]
    files.sort(key=lambda f: score(f, digest.prompts, roots), reverse=True)
    worked = [
        f for f in files if strongest_action(f.detail) in (FileAction.EDITED.value, FileAction.WRITTEN.value)
    ]
    looked_at = [f for f in files if f not in worked][:LOOKED_AT_SHOWN]
    return Section(FILES, [fact_line(f, roots) for f in [*worked, *looked_at][:FILES_SHOWN]])


def _ended(digest: SessionDigest) -> Section:
    ended = sorted(
        (
            f
            for f in digest.facts
            if f.status is not FactStatus.ACTIVE
            and f.kind is not FactKind.SAID
            and not (f.detail or "").startswith(DOCUMENT_RULE)  # a finished task's rules: nothing to redo
            and f.ended_by != REWOUND
        ),
        key=lambda f: -(f.ended_prompt or 0),
    )
    answered = [f for f in digest.of(FactKind.QUESTION) if f.answer and visibly_linked(f.text, f.answer)]
    lines = [ended_line(f) for f in ended] + [
        line(f"~~{clip(f.text, 70)}~~ — answered{_prompt(f.answer_prompt)}: {f.answer}") for f in answered
    ]
    # A rewind: one line for all that the abandoned prompts said (each would be read again otherwise).
    rewound = sorted({f.prompt for f in digest.facts if f.ended_by == REWOUND and f.prompt})
    if rewound:
        span = f"{rewound[0]}" if len(rewound) == 1 else f"{rewound[0]}-{rewound[-1]}"
        lines.insert(
            0, f"- ~~What prompts {span} led to~~ — abandoned: the user rewound the conversation past it"
        )
    return Section(ENDED, lines[:ENDED_SHOWN])


# --- lines other views share ---------------------------------------------------------------------


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
    return line(fact.text.rstrip("…") + _prompt(fact.prompt))


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


# --- the whole -----------------------------------------------------------------------------------


def briefing(
    digest: SessionDigest, roots: list[str] | None = None, after_summary: bool = False
) -> list[Section]:
    """The sections in display order, each line best first; ``after_summary``: beside the harness's
    compaction summary (what it holds is left out)."""
    paths = roots or []
    shown: set[str] = set()
    return [
        _where(digest, after_summary, paths),
        _next(digest, after_summary),
        _rules(digest, shown, after_summary),
        _decisions(digest, shown, after_summary, paths),
        _open(digest, after_summary, paths),
        _checks(digest, after_summary),
        _files(digest, paths, after_summary),
        _ended(digest),
    ]


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
