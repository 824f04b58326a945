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

One module: ``roll`` is one pipeline read top to bottom (take each statement, accept it, supersede,
close, rank, bound), and every step works on the same private digest (``_Digest``); split, each
part would need the others' rules to be read.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache

from continuity_core.checkpoints import progress
from continuity_core.extraction import reversal
from continuity_core.extraction.pasted import own_words
from continuity_core.extraction.paths import names_a_file, project_file
from continuity_core.extraction.salience import (
    background,
    has_content,
    is_tentative,
    key_terms,
    rare_terms,
    salience,
    specific_tokens,
    term_set,
    terms_of,
)
from continuity_core.extraction.sticky import (
    ASKED,
    Candidate,
    FileAction,
    Role,
    content_words,
    decision,
    extract,
    sentences,
    tool_files,
    user_candidates,
)
from continuity_core.extraction.terms import GENERIC_LINK, snippet
from continuity_core.models.session_digest import (
    Fact,
    FactKind,
    FactSource,
    FactStatus,
    FailingTest,
    PlanItem,
    PromptNote,
    SessionDigest,
)

FACT_CHARS = 320
REMEMBER_CHARS = 500
INSTRUCTION_CHARS = 2000  # a Fact holds at most this much; the recovery block marks the cut
SUMMARY_CHARS = 1000
ENDED_BY_CHARS = 160
RECENT_PROMPTS = 5
CAPS = {
    FactKind.CONSTRAINT: 40,
    FactKind.DECISION: 16,
    FactKind.QUESTION: 12,
    FactKind.FINDING: 16,
    FactKind.REMEMBERED: 40,
    FactKind.FILE: 32,
    FactKind.NEXT_STEP: 6,
    FactKind.SAID: 32,
}
REPORT_CHARS = 320  # the agent's latest report: its most telling sentences
REPORT_SENTENCES = 3
CONCLUSIONS_PER_TURN = 2  # a final message's specific sentences kept as findings
SUMMARY_COVERS = 0.7  # share of a fact's rare terms a compaction summary must say to hold it
# A file of the project's own outranks any file elsewhere (another checkout, a home directory):
# above the most a file elsewhere can score (recency 1 + repetition 0.6 + edited 1.2).
OWN_FILE = 3.0
ENDED_CAP = 10  # superseded decisions and closed questions kept to say what changed
ENDED_SAID_CAP = 6  # and the user's plain sentences a later one replaced
# Eviction order when the whole digest is over its size: constraints last.
EVICT_ORDER = (
    FactKind.SAID,
    FactKind.NEXT_STEP,
    FactKind.FILE,
    FactKind.FINDING,
    FactKind.QUESTION,
    FactKind.DECISION,
    FactKind.REMEMBERED,
    FactKind.CONSTRAINT,
)
MAX_DIGEST_CHARS = 24_000
_SOURCE_WEIGHT = {
    FactSource.REMEMBER: 0.5,
    FactSource.PROMPT: 0.35,
    FactSource.AGENT_DIGEST: 0.3,
    FactSource.COMPACTION_SUMMARY: 0.15,
    FactSource.AGENT: 0.0,
}
_ACTION_RANK = {
    FileAction.EDITED.value: 4,
    FileAction.WRITTEN.value: 4,
    FileAction.MENTIONED.value: 3,
    FileAction.SYMBOL.value: 2,
    FileAction.READ.value: 1,
}
# For ranking files: worked on (edited, written) far above named (mentioned) or looked at (read).
_FILE_RANK = {**_ACTION_RANK, FileAction.MENTIONED.value: 2}
_KEY_WORDS = re.compile(r"\w+", re.UNICODE)
_SUBJECT = re.compile(r"\bfor (?:the |our |all |every |a |an )?([\w-]+(?:[ -][\w-]+)?)", re.IGNORECASE)
_SCRATCH = re.compile(r"\b(?:scratch that|change of plans?|on second thought|forget (?:that|it))\b", re.I)
_GENERIC_CLOSE_WORDS = 3
_GENERIC_SUBJECTS = frozenset(
    {"step", "part", "thing", "stuff", "task", "work", "code", "file", "test", "now"}
)


@dataclass(frozen=True)
class Statement:
    """Something the session said, with its provenance. ``kind`` set: taken as that fact, verbatim."""

    text: str
    role: Role
    source: FactSource
    prompt: int | None
    at: datetime
    kind: FactKind | None = None
    detail: str | None = None
    tool: bool = False  # a tool call line of the transcript (``Tool Edit: path``)
    final: bool = False  # the agent's last message of a turn: its report
    plan: bool = False  # the agent's task list (``Plan:`` block)
    command: str | None = None  # a tool's result: the tool line it answers (``Tool Bash: pytest``)


@dataclass
class _Digest:
    facts: list[Fact] = field(default_factory=list)
    evicted: int = 0
    roots: list[str] = field(default_factory=list)
    plan: list[PlanItem] = field(default_factory=list)
    plan_prompt: int | None = None
    commits: list[str] = field(default_factory=list)
    failing: list[FailingTest] = field(default_factory=list)
    report: Fact | None = None
    proposal: Fact | None = None
    compacted_prompt: int | None = None


@lru_cache(maxsize=8192)  # the same facts are keyed again for every statement merged
def fact_key(kind: FactKind, text: str) -> str:
    """Same words, same fact (files: the same path)."""
    if kind is FactKind.FILE:
        return "file:" + text.strip().rstrip("/")
    return " ".join(_KEY_WORDS.findall(text.lower()))


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
    work = _Digest(
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
    )
    for statement in statements:
        _take(work, statement)
    total = max(base.prompts, prompts or 0)
    _bound(work, total, roots)
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
    )


def _take(work: _Digest, statement: Statement) -> None:
    """One statement into the digest, by what it is."""
    if statement.plan:
        work.plan, work.plan_prompt = progress.plan_items(statement.text), statement.prompt
    elif statement.command is not None:
        _take_result(work, statement.command, statement.text, statement.prompt)
    elif statement.tool:
        _take_tool(work, statement)
    elif statement.kind is not None:
        text = statement.text.strip()
        candidate = decision(text) if statement.kind is FactKind.DECISION else None
        _add(work, candidate or Candidate(statement.kind, text, statement.detail), statement)
    elif statement.role is Role.USER:
        _take_user(work, statement)
    elif statement.role is Role.AGENT and statement.final:
        _take_report(work, statement)
    elif statement.role is Role.AGENT:  # prose between tool calls: only what it says it found or chose
        for candidate in extract(statement.text, Role.AGENT):
            if has_content(candidate.text):
                _add(work, candidate, statement)
    else:
        for candidate in extract(statement.text, statement.role):
            _add(work, candidate, statement)
        if statement.source is FactSource.COMPACTION_SUMMARY:
            _mark_summarized(work, statement)


def _take_tool(work: _Digest, statement: Statement) -> None:
    for candidate in tool_files(statement.text):
        _add(work, candidate, statement)
    command = progress.shell_command(statement.text)
    for path in progress.deleted_paths(command) if command else ():
        _delete_file(work, path, statement)
    if command:
        _supersede_removed(work, reversal.removed_packages(command), statement)


def _take_result(work: _Digest, command: str, output: str, prompt: int | None) -> None:
    work.commits = progress.with_commits(work.commits, progress.commits_in(output))
    run = progress.verdict(command, output)
    if run is not None:
        work.failing = progress.track_failing(work.failing, run, prompt)


def _delete_file(work: _Digest, path: str, statement: Statement) -> None:
    own = project_file(path, work.roots)
    if own is None:
        return
    for index, fact in enumerate(work.facts):
        if fact.kind is FactKind.FILE and fact.text == own:
            work.facts[index] = fact.model_copy(
                update={
                    "detail": _actions(fact.detail, FileAction.DELETED.value),
                    "last_prompt": statement.prompt,
                }
            )


def _take_user(work: _Digest, statement: Statement) -> None:
    """The user's own words (what they pasted left out): every sentence a candidate; a short
    reply to the agent's proposal accepts it."""
    words = own_words(statement.text)
    _accept(work, words, statement)
    _reply(work, words, statement)
    for candidate in user_candidates(words):
        if (
            candidate.kind is FactKind.FILE
            or candidate.kind is FactKind.REMEMBERED
            or has_content(candidate.text, candidate.kind in (FactKind.CONSTRAINT, FactKind.DECISION))
        ):
            _add(work, candidate, statement)
        # A terse reply ("re history: direction only.") says little alone but much beside the
        # question it shares terms with: content is judged against the open questions too.
        if candidate.kind is not FactKind.FILE and not candidate.text.rstrip().endswith("?"):
            _answers(work, candidate.text, statement, sure=not _INSTRUCTS.match(candidate.text))
    reply = words.strip()
    if len(reply) <= REPLY_CHARS and "?" not in reply and len(sentences(reply)) > 1:
        # a short reply answers across its sentences ("re history: direction only. teachers …")
        _answers(work, reply, statement, sure=not _INSTRUCTS.match(reply))
    _supersede_by_message(work, words, statement)


# A reply that says no, not yet or wait is no acceptance, however short.
_NOT_ACCEPTING = re.compile(
    r"^\W*(?:no|nope|nah|not|don'?t|do not|wait|stop|hold|hmm+|never|why|what)\b", re.I
)
_OPTION = re.compile(
    r"^\W*(?:option\s+)?([A-Da-d1-4])\W*$|^\W*(?:option|go with|take)\s+([A-Da-d1-4])\b", re.I
)
# The grammar of a proposal put to the user: a first-person suggestion, a question to them, options.
_PROPOSING = re.compile(
    r"\b(?:i'?d|i would|i suggest|i recommend|i propose|i lean|my (?:suggestion|recommendation|vote)|"
    r"we could|we should|you could|should (?:i|we)|want me to|shall (?:i|we)|do you want|option)\b"
    r"|^\W*(?:[A-D]|\d)[:).]\s",
    re.IGNORECASE,
)
ACCEPT_WORDS = 8
# Options laid out side by side ("Option 1: …  Option 2: …", "A) … B) …"), and the one recommended.
_OPTION_LABEL = re.compile(r"(?:^|\s)(?:option\s+)?([A-D1-4])[:)]\s", re.IGNORECASE)
_NAMED_OPTION = re.compile(r"\b(?:option|with|pick|choose|take)\s+([A-D1-4])\b", re.IGNORECASE)
_RECOMMENDS = re.compile(
    r"\b(?:recommend|suggest|i'?d (?:go|pick|use|choose)|my (?:pick|vote))", re.IGNORECASE
)


def _accept(work: _Digest, words: str, statement: Statement) -> None:
    """ "ok do it", "👍", "A": a short reply with nothing of its own accepts what the agent proposed
    in the turn before; the proposal becomes a decision (the option named, when one is)."""
    proposal, reply = work.proposal, words.strip()
    if proposal is None or not reply or statement.prompt is None:
        return
    if proposal.prompt is not None and statement.prompt - proposal.prompt > 1:
        work.proposal = None
        return
    option = _OPTION.match(reply)
    short = len(reply.split()) <= ACCEPT_WORDS and not reply.endswith("?") and not has_content(reply)
    if option is None and (not short or _NOT_ACCEPTING.match(reply)):
        work.proposal = None
        return
    text = proposal.text
    if option is not None:
        text = _option(text, (option.group(1) or option.group(2)).upper()) or text
    elif len({label.upper() for label in _OPTION_LABEL.findall(text)}) >= 2:
        # "ok" to a menu picks what the agent recommended, if it did; else nothing was chosen yet
        recommended = [s for s in sentences(text, 1) if _RECOMMENDS.search(s)]
        if not recommended:
            work.proposal = None
            return
        named = _NAMED_OPTION.search(recommended[-1])
        text = (named and _option(text, named.group(1).upper())) or recommended[-1]
    accepted = Candidate(FactKind.DECISION, text)
    _add(
        work, accepted, statement, source=FactSource.AGENT, accepted=statement.prompt, prompt=proposal.prompt
    )
    work.proposal = None


def _option(proposal: str, label: str) -> str | None:
    """The sentence of ``proposal`` that lays out option ``label``."""
    chosen = [s for s in sentences(proposal, 1) if re.match(rf"^\W*(?:option\s+)?{label}\b", s, re.I)]
    return chosen[0] if chosen else None


# An instruction ("add a soak test for that") asks for work; it does not answer a question.
_INSTRUCTS = re.compile(
    r"^\W*(?:please\s+|pls\s+|now\s+|then\s+|ok,?\s+|so\s+)?(?:add|run|make|fix|use|update|remove|delete|"
    r"create|write|move|rename|change|check|try|test|implement|refactor|build|deploy|revert|commit|push|"
    r"set|put|go|do|look|find|investigate|debug|show|open|read|start|stop|continue|finish|wire|hook|bump|"
    r"merge|rebase|install|drop|replace|split|extract|can you|could you|let'?s)\b",
    re.IGNORECASE,
)


def _reply(work: _Digest, words: str, statement: Statement) -> None:
    """The user's next message after the agent asked something is the likely answer (a reply,
    whatever its words): kept beside the question, which stays open until something on its subject
    closes it."""
    reply = words.strip()
    if not reply or reply.endswith("?") or statement.prompt is None:
        return
    for index, fact in enumerate(work.facts):
        asked_before = fact.prompt == statement.prompt - 1 and fact.source is FactSource.AGENT
        open_question = fact.kind is FactKind.QUESTION and fact.status is FactStatus.ACTIVE
        if open_question and asked_before and fact.answer is None:
            work.facts[index] = fact.model_copy(
                update={"answer": snippet(reply, ENDED_BY_CHARS), "answer_prompt": statement.prompt}
            )


def _take_report(work: _Digest, statement: Statement) -> None:
    """A turn's final agent message: its labelled facts, its most specific sentences as findings, its
    proposal awaiting the user's reply, and the latest report of where things stand."""
    told = [s for s in sentences(statement.text) if has_content(s)]
    labelled = set()
    for candidate in extract(statement.text, Role.AGENT):
        if candidate.kind is not FactKind.FILE and has_content(candidate.text):
            _add(work, candidate, statement)
            labelled.add(candidate.text)
    concluded = [s for s in told if _concludes(s)]
    ranked = sorted(concluded, key=lambda s: salience(s).score, reverse=True)
    whole = " ".join(concluded)  # what it asks is a question of its own, not part of its report
    if concluded and len(whole) <= FACT_CHARS and salience(whole).score >= CONCLUSION_FLOOR:
        # A short report is one finding: its sentences explain each other.
        _add(work, Candidate(FactKind.FINDING, whole, CONCLUSION), statement)
    else:
        for sentence in ranked[:CONCLUSIONS_PER_TURN]:
            if salience(sentence).score >= CONCLUSION_FLOOR and sentence not in labelled:
                _add(work, Candidate(FactKind.FINDING, sentence, CONCLUSION), statement)
    for sentence in told:
        _answers(work, sentence, statement, sure=False)
    # (a recommendation among options counts, however little it says alone: "I'd go with A.")
    proposing = [
        s
        for s in sentences(statement.text)
        if _PROPOSING.search(s) and not _INTENT.match(s) and (s in told or _RECOMMENDS.search(s))
    ]
    # What it asks the user (not a proposal): an open question the user's next message may answer.
    for sentence in told:
        if sentence.endswith("?") and sentence not in proposing:
            _add(work, Candidate(FactKind.QUESTION, sentence, ASKED), statement)
    work.proposal = (
        Fact(
            kind=FactKind.DECISION,
            text=snippet(" ".join(proposing), FACT_CHARS) or "",
            source=FactSource.AGENT,
            prompt=statement.prompt,
            at=statement.at,
        )
        if proposing
        else None
    )
    if ranked:
        best = [s for s in concluded if s in ranked[:REPORT_SENTENCES]]
        work.report = Fact(
            kind=FactKind.FINDING,
            text=snippet(" ".join(best), REPORT_CHARS) or "",
            source=FactSource.AGENT,
            prompt=statement.prompt,
            at=statement.at,
        )


# What the agent is about to do is no conclusion: "Let me check …", "I'll now …", "Next I …:".
_INTENT = re.compile(
    r"^\W*(?:let me|let's|i'?ll|i will|i'?m going to|i am going to|now i|next,? i|first,? i|i need to|"
    r"i should|going to)\b",
    re.IGNORECASE,
)
CONCLUSION = "conclusion"  # a finding's detail: the agent's report, not labelled by what it says
CONCLUSION_FLOOR = 1.2


def _concludes(sentence: str) -> bool:
    """A statement of what is (or was done), not an intention, a question or a list's lead-in."""
    text = sentence.strip()
    return not (text.endswith((":", "?")) or _INTENT.match(text))


def _answers(work: _Digest, text: str, statement: Statement, *, sure: bool) -> None:
    """A sentence on an open question's subject (rare terms in common) answers it: the user's own
    statement closes it; the agent's, unless it says it resolves, is kept beside it as a possible
    answer. A sentence sharing none of its rare terms never closes it."""
    said = term_set(text)
    if not said:
        return
    for index, fact in enumerate(work.facts):
        if fact.kind is not FactKind.QUESTION or fact.status is not FactStatus.ACTIVE:
            continue
        if statement.prompt is not None and fact.prompt is not None:
            # the agent's reply in the same turn may answer what the user asked; nothing answers itself
            same_turn = not sure and fact.source is FactSource.PROMPT and fact.prompt == statement.prompt
            if fact.prompt >= statement.prompt and not same_turn:
                continue
        asked = key_terms(fact.text)
        shared = said & asked
        # the user's own later word on any of its terms is a likely answer, shown beside it
        mentioned = said & term_set(fact.text) if sure else shared
        if not mentioned or fact_key(FactKind.QUESTION, text) == fact_key(FactKind.QUESTION, fact.text):
            continue
        enough = len(shared) >= min(2, len(asked)) and _subject_weight(shared) >= CLOSE_WEIGHT
        if enough and sure and visibly_linked(fact.text, text):
            _end(work, index, FactStatus.CLOSED, text, statement)
        elif _subject_weight(mentioned) >= (CANDIDATE_WEIGHT if sure else CLOSE_WEIGHT) and (
            fact.answer is None or enough
        ):
            work.facts[index] = fact.model_copy(
                update={"answer": snippet(text, ENDED_BY_CHARS), "answer_prompt": statement.prompt}
            )


_WORD = re.compile(r"[^\W\d_]{3,}", re.UNICODE)


def visibly_linked(question: str, answer: str) -> bool:
    """Whether a reader sees what links an answer to its question: a word of three letters or more,
    not everyday talk, in both (as written, or as the same word with another ending: "policy" and
    "policies"; an identifier, URL or path whole). Shown as answered, the two must be seen to belong
    together."""
    return bool(_link_words(question) & _link_words(answer))


def _link_words(text: str) -> set[str]:
    """Its words as a reader links them: an identifier (``stg_events``, ``charges.version``), URL,
    path or address is one word, not its pieces; other words as terms."""
    tokens = text.split()
    whole = {m.group(0).lower() for t in tokens if (m := _IDENTIFIER_LIKE.search(t))}
    rest = " ".join(t for t in tokens if not _IDENTIFIER_LIKE.search(t))
    # the terms the rest of the digest uses (everyday words out, lightly stemmed)
    return whole | {t for w in _WORD.findall(rest) if w.lower() not in GENERIC_LINK and (t := _term_of(w))}


# A path, dotted or snake name, key=value, URL or address: read as one word.
_IDENTIFIER_LIKE = re.compile(r"[\w.-]*[A-Za-z][\w-]*[/_.:=#@][\w./:=#@-]*\w|[a-z]+[A-Z]\w*")
REPLY_CHARS = 240  # a message this short is one reply, whatever its sentences
CLOSE_WEIGHT = 0.7  # how telling the terms a question and its answer share must be, added up
CANDIDATE_WEIGHT = 0.4  # the user's own sentence on its subject: kept beside it as the likely answer
CUE_CLOSE_WEIGHT = 0.5  # the same, for a sentence that says it answers


def _subject_weight(terms: frozenset[str] | set[str]) -> float:
    """How much shared terms say two sentences are on one subject: rare in coding talk and in
    English alike ("file" says nothing, "country" a little, "soak" much)."""
    model = background()
    return sum(model.subject(t) for t in terms)


def _mark_summarized(work: _Digest, statement: Statement) -> None:
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


def _add(
    work: _Digest,
    candidate: Candidate,
    statement: Statement,
    *,
    source: FactSource | None = None,
    accepted: int | None = None,
    prompt: int | None = None,
) -> None:
    limit = REMEMBER_CHARS if candidate.kind is FactKind.REMEMBERED else FACT_CHARS
    text = candidate.text if candidate.kind is FactKind.REMEMBERED else snippet(candidate.text, limit)
    if candidate.kind is FactKind.FILE and text:
        text = project_file(text, work.roots)
        if text and candidate.detail == FileAction.MENTIONED.value and not names_a_file(text):
            return  # a directory or a route named in passing
    if not text or not text.strip():
        return
    if candidate.closes:
        _close(work, text, statement)
        if len(content_words(text)) < _GENERIC_CLOSE_WORDS:
            return  # "that's fixed now": closes, tells nothing on its own
    key = fact_key(candidate.kind, text)
    for index, fact in enumerate(work.facts):
        if (fact.kind is FactKind.FILE) != (candidate.kind is FactKind.FILE):
            continue
        known = fact_key(fact.kind, fact.text)
        same = known == key
        grows = fact.text.endswith("…") and key.startswith(fact_key(fact.kind, fact.text[:-1]))
        # The same finding said in part and in whole ("Turns out X." and "Turns out X. So Y."): one fact.
        part = candidate.kind is FactKind.FINDING and fact.kind is FactKind.FINDING and _part_of(key, known)
        if not (same or grows or part):
            continue
        longer = text if grows or (part and len(key) > len(known)) else fact.text
        restated = _restated(fact, candidate, statement, longer)
        if candidate.kind is FactKind.DECISION and fact.kind in (FactKind.FINDING, FactKind.SAID):
            # what was a report or a remark is now a choice (the user accepted it)
            restated = restated.model_copy(
                update={"kind": FactKind.DECISION, "detail": None, "accepted_prompt": accepted}
            )
        work.facts[index] = restated
        return
    if candidate.kind is FactKind.DECISION:
        _supersede(work, candidate, text, statement)
    choosing = candidate.kind in (FactKind.DECISION, FactKind.SAID, FactKind.CONSTRAINT, FactKind.NEXT_STEP)
    if (source or statement.source) in _CHOOSERS and (choosing or candidate.kind is FactKind.FINDING):
        # a finding replaces a choice only by setting its value aside ("the CSV path is gone")
        _supersede_by_value(work, text, statement, dismissal_only=not choosing)
    if statement.source is FactSource.PROMPT and candidate.kind is not FactKind.FILE:
        _supersede_quantity(work, text, statement)
    if (source or statement.source) in _CHOOSERS and candidate.kind is not FactKind.FILE:
        _supersede_by_change(work, text, statement)
    work.facts.append(
        Fact(
            kind=candidate.kind,
            text=text,
            source=source or statement.source,
            prompt=prompt if prompt is not None else statement.prompt,
            at=statement.at,
            detail=candidate.detail,
            accepted_prompt=accepted,
        )
    )


# Whose decisions a later one of theirs may replace: the user's, and what the user accepted.
_CHOOSERS = (FactSource.PROMPT, FactSource.AGENT)
# Whose recorded choices a later statement may replace: theirs, and the agent's own summaries'.
_REPLACEABLE = (*_CHOOSERS, FactSource.AGENT_DIGEST, FactSource.COMPACTION_SUMMARY)
SUPERSEDE_SHARED = 2  # rare topic terms a newer choice shares with the one it replaces
SUPERSEDE_OVERLAP = 0.5  # and the share of the shorter one's rare terms they are


def _supersede_by_value(
    work: _Digest, text: str, statement: Statement, *, dismissal_only: bool = False
) -> None:
    """A later choice on the same subject (two or more rare terms in common) that names a different
    value (a rare term or specific token of its own, the older one too) replaces it, whatever words
    say so. Rules are not replaced this way; a question is no choice."""
    if text.rstrip().endswith("?") or statement.prompt is None:
        return
    new = rare_terms(text)
    new_values = new | {t.lower() for t in specific_tokens(text)}
    for index, fact in enumerate(work.facts):
        if fact.kind not in (FactKind.DECISION, FactKind.SAID) or fact.status is not FactStatus.ACTIVE:
            continue
        if fact.source not in _REPLACEABLE or fact.text.rstrip().endswith("?"):
            continue
        if fact.kind is FactKind.SAID and fact.source is not FactSource.PROMPT:
            continue
        when = fact.last_prompt or fact.prompt
        if when is None or when >= statement.prompt:
            continue
        old = rare_terms(fact.text)
        old_values = old | {t.lower() for t in specific_tokens(fact.text)}
        shared = len(new & old)
        same_subject = shared >= SUPERSEDE_SHARED and shared / min(len(new), len(old)) >= SUPERSEDE_OVERLAP
        other_value = bool(new_values - old_values) and bool(old_values - new_values)
        chosen = fact.kind is FactKind.DECISION or _is_choice(fact.text)
        if dismissal_only:
            replaced = not _RULE_LIKE.search(fact.text) and _dismisses(text, fact.text, strict=True)
        else:
            replaced = (
                (same_subject and other_value and chosen)
                or _renumbers(text, fact.text)
                or (not _RULE_LIKE.search(fact.text) and _dismisses(text, fact.text))
            )
        if replaced:
            _end(work, index, FactStatus.SUPERSEDED, text, statement)


# The grammar of a change: "switching the analyzer to X", "move the outbox to Y", "put it in Z instead".
_CHANGE = re.compile(
    r"\b(?:switch(?:ed|ing)?|mov(?:e|ed|ing)|migrat(?:e|ed|ing)|chang(?:e|ed|ing)|swap(?:ped|ping)?)\b"
    r"[^.;:!?]{0,80}?\b(?:to|over to|onto)\b|\binstead\b|\brather than\b"
    r"|\b(?:replac(?:e|ed|es|ing)|swap(?:s|ped|ping)?)\b[^.;:!?]{1,60}?\b(?:with|by|for)\b",
    re.IGNORECASE,
)
CHANGE_RARITY = 0.8  # a term two sentences share that names one subject ("the outbox")
_SET_ASIDE_NAMED = re.compile(r"\b(?:instead of|rather than)\s+([^.;:!?]{1,80})", re.IGNORECASE)
# "replaced X with Y", "swapped X for Y": X is what it sets aside.
_REPLACED_NAMED = re.compile(
    r"\b(?:replac(?:e|ed|es|ing)|swap(?:s|ped|ping)?)\s+([^.;:!?]{1,60}?)\s+(?:with|by|for)\b", re.IGNORECASE
)
# "X -> Y", "X → Y": a change when Y is a value ("node:18 -> node:20", "parquet → csv"); not a
# measurement ("1.8 s -> 240 ms") nor a result ("mkdocs → zero warnings").
_ARROW = re.compile(r"([^\s,;(]+)\s*(?:->|→|=>)\s*([^\s,;)]+)")


def _arrows(text: str) -> list[str]:
    """The values an arrow says were changed from."""
    return [
        left
        for left, right in _ARROW.findall(text)
        if not left[:1].isdigit() and not right[:1].isdigit() and _values(right.strip(".`'\""))
    ]


_PART = re.compile(r"[a-z][a-z0-9]{4,}")


def _supersede_by_change(work: _Digest, text: str, statement: Statement) -> None:
    """A sentence that says it changes something ("I'm switching the German analyzer to
    `hyphenation_decompounder`", "put the outbox in their Postgres instead") replaces the latest
    earlier choice it shares a telling term with (one rare in coding talk and English, or a part of
    an identifier: ``dictionary_decompounder`` → ``hyphenation_decompounder``), when each names a
    value the other does not. A report that names what it replaced ("swapped X for Y", "X -> Y")
    replaces the choice naming X, however little else the two share. Rules stay."""
    arrows = _arrows(text)
    if statement.prompt is None or text.rstrip().endswith("?") or not (_CHANGE.search(text) or arrows):
        return
    model = background()
    new = rare_terms(text)
    new_values = new | {t.lower() for t in specific_tokens(text)}
    new_parts = _identifier_parts(text)
    # "X rather than Y", "X instead of Y": what it sets aside is named, and an earlier choice is
    # replaced only if it speaks of that ("in a dependency rather than in middleware" leaves where the
    # keys are stored alone)
    named = [m.group(1) for m in _SET_ASIDE_NAMED.finditer(text)]
    replaced = [m.group(1) for m in _REPLACED_NAMED.finditer(text)] + arrows
    named += replaced
    aside = frozenset().union(*(term_set(n) for n in named)) if named else None
    aside_parts = set().union(*(_identifier_parts(n) for n in named)) if named else set()
    # what a replacing verb names ("swapped X for Y"), when an older choice names it too, is the very
    # value replaced ("instead of X" alone is not: reports use it to describe, "/a.css instead of /b.css")
    aside_values = {v for n in replaced for v in _values(n) if not v[:1].isdigit()}
    for index in range(len(work.facts) - 1, -1, -1):
        fact = work.facts[index]
        if fact.status is not FactStatus.ACTIVE or fact.source not in _REPLACEABLE:
            continue
        if fact.kind is not FactKind.DECISION and not (
            fact.kind is FactKind.SAID and fact.source is FactSource.PROMPT and _is_choice(fact.text)
        ):
            continue
        if _RULE_LIKE.search(fact.text) or (fact.last_prompt or fact.prompt or 0) >= statement.prompt:
            continue
        speaks_of_aside = aside is None or bool(
            aside & term_set(fact.text) or aside_parts & _identifier_parts(fact.text)
        )
        if not speaks_of_aside:
            continue
        old = rare_terms(fact.text)
        old_values = old | {t.lower() for t in specific_tokens(fact.text)}
        telling = (
            any(model.rarity(t) >= CHANGE_RARITY for t in new & old)
            or bool(new_parts & _identifier_parts(fact.text))
            or bool(aside_values & old_values)
        )
        # what it names as replaced is no longer a value of the new sentence ("parquet → csv")
        kept = new_values - (aside_values & old_values)
        if telling and kept - old_values and old_values - kept:
            _end(work, index, FactStatus.SUPERSEDED, text, statement)
            return


@lru_cache(maxsize=8192)  # every older fact is read again for each new message
def _values(text: str) -> frozenset[str]:
    """What a statement names: its rare terms (as terms and as written) and specific tokens,
    lower-case."""
    rare = rare_terms(text)
    written = {w for w in reversal.words(text) if _term_of(w) in rare}
    return rare | written | {t.lower() for t in specific_tokens(text)}


def _replaceable_choice(fact: Fact, before: int) -> bool:
    """A choice said before prompt ``before`` that a later one may replace: a decision, or the
    user's own remark (a question or a rule the classifier named is no choice)."""
    return (
        fact.status is FactStatus.ACTIVE
        and fact.source in _REPLACEABLE
        and (
            fact.kind is FactKind.DECISION
            or (fact.kind is FactKind.SAID and fact.source is FactSource.PROMPT)
        )
        and not fact.text.rstrip().endswith("?")
        and (fact.last_prompt or fact.prompt or before) < before
    )


ONE_THOUGHT_CHARS = REPLY_CHARS  # a message this short with one decision is one choice


def _supersede_by_message(work: _Digest, message: str, statement: Statement) -> None:
    """A later message of the user's that sets aside what an earlier one chose ("pg is out then",
    "scrap the hand-rolled build") or takes up what it set aside ("skip the cache" → "add a proper
    cache layer"), and names a value of its own in a choice, replaces that earlier message's choices
    on the subject: the one naming the value, the others sharing a rare term with the new message,
    and, in a short message, its only decision. Judged over the whole message: a reversal is often
    said across sentences ("ok X is out then. lets move to Y")."""
    if statement.prompt is None:
        return
    said = [s for s in sentences(message) if not s.rstrip().endswith("?")]
    dismissed = set().union(*(reversal.set_aside(s) for s in said)) if said else set()
    adopted = set().union(*(reversal.taken_up(s) for s in said)) if said else set()
    if not (dismissed or adopted) or not any(
        _is_choice(s) or _INSTRUCTS.match(s) or _CHANGE.search(s) for s in said
    ):
        return
    text = " ".join(said)
    new_rare, new_values = rare_terms(text), _values(text)
    groups: dict[int, list[int]] = {}
    for index, fact in enumerate(work.facts):
        if fact.prompt is not None and _replaceable_choice(fact, statement.prompt):
            groups.setdefault(fact.prompt, []).append(index)
    for members in groups.values():
        linked = [i for i in members if _reverses(work.facts[i].text, dismissed, adopted)]
        if not linked:
            continue
        known = set().union(*(_values(work.facts[i].text) for i in members))
        if not {v for v in new_values - known if not v.isdigit()}:
            continue  # it names nothing new: a remark on the old value, not a change of it
        decisions = [i for i in members if work.facts[i].kind is FactKind.DECISION]
        short = sum(len(work.facts[i].text) for i in members) <= ONE_THOUGHT_CHARS
        for index in members:
            fact = work.facts[index]
            if index in linked or rare_terms(fact.text) & new_rare or (short and decisions == [index]):
                _end(work, index, FactStatus.SUPERSEDED, message, statement)


def _reverses(old: str, dismissed: set[str], adopted: set[str]) -> bool:
    """Whether a later message sets aside a value ``old`` chose (and did not itself set aside), or
    takes up one ``old`` set aside."""
    values, parts = _values(old), reversal.name_parts(old)
    old_aside = reversal.set_aside(old)
    if any(reversal.names(w, values, parts) and w not in old_aside for w in dismissed):
        return True
    # what it set aside must be one of its values ("skip HDR"), not an everyday word ("not a tool")
    telling_aside = {s for s in old_aside if s in values or s in parts}
    return any(reversal.names(s, {a}, set()) for s in telling_aside for a in adopted)


def _supersede_removed(work: _Digest, packages: set[str], statement: Statement) -> None:
    """A package the agent uninstalls (``npm remove esbuild``, ``pip uninstall celery``) is no longer
    the choice an earlier statement made of it: that choice is superseded by the command."""
    if not packages or statement.prompt is None:
        return
    for index, fact in enumerate(work.facts):
        if not _replaceable_choice(fact, statement.prompt) or _RULE_LIKE.search(fact.text):
            continue
        named = set(reversal.words(fact.text)) | {t.lower() for t in specific_tokens(fact.text)}
        gone = (packages & named) - reversal.set_aside(fact.text)
        if gone:
            _end(work, index, FactStatus.SUPERSEDED, statement.text, statement)


def _identifier_parts(text: str) -> set[str]:
    """The parts of its snake, kebab or dotted names: ``dictionary_decompounder`` → decompounder …"""
    parts: set[str] = set()
    for name in re.findall(r"\b\w+(?:[_.-]\w+)+\b", text):
        parts |= set(_PART.findall(name.lower()))
    return parts


# Grammar that sets something aside: "no X", "forget X", "X is too slow", "scrap X", "not X".
_DISMISS = re.compile(
    r"(?:no|not|never|forget|scrap|drop|ditch|nvm|nevermind|instead|rather|replace|don'?t|dont|nope)",
    re.IGNORECASE,
)
# The agent's verbs that set a value aside. Not "instead"/"rather": its reports use them to describe
# ("resolves to /a.css instead of /b/a.css"), and a change it makes is read by _supersede_by_change.
_SET_ASIDE = re.compile(r"(?:scrap(?:ped)?|drop(?:ped)?|ditch(?:ed)?|replaced?|removed?)", re.IGNORECASE)
# A sentence with the grammar of a rule is not set aside by a later "no …" on its subject.
_RULE_LIKE = re.compile(
    r"\b(?:must|mustn'?t|has to|have to|needs? to|can'?t|cannot|never|always|only|should(?:n'?t)?|"
    r"not allowed|required)\b",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)?")
SUBJECT_SHARED = 0.5  # how telling the terms a newer statement shares with an older one must be


def _new_value(new: str, old: str) -> bool:
    """The newer sentence names something the older did not: a telling term, a token or a number."""
    model = background()
    old_terms = term_set(old)
    fresh = [t for t in term_set(new) - old_terms if model.rarity(t) >= SUBJECT_SHARED]
    tokens = {t.lower() for t in specific_tokens(new)} - {t.lower() for t in specific_tokens(old)}
    return bool(fresh or tokens)


def _dismisses(new: str, old: str, *, strict: bool = False) -> bool:
    """A later sentence on the same subject that sets the older one's value aside ("no jwt", "forget
    redis", "offset is too slow") and names something new."""
    shared = term_set(new) & term_set(old)
    if _subject_weight(shared) < SUBJECT_SHARED or not _new_value(new, old):
        return False
    words = [(m.group(0).lower(), _term_of(m.group(0))) for m in _WORD_TOKEN.finditer(new)]
    model = background()
    # "no webpack" again after "no webpack, use esbuild" agrees with it: no reversal
    already_aside = {_term_of(w) for w in reversal.set_aside(old)}
    for at, (_, term) in enumerate(words):
        # what is set aside is a value ("no redis"), not an everyday verb ("never run concurrently")
        if term not in shared or model.rarity(term) < DISMISSED_RARITY or term in already_aside:
            continue
        before = [w for w, _ in words[max(0, at - DISMISS_REACH) : at]]
        after = " ".join(w for w, _ in words[at + 1 : at + 4])
        # the agent's prose says "not" and "no" of everything: a report sets aside only by a verb
        dismissal = _SET_ASIDE if strict else _DISMISS
        if any(dismissal.fullmatch(w) for w in before) and "if" not in before:
            return True
        if _SET_ASIDE_AFTER.match(after):
            return True
    return False


_WORD_TOKEN = re.compile(r"[^\W_][\w'\u2019.-]*", re.UNICODE)
DISMISS_REACH = 3  # words before the older value a dismissal may stand
DISMISSED_RARITY = 0.3  # how telling the term a dismissal sets aside must be
# After the older value: "X is too slow", "X is out", "X isn't …", "X won't …".
_SET_ASIDE_AFTER = re.compile(
    r"^(?:[\w-]+ )?(?:is|are|was) (?:too|out|gone|dead|overkill)\b|^(?:isn'?t|aren'?t|won'?t)\b"
)


def _term_of(word: str) -> str | None:
    found = terms_of(word)
    return found[0] if found else None


def _renumbers(new: str, old: str) -> bool:
    """The same subject with another number: "keep the retry count at 3" → "make it 5 retries"."""
    old_numbers = set(_NUMBER.findall(old))
    new_numbers = set(_NUMBER.findall(new))
    if not old_numbers or not (new_numbers - old_numbers):
        return False
    shared = term_set(new) & term_set(old)
    return _subject_weight(shared) >= SUBJECT_SHARED and (_is_choice(new) or bool(_INSTRUCTS.match(new)))


_QUANTITY = re.compile(r"(?<![\w.])(\d[\d,.]*)\s*([^\W\d_][\w-]*)", re.UNICODE)


def quantities(text: str) -> dict[str, str]:
    """``2000 core-hours`` → {"core-hour": "2000"}: each amount by the unit it counts."""
    found = {}
    for number, unit in _QUANTITY.findall(text):
        term = term_set(unit)
        if term:
            found[next(iter(term))] = number.rstrip(".,")
    return found


def _supersede_quantity(work: _Digest, text: str, statement: Statement) -> None:
    """The same quantity with a new amount ("2000 core-hours" → "5000 core-hours", "retry 3 times"
    → "retry 5 times") replaces the user's older statement of it, rule or choice alike, when the unit
    is not everyday talk or the two share another rare term."""
    new = quantities(text)
    if not new or statement.prompt is None or text.rstrip().endswith("?"):
        return
    rare = rare_terms(text)
    for index, fact in enumerate(work.facts):
        if fact.status is not FactStatus.ACTIVE or fact.source is not FactSource.PROMPT:
            continue
        if (
            fact.kind in (FactKind.FILE, FactKind.QUESTION)
            or (fact.last_prompt or fact.prompt or 0) >= statement.prompt
        ):
            continue
        old = quantities(fact.text)
        changed = [u for u in new.keys() & old.keys() if new[u] != old[u]]
        if not changed:
            continue
        other = (rare & rare_terms(fact.text)) - set(changed)
        if other or any(background().rarity(u) >= 0.5 for u in changed):
            _end(work, index, FactStatus.SUPERSEDED, text, statement)


_CHOICE = re.compile(
    r"\b(?:use|using|go with|going with|pick|choose|switch|move|keep|set|make|put|store|run|deploy|"
    r"stay|stick|want|should|must|will|let'?s|we'?ll|i'?ll|go|goes)\b",
    re.IGNORECASE,
)


def _is_choice(text: str) -> bool:
    """A sentence that states how something is or will be (not a report of what happened)."""
    return bool(_CHOICE.search(text))


PART_CHARS = 30

_STANDING = frozenset({FactKind.CONSTRAINT, FactKind.DECISION})
STANDING_RECENCY = 0.3


def _part_of(a: str, b: str) -> bool:
    shorter, longer = sorted((a, b), key=len)
    return len(shorter) >= PART_CHARS and shorter in longer


def _restated(fact: Fact, candidate: Candidate, statement: Statement, text: str) -> Fact:
    again = statement.prompt is None or statement.prompt != (fact.last_prompt or fact.prompt)
    detail = fact.detail
    if fact.kind is FactKind.FILE and candidate.detail:
        detail = _actions(detail, candidate.detail)
    elif candidate.detail and _ACTION_RANK.get(candidate.detail, 0) > _ACTION_RANK.get(detail or "", 0):
        detail = candidate.detail
    update: dict[str, object] = {"text": text, "detail": detail}
    if again:
        update |= {"seen": fact.seen + 1, "last_prompt": statement.prompt or fact.last_prompt}
    return fact.model_copy(update=update)


def _actions(done: str | None, new: str) -> str:
    """Everything done to a file, strongest last; written or edited again after a delete revives it."""
    seen = [a for a in (done or "").split(",") if a]
    if new in (FileAction.EDITED.value, FileAction.WRITTEN.value):
        seen = [a for a in seen if a != FileAction.DELETED.value]
    if new not in seen:
        seen.append(new)
    return ",".join(sorted(seen, key=lambda a: _ACTION_RANK.get(a, 5)))


def strongest_action(detail: str | None) -> str:
    actions = [a for a in (detail or "").split(",") if a]
    return max(actions, key=lambda a: _ACTION_RANK.get(a, 5)) if actions else ""


def _supersede(work: _Digest, candidate: Candidate, text: str, statement: Statement) -> None:
    words = content_words(text)
    subject = _subject(text)
    # "Scratch that": it takes back something just said; one shared word is enough to know what.
    scratch = bool(_SCRATCH.search(text))
    best: tuple[float, int] | None = None
    for index, fact in enumerate(work.facts):
        if fact.kind is not FactKind.DECISION or fact.status is not FactStatus.ACTIVE:
            continue
        old = content_words(fact.text)
        if candidate.replaced and any(term in old for term in candidate.replaced):
            _end(work, index, FactStatus.SUPERSEDED, text, statement)
            continue
        shared = len(words & old)
        overlap = shared / max(1, min(len(words), len(old)))
        other = _subject(fact.text)
        same_subject = bool(subject and other) and len(subject & other) / min(len(subject), len(other)) >= 0.5
        corrects = candidate.corrects and (overlap >= 0.34 or shared >= 2 or (scratch and shared >= 1))
        if same_subject or corrects:
            score = overlap + (1.0 if same_subject else 0.0)
            if best is None or score >= best[0]:
                best = (score, index)
    if best is not None:
        _end(work, best[1], FactStatus.SUPERSEDED, text, statement)
    elif scratch:  # nothing shares a word: the user's own latest decision that names a value
        said = [
            i
            for i, f in enumerate(work.facts)
            if f.kind is FactKind.DECISION
            and f.status is FactStatus.ACTIVE
            and f.source is FactSource.PROMPT
            and rare_terms(f.text)
        ]
        if said:
            _end(work, said[-1], FactStatus.SUPERSEDED, text, statement)


def _subject(text: str) -> set[str]:
    """What a decision is for ("… for the job queue"): its telling words."""
    words: set[str] = set()
    for match in _SUBJECT.finditer(text):
        words |= content_words(match.group(1))
    return words - _GENERIC_SUBJECTS


_TOPIC = re.compile(r"^\W*(?:about|re|regarding|as for|on) ([\w /&'-]{1,40}):", re.IGNORECASE)


def _close(work: _Digest, text: str, statement: Statement) -> None:
    """A sentence that says it answers ("it turns out …", "X says …") closes the open question it
    shares the most telling key terms with; "fixed" or "found it" alone closes nothing."""
    if is_tentative(text):  # "the issue might be X; let me check:" is a guess, not an answer yet
        return
    said = term_set(text)
    # "re HDR: …" answers what it names: a question on another subject is not its to close
    named = _TOPIC.match(text)
    topic = term_set(named.group(1)) if named else frozenset()
    best: tuple[float, int] | None = None
    for index, fact in enumerate(work.facts):
        if fact.kind is not FactKind.QUESTION or fact.status is not FactStatus.ACTIVE:
            continue
        asked = key_terms(fact.text)
        shared = said & asked
        weight = _subject_weight(shared)
        if topic and not topic & term_set(fact.text):
            continue
        if (
            shared
            and weight >= CUE_CLOSE_WEIGHT
            and (best is None or weight > best[0])
            and visibly_linked(fact.text, text)
        ):
            best = (weight, index)
    if best is not None:
        _end(work, best[1], FactStatus.CLOSED, text, statement)


def _end(work: _Digest, index: int, status: FactStatus, by: str, statement: Statement) -> None:
    ended = work.facts[index]
    work.facts[index] = ended.model_copy(
        update={"status": status, "ended_by": _excerpt(by, ended.text), "ended_prompt": statement.prompt}
    )


def _excerpt(by: str, subject: str) -> str:
    """What ended a fact, cut to ``ENDED_BY_CHARS`` around where it speaks of the fact's subject."""
    flat = snippet(by, 10 * ENDED_BY_CHARS) or ""
    if len(flat) <= ENDED_BY_CHARS:
        return flat
    # where it first names a word a reader links to the fact, else a term of the fact (a whole word:
    # "use" is no hit inside "because")
    linking = _link_words(subject)
    found = [m.start() for m in re.finditer(r"\S+", flat) if _link_words(m.group(0)) & linking]
    if not found:
        shared = term_set(flat) & term_set(subject)
        found = [m.start() for m in _WORD_TOKEN.finditer(flat) if _term_of(m.group(0)) in shared]
    start = max(0, min(found) - ENDED_BY_CHARS // 3) if found else 0
    if start == 0:
        return snippet(flat, ENDED_BY_CHARS) or ""
    return "…" + (snippet(flat[start:], ENDED_BY_CHARS - 1) or "")


def in_project(path: str, roots: Iterable[str]) -> bool:
    """A relative path, or one under a project root: the project's own file, not one elsewhere."""
    if not path.startswith(("/", "~")):
        return True
    return any(path.startswith(root.rstrip("/") + "/") for root in roots if root)


TENTATIVE_WEIGHT = 0.4
ANSWER_WEIGHT = 0.6  # a sentence that answered a question asked: the answer outlives the asking
ANSWER_KEY_CHARS = 60


def _mark_answers(facts: list[Fact]) -> list[Fact]:
    """Each sentence that closed a question remembers the question's prompt, so it keeps its rank
    after the closed question itself is dropped."""
    closers = {
        key[:ANSWER_KEY_CHARS]: f.prompt or 0
        for f in facts
        if f.kind is FactKind.QUESTION and f.status is FactStatus.CLOSED and f.ended_by
        if len(key := f.ended_by.strip("…").strip()) >= PART_CHARS
    }
    if not closers:
        return facts
    marked = []
    for fact in facts:
        if fact.kind is not FactKind.QUESTION and fact.answers_prompt is None:
            asked = next((p for key, p in closers.items() if key in fact.text), None)
            if asked is not None:
                fact = fact.model_copy(update={"answers_prompt": asked})
        marked.append(fact)
    return marked


def score(fact: Fact, prompts: int, roots: Iterable[str] = ()) -> float:
    """How useful a fact is to keep: recent, repeated, said by the user, a file worked on, an
    answer to a question asked."""
    when = fact.last_prompt or fact.prompt
    recency = (when / prompts) if when and prompts else 0.5
    repetition = 0.15 * min(fact.seen - 1, 4)
    if fact.kind is FactKind.FILE:  # what was done to it, and whether it is the project's own
        own = OWN_FILE if in_project(fact.text, roots) else 0.0
        # What was done to it outweighs how often it was named: an edit beats five mentions.
        done = 0.6 * _FILE_RANK.get(strongest_action(fact.detail), 0)
        return recency + min(repetition, 0.3) + done + own
    if fact.kind is FactKind.SAID:  # the user's plain words: by what they say, wherever said
        return salience(fact.text, prompt=fact.prompt, prompts=prompts, seen=fact.seen).score
    if fact.source is FactSource.AGENT:  # the user saying it again is emphasis; the agent's prose
        repetition = 0.0  # repeating a sentence word for word is boilerplate
    if fact.kind in _STANDING:  # a rule or a choice holds until changed, however old
        recency *= STANDING_RECENCY
    what = salience(fact.text).score if fact.kind is not FactKind.REMEMBERED else 1.0
    labelled = 0.0 if fact.detail in (CONCLUSION, ASKED) else 0.4
    if fact.kind is FactKind.FINDING and is_tentative(fact.text):
        labelled -= TENTATIVE_WEIGHT  # a guess the agent went on to check: the check's outcome counts
    answered = -0.5 if fact.kind is FactKind.QUESTION and fact.answer else 0.0  # likely no longer open
    answer = ANSWER_WEIGHT if fact.answers_prompt is not None else 0.0
    return recency + repetition + _SOURCE_WEIGHT[fact.source] + 0.5 * what + labelled + answered + answer


def _bound(work: _Digest, prompts: int, roots: Iterable[str]) -> None:
    """Each kind within its cap, ended facts within theirs, the whole within its size."""
    keep: list[Fact] = []
    work.facts = _mark_answers(work.facts)
    ended = [f for f in work.facts if f.status is not FactStatus.ACTIVE]
    for kind, cap in CAPS.items():
        active = [f for f in work.facts if f.kind is kind and f.status is FactStatus.ACTIVE]
        keep += _best(active, cap, prompts, roots)
    # Decisions and questions that ended say what changed; a plain remark the user took back, less.
    by_end = sorted(ended, key=lambda f: f.ended_prompt or 0)
    keep += [f for f in by_end if f.kind is not FactKind.SAID][-ENDED_CAP:]
    keep += [f for f in by_end if f.kind is FactKind.SAID][-ENDED_SAID_CAP:]
    size = sum(len(f.text) for f in keep)
    for kind in EVICT_ORDER:
        while size > MAX_DIGEST_CHARS:
            of_kind = [f for f in keep if f.kind is kind and f.status is FactStatus.ACTIVE]
            if not of_kind:
                break
            worst = min(of_kind, key=lambda f: score(f, prompts, roots))
            keep.remove(worst)
            size -= len(worst.text)
    order = {id(f): i for i, f in enumerate(work.facts)}
    work.evicted += sum(1 for f in work.facts if f.status is FactStatus.ACTIVE) - sum(
        1 for f in keep if f.status is FactStatus.ACTIVE
    )
    work.facts = sorted(keep, key=lambda f: order[id(f)])


def _best(facts: list[Fact], cap: int, prompts: int, roots: Iterable[str]) -> list[Fact]:
    if len(facts) <= cap:
        return facts
    return sorted(facts, key=lambda f: score(f, prompts, roots), reverse=True)[:cap]
