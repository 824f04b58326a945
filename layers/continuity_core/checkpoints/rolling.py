"""The rolling session digest: merge what a session said since the last checkpoint into what it had.

Rules (the digest itself is ``models/session_digest.py``, the extraction ``extraction/sticky.py``):

- **Deduplicated.** A fact is its words (case, spacing and punctuation aside): said twice, it is one
  fact seen twice. A prompt cut short (a snippet ending in "…") merges into its full text when the
  live transcript brings it.
- **Superseded.** A decision that says it replaces another ("actually", "instead of Redis", "switch
  the queue to SQS", "scratch that") supersedes the active decision on the same subject (shared
  words, or the very option it names); a plain decision "use X for the queue" supersedes an earlier
  one for the same "for …" subject. Without cue words (``extraction/reversal.py`` reads the
  evidence): a later message that sets aside a value an earlier choice named ("pg is out then" for
  ``pgRouting``, "scrap the hand-rolled build" for ``build.mjs``) or takes up what it set aside
  ("skip HDR" → "add an HDR10 rung"), and names a value of its own; a report that names what it
  replaced ("swapped X for Y", "X -> Y"); a package the agent uninstalls. The old one stays, marked,
  so the agent is told it changed.
- **Closed.** A finding that answers or resolves ("it turns out …", "that's fixed now", "answer to
  the earlier question: …") closes the open question it shares most words with (else, when it
  names no subject, the most recent one).
- **Ranked and bounded.** Each kind has a cap; beyond it the least useful go first (old, said once,
  from the agent's prose, files only read, files outside the project). Only the user's repeating
  counts as emphasis: the agent's prose saying a sentence again is boilerplate. Constraints and
  remembered facts go last.

The pipeline is here (``roll``: take each statement by what it is, accept it, supersede, close, rank,
bound); its steps are modules of their own over the working digest (``digest_work.py``):
``fact_merge.py`` (one fact in), ``supersession.py``, ``questions.py``, ``proposals.py`` (the agent's
report and proposal, the user's acceptance) and ``ranking.py``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from datetime import datetime

from continuity_core.checkpoints import progress
from continuity_core.checkpoints.digest_work import (
    CONCLUSION,
    INSTRUCTS,
    REPLY_CHARS,
    Statement,
    WorkingDigest,
    end_fact,
    fact_key,
    visibly_linked,
)
from continuity_core.checkpoints.fact_merge import add_fact, with_action
from continuity_core.checkpoints.proposals import accept_proposal, take_report
from continuity_core.checkpoints.questions import note_answer, note_reply
from continuity_core.checkpoints.ranking import bound, score, strongest_action
from continuity_core.checkpoints.removals import end_what_names, removed_names
from continuity_core.checkpoints.supersession import supersede_by_message, supersede_removed
from continuity_core.extraction import reversal
from continuity_core.extraction.checks import verifies
from continuity_core.extraction.doc_rules import DOCUMENT_RULE, closed_task, document_rules
from continuity_core.extraction.pasted import own_words
from continuity_core.extraction.paths import project_file
from continuity_core.extraction.refusals import refused
from continuity_core.extraction.salience import has_content, rare_terms
from continuity_core.extraction.sticky import (
    Candidate,
    FileAction,
    Role,
    decision,
    extract,
    sentences,
    tool_files,
    user_candidates,
)
from continuity_core.extraction.terms import snippet
from continuity_core.models.session_digest import (
    Fact,
    FactKind,
    FactSource,
    FactStatus,
    PromptNote,
    SessionDigest,
)

# The pipeline's entry points, and what the recovery block reads a digest with (importable from here).
__all__ = [
    "CONCLUSION",
    "Statement",
    "fact_key",
    "merge_digests",
    "roll",
    "score",
    "strongest_action",
    "visibly_linked",
]

INSTRUCTION_CHARS = 2000  # a Fact holds at most this much; the recovery block marks the cut
SUMMARY_CHARS = 1000
RECENT_PROMPTS = 5
SUMMARY_COVERS = 0.7  # share of a fact's rare terms a compaction summary must say to hold it


def merge_digests(digests: Iterable[SessionDigest | None]) -> SessionDigest | None:
    """The newest digest plus any fact only an older one holds (two writers that raced)."""
    present = sorted((d for d in digests if d is not None), key=_updated, reverse=True)
    if not present:
        return None
    base = present[0]
    keys = {fact_key(f.kind, f.text) for f in base.facts}
    extra: list[Fact] = []
    for other in present[1:]:
        for fact in other.facts:
            key = fact_key(fact.kind, fact.text)
            if key not in keys:
                keys.add(key)
                extra.append(fact)
    if not extra:
        return base
    return base.model_copy(update={"facts": [*base.facts, *extra]})


def _updated(digest: SessionDigest) -> float:
    return digest.updated_at.timestamp() if digest.updated_at else 0.0


def roll(
    previous: SessionDigest | None,
    statements: list[Statement],
    *,
    now: datetime,
    prompts: int | None = None,
    transcript_end: int | None = None,
    last_instruction: Statement | None = None,
    recent: list[PromptNote] | None = None,
    summary: Statement | None = None,
    roots: Iterable[str] = (),
) -> SessionDigest:
    """``previous`` with ``statements`` merged in, in order; bounded. ``summary``: the agent's own;
    ``roots``: the project's paths (its own files rank above files elsewhere)."""
    base = previous or SessionDigest()
    work = WorkingDigest(
        list(base.facts),
        base.evicted,
        [r for r in roots if r],
        list(base.plan),
        base.plan_prompt,
        list(base.commits),
        list(base.failing),
        base.report,
        base.proposal,
        base.compacted_prompt,
        list(base.checks),
        list(base.commands),
        base.steps,
        base.edited_step,
        base.checked_step,
    )
    for statement in statements:
        _take(work, statement)
    total = max(base.prompts, prompts or 0)
    bound(work, total, roots)
    instruction = base.last_instruction
    if last_instruction is not None and last_instruction.text.strip():
        words = last_instruction.text.strip()  # verbatim: line breaks kept, only a very long one is cut
        instruction = Fact(
            kind=FactKind.NEXT_STEP,
            text=words if len(words) <= INSTRUCTION_CHARS else words[: INSTRUCTION_CHARS - 1] + "…",
            source=last_instruction.source,
            prompt=last_instruction.prompt,
            at=last_instruction.at,
        )
    notes = {note.prompt: note for note in [*base.recent_prompts, *(recent or [])]}
    agent_summary = base.summary
    if summary is not None and summary.text.strip():
        agent_summary = Fact(
            kind=FactKind.FINDING,
            text=snippet(summary.text, SUMMARY_CHARS) or "",
            source=summary.source,
            prompt=summary.prompt,
            at=summary.at,
        )
    return SessionDigest(
        facts=work.facts,
        last_instruction=instruction,
        summary=agent_summary,
        recent_prompts=[notes[n] for n in sorted(notes)][-RECENT_PROMPTS:],
        prompts=total,
        transcript_end=max(base.transcript_end, transcript_end or 0),
        evicted=work.evicted,
        updated_at=now,
        plan=work.plan,
        plan_prompt=work.plan_prompt,
        commits=work.commits,
        failing=work.failing,
        report=work.report,
        proposal=work.proposal,
        compacted_prompt=work.compacted_prompt,
        checks=work.checks,
        commands=work.commands,
        steps=work.steps,
        edited_step=work.edited_step,
        checked_step=work.checked_step,
    )


def _take(work: WorkingDigest, statement: Statement) -> None:
    """One statement into the digest, by what it is."""
    work.steps += 1
    if not statement.tool and statement.command is None and any(" " in root for root in work.roots):
        statement = _relative_paths(statement, work.roots)
    if statement.rewound:
        _abandon(work, statement)
    elif statement.plan:
        work.plan, work.plan_prompt = progress.plan_items(statement.text), statement.prompt
    elif statement.command is not None:
        _take_result(work, statement)
    elif statement.tool:
        _take_tool(work, statement)
    elif statement.kind is not None:
        text = statement.text.strip()
        candidate = decision(text) if statement.kind is FactKind.DECISION else None
        add_fact(work, candidate or Candidate(statement.kind, text, statement.detail), statement)
    elif statement.role is Role.USER:
        _take_user(work, statement)
    elif statement.role is Role.AGENT and statement.final:
        end_what_names(work, removed_names(statement.text), statement)
        take_report(work, statement)
    elif statement.role is Role.AGENT:  # prose between tool calls: only what it says it found or chose
        end_what_names(work, removed_names(statement.text), statement)
        for candidate in extract(statement.text, Role.AGENT):
            if has_content(candidate.text):
                add_fact(work, candidate, statement)
    else:
        for candidate in extract(statement.text, statement.role):
            add_fact(work, candidate, statement)
        if statement.source is FactSource.COMPACTION_SUMMARY:
            _mark_summarized(work, statement)


def _relative_paths(statement: Statement, roots: list[str]) -> Statement:
    """Paths under a project folder with a space in its name (``~/Documents/My Project``) made
    relative, so that a path named in prose is read whole, not cut at the space."""
    text = statement.text
    for root in sorted(roots, key=len, reverse=True):
        text = text.replace(root.rstrip("/") + "/", "")
    return statement if text == statement.text else replace(statement, text=text)


REWOUND = "the user rewound the conversation to before it"


def _abandon(work: WorkingDigest, statement: Statement) -> None:
    """A rewind: what the abandoned prompts and their turns said no longer holds (their edits and
    runs did happen: files, commits and checks stay)."""
    last = statement.prompt or 0
    first = last - statement.rewound + 1
    for index, fact in enumerate(work.facts):
        said = fact.prompt or 0
        if fact.status is FactStatus.ACTIVE and fact.kind is not FactKind.FILE and first <= said <= last:
            end_fact(work, index, FactStatus.SUPERSEDED, REWOUND, statement)
    if work.report is not None and first <= (work.report.prompt or 0) <= last:
        work.report = None
    if work.proposal is not None and first <= (work.proposal.prompt or 0) <= last:
        work.proposal = None


def _take_tool(work: WorkingDigest, statement: Statement) -> None:
    for candidate in tool_files(statement.text):
        add_fact(work, candidate, statement)
        if candidate.detail in (FileAction.EDITED.value, FileAction.WRITTEN.value):
            work.edited_step = work.steps
    command = progress.shell_command(statement.text)
    task = closed_task(command) if command else None
    if task:  # the task's spec no longer binds: its rules end with it
        for index, fact in enumerate(work.facts):
            rule = fact.detail or ""
            if (
                fact.status is FactStatus.ACTIVE
                and rule.startswith(DOCUMENT_RULE)
                and rule.endswith(f" {task}")
            ):
                end_fact(work, index, FactStatus.SUPERSEDED, f"task {task} closed", statement)
    for path in progress.deleted_paths(command) if command else ():
        _delete_file(work, path, statement)
    if command:
        supersede_removed(work, reversal.removed_packages(command), statement)


def _take_result(work: WorkingDigest, statement: Statement) -> None:
    """A tool's output, read with its call: commits, checks, the project's commands, a document's
    rules, failing tests."""
    command, output, prompt = statement.command or "", statement.text, statement.prompt
    commits = progress.commits_in(output)
    work.commits = progress.with_commits(work.commits, commits)
    for commit in commits:  # "Remove foo(): …": what was said of foo() no longer describes the code
        end_what_names(work, removed_names(commit), statement)
    shell = progress.shell_command(command)
    if shell and not refused(output):  # a refused command never ran
        hooked = progress.hook_command(command)
        checks = progress.with_check(work.checks, shell, output, prompt)
        if checks != work.checks and verifies(checks[-1].target):
            work.checked_step = work.steps
        work.checks = checks
        work.commands = progress.with_command(work.commands, shell, hooked[0] if hooked else None)
    for rule, document in document_rules(command, output):
        add_fact(work, Candidate(FactKind.CONSTRAINT, rule, f"{DOCUMENT_RULE}{document}"), statement)
    run = progress.verdict(command, output)
    if run is not None:
        work.failing = progress.track_failing(work.failing, run, prompt)


def _delete_file(work: WorkingDigest, path: str, statement: Statement) -> None:
    own = project_file(path, work.roots)
    if own is None:
        return
    for index, fact in enumerate(work.facts):
        if fact.kind is FactKind.FILE and fact.text == own:
            work.facts[index] = fact.model_copy(
                update={
                    "detail": with_action(fact.detail, FileAction.DELETED.value),
                    "last_prompt": statement.prompt,
                }
            )


def _take_user(work: WorkingDigest, statement: Statement) -> None:
    """The user's own words (what they pasted left out): every sentence a candidate; a short
    reply to the agent's proposal accepts it."""
    words = own_words(statement.text)
    accept_proposal(work, words, statement)
    note_reply(work, words, statement)
    for candidate in user_candidates(words):
        if (
            candidate.kind is FactKind.FILE
            or candidate.kind is FactKind.REMEMBERED
            or has_content(candidate.text, candidate.kind in (FactKind.CONSTRAINT, FactKind.DECISION))
        ):
            add_fact(work, candidate, statement)
        # A terse reply ("re history: direction only.") says little alone but much beside the
        # question it shares terms with: content is judged against the open questions too.
        if candidate.kind is not FactKind.FILE and not candidate.text.rstrip().endswith("?"):
            note_answer(work, candidate.text, statement, sure=not INSTRUCTS.match(candidate.text))
    reply = words.strip()
    if len(reply) <= REPLY_CHARS and "?" not in reply and len(sentences(reply)) > 1:
        # a short reply answers across its sentences ("re history: direction only. teachers …")
        note_answer(work, reply, statement, sure=not INSTRUCTS.match(reply))
    supersede_by_message(work, words, statement)


def _mark_summarized(work: WorkingDigest, statement: Statement) -> None:
    """What the harness's compaction summary already says (most of a fact's rare terms): the
    recovery block then leads with what it dropped."""
    summary = rare_terms(statement.text)
    work.compacted_prompt = statement.prompt or max(
        (f.last_prompt or f.prompt or 0 for f in work.facts), default=0
    )
    for index, fact in enumerate(work.facts):
        if fact.kind is FactKind.FILE:
            continue
        terms = rare_terms(fact.text)
        held = bool(terms) and len(terms & summary) / len(terms) >= SUMMARY_COVERS
        if held != fact.in_summary:
            work.facts[index] = fact.model_copy(update={"in_summary": held})
