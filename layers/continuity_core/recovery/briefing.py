"""The briefing's sections, built from a rolling session digest, each line best first.

Under the caller's heading and provenance line, in this order, each section only when it has
something:

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

Beside a compaction summary the digest took in (``after_summary``), each section leaves out the
facts that summary already holds.
"""

from __future__ import annotations

import re

from continuity_core.checkpoints.digest_work import CONCLUSION, INSTRUCTS, fact_key, visibly_linked
from continuity_core.checkpoints.ranking import score, strongest_action
from continuity_core.checkpoints.rolling import REWOUND
from continuity_core.extraction.checks import runs_checks, verifies
from continuity_core.extraction.claims import claims, clip, without_lead_in
from continuity_core.extraction.doc_rules import DOCUMENT_RULE
from continuity_core.extraction.pasted import summarise_pasted
from continuity_core.extraction.salience import is_tentative, salience, term_set
from continuity_core.extraction.sticky import FileAction
from continuity_core.models.session_digest import Fact, FactKind, FactSource, FactStatus, SessionDigest
from continuity_core.recovery.briefing_facts import (
    FACT_FLOOR,
    LIVE,
    held,
    is_instruction,
    is_outdated,
    is_pasted,
    latest_report,
    open_questions,
    outdated_terms,
)
from continuity_core.recovery.briefing_lines import (
    CHECKS,
    DECISIONS,
    ENDED,
    FILES,
    LINE_CHARS,
    NEXT,
    OPEN,
    RULES,
    WHERE,
    Section,
    at_prompt,
    check_line,
    ended_line,
    fact_line,
    failing_lines,
    line,
    shown_file,
)

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
# What reads as a proposal awaiting the user's word (not a report's feature list).
_PROPOSES = re.compile(
    r"\?|\b(?:I'?d|I would|should I|shall I|I (?:can|could)|recommend|suggest|option|would you|want me to)\b",
    re.IGNORECASE,
)
# A rule's own words ("Never rename col_1: …"): what comes before its colon is no lead-in to cut.
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
        line(f"Earlier{at_prompt(f.prompt)}: {f.text}")
        for f in _earlier_reports(digest, roots, after_summary)
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


def _findings(digest: SessionDigest, roots: list[str], after_summary: bool) -> list[Fact]:
    """What the agent found out (a root cause, a gotcha) that its last report does not say again."""
    latest = latest_report(digest)
    reported = term_set(latest.text if latest else "")
    outdated = outdated_terms(digest)
    found = [
        f
        for f in digest.of(FactKind.FINDING)
        if not (f.source is FactSource.AGENT and is_tentative(f.text))
        and f.detail != CONCLUSION
        and not is_pasted(f.text)
        and not held(f, after_summary)
        and not is_outdated(f, outdated)
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
        and not is_pasted(f.text)
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
    section.lines.append(f"_The user's last instruction{at_prompt(instruction.prompt)}; {state}._")
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
    return [line(f"Planned next{at_prompt(step.prompt)}: {step.text}") for step in steps]


def _rules(digest: SessionDigest, shown: set[str], after_summary: bool) -> Section:
    """The user's rules first, then the project's (its hooks and commands), then what the documents
    the session read require (the newest document first)."""
    section = Section(RULES, first=RULES_FIRST)
    users: list[str] = []
    documents: list[tuple[int, int, str]] = []
    for order, fact in enumerate(digest.of(FactKind.CONSTRAINT) + digest.of(FactKind.REMEMBERED)):
        if is_pasted(fact.text) or held(fact, after_summary):
            continue
        shown.add(fact_key(fact.kind, fact.text))
        if fact.detail and fact.detail.startswith(DOCUMENT_RULE):
            where = f" ({fact.detail.removeprefix(DOCUMENT_RULE)})"
            documents.append(
                (fact.last_prompt or fact.prompt or 0, order, line(fact.text.rstrip("…") + where))
            )
            continue
        who = _SOURCE_NOTE.get(fact.source) or at_prompt(fact.prompt)
        room = LINE_CHARS - len(who) - 2
        text = fact.text.rstrip("…")
        if not _DIRECTIVE.search(text.partition(": ")[0]):  # "Never rename col_1: …" is no lead-in
            text = without_lead_in(text, room)
        users.append(line(clip(text, room) + who))
    outdated = outdated_terms(digest)
    said = [
        f
        for f in digest.of(FactKind.SAID)
        if not is_pasted(f.text)
        and not held(f, after_summary)
        and salience(f.text, prompt=f.prompt, prompts=digest.prompts, seen=f.seen).score >= SAID_FLOOR
        and not is_outdated(f, outdated)
        and not is_instruction(digest, f)
        and not INSTRUCTS.match(f.text)  # a task asked for ("Find the TODO …"), not a standing rule
        and not f.text.rstrip().endswith("?")  # a question is no rule
        and "://" not in f.text  # a sentence with a link is a message quoted, an error pasted
    ]
    said.sort(key=lambda f: score(f, digest.prompts), reverse=True)
    quoted = [line(f"“{f.text.rstrip('…')}”{at_prompt(f.prompt)}") for f in said[:SAID_SHOWN]]
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


def _decisions(digest: SessionDigest, shown: set[str], after_summary: bool, roots: list[str]) -> Section:
    replaced = {
        fact_key(FactKind.DECISION, f.ended_by): f
        for f in digest.facts
        if f.status is FactStatus.SUPERSEDED and f.ended_by
    }
    facts = [
        f
        for f in digest.of(FactKind.DECISION)
        if not is_pasted(f.text)
        and not held(f, after_summary)
        and (f.source not in LIVE or salience(f.text).score >= FACT_FLOOR)
        and fact_key(f.kind, f.text) not in shown
        and not is_instruction(digest, f)
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
            else at_prompt(fact.prompt)
        )
        said = without_lead_in(fact.text.rstrip("…"), LINE_CHARS - len(was) - len(who) - 4)
        section.lines.append(line(clip(said, LINE_CHARS - len(was) - len(who) - 4) + was + who))
    return section


def _open(digest: SessionDigest, after_summary: bool, roots: list[str]) -> Section:
    facts = sorted(
        open_questions(digest, after_summary), key=lambda f: score(f, digest.prompts, roots), reverse=True
    )
    return Section(OPEN, [line(f.text.rstrip("…") + at_prompt(f.prompt)) for f in facts])


def _checks(digest: SessionDigest, after_summary: bool) -> Section:
    section = Section(CHECKS)
    checks = [c for c in digest.checks if not (after_summary and c.in_summary and c.passed)]
    ordered = sorted(checks, key=lambda c: (c.passed, -(c.prompt or 0)))
    section.lines += [check_line(c) for c in ordered[:CHECKS_SHOWN]]
    section.lines += failing_lines(digest.failing[-CHECKS_SHOWN:])
    return section


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
        line(f"~~{clip(f.text, 70)}~~ — answered{at_prompt(f.answer_prompt)}: {f.answer}") for f in answered
    ]
    # A rewind: one line for all that the abandoned prompts said (each would be read again otherwise).
    rewound = sorted({f.prompt for f in digest.facts if f.ended_by == REWOUND and f.prompt})
    if rewound:
        span = f"{rewound[0]}" if len(rewound) == 1 else f"{rewound[0]}-{rewound[-1]}"
        lines.insert(
            0, f"- ~~What prompts {span} led to~~ — abandoned: the user rewound the conversation past it"
        )
    return Section(ENDED, lines[:ENDED_SHOWN])


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
