"""The rolling session digest: merge what a session said since the last checkpoint into what it had.

Rules (the digest itself is ``models/session_digest.py``, the extraction ``logic/sticky.py``):

- **Deduplicated.** A fact is its words (case, spacing and punctuation aside): said twice, it is one
  fact seen twice. A prompt cut short (a snippet ending in "…") merges into its full text when the
  live transcript brings it.
- **Superseded.** A decision that says it replaces another ("actually", "instead of Redis", "switch
  the queue to SQS", "scratch that") supersedes the active decision on the same subject (shared
  words, or the very option it names); a plain decision "use X for the queue" supersedes an earlier
  one for the same "for …" subject. The old one stays, marked, so the agent is told it changed.
- **Closed.** A finding that answers or resolves ("it turns out …", "that's fixed now", "answer to
  the earlier question: …") closes the open question it shares most words with (else, when it
  names no subject, the most recent one).
- **Ranked and bounded.** Each kind has a cap; beyond it the least useful go first (old, said once,
  from the agent's prose, files only read, files outside the project). Only the user's repeating
  counts as emphasis: the agent's prose saying a sentence again is boilerplate. Constraints and
  remembered facts go last.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache

from continuity_core.logic.sticky import (
    Candidate,
    FileAction,
    Role,
    content_words,
    decision,
    extract,
    tool_files,
)
from continuity_core.logic.terms import snippet
from continuity_core.models.session_digest import (
    Fact,
    FactKind,
    FactSource,
    FactStatus,
    PromptNote,
    SessionDigest,
)

FACT_CHARS = 320
REMEMBER_CHARS = 500
INSTRUCTION_CHARS = 4000
SUMMARY_CHARS = 1000
ENDED_BY_CHARS = 160
RECENT_PROMPTS = 5
CAPS = {
    FactKind.CONSTRAINT: 40,
    FactKind.DECISION: 16,
    FactKind.QUESTION: 10,
    FactKind.FINDING: 12,
    FactKind.REMEMBERED: 40,
    FactKind.FILE: 32,
    FactKind.NEXT_STEP: 6,
}
# A file of the project's own outranks any file elsewhere (another checkout, a home directory):
# above the most a file elsewhere can score (recency 1 + repetition 0.6 + edited 1.2).
OWN_FILE = 3.0
ENDED_CAP = 10  # superseded decisions and closed questions kept to say what changed
# Eviction order when the whole digest is over its size: constraints last.
EVICT_ORDER = (
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


@dataclass
class _Digest:
    facts: list[Fact] = field(default_factory=list)
    evicted: int = 0


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
    work = _Digest(list(base.facts), base.evicted)
    for statement in statements:
        for candidate in _candidates(statement):
            _add(work, candidate, statement)
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
    )


def _candidates(statement: Statement) -> list[Candidate]:
    if statement.tool:
        return tool_files(statement.text)
    if statement.kind is FactKind.DECISION:
        return [decision(statement.text.strip())]
    if statement.kind is not None:
        return [Candidate(statement.kind, statement.text.strip(), statement.detail)]
    return extract(statement.text, statement.role)


def _add(work: _Digest, candidate: Candidate, statement: Statement) -> None:
    limit = REMEMBER_CHARS if candidate.kind is FactKind.REMEMBERED else FACT_CHARS
    text = candidate.text if candidate.kind is FactKind.REMEMBERED else snippet(candidate.text, limit)
    if not text or not text.strip():
        return
    if candidate.closes:
        _close(work, text, statement)
        if len(content_words(text)) < _GENERIC_CLOSE_WORDS:
            return  # "that's fixed now": closes, tells nothing on its own
    key = fact_key(candidate.kind, text)
    for index, fact in enumerate(work.facts):
        if fact.kind is FactKind.FILE and candidate.kind is not FactKind.FILE:
            continue
        same = fact_key(fact.kind, fact.text) == key
        grows = fact.text.endswith("…") and key.startswith(fact_key(fact.kind, fact.text[:-1]))
        if not (same or grows):
            continue
        work.facts[index] = _restated(fact, candidate, statement, text if grows else fact.text)
        return
    if candidate.kind is FactKind.DECISION:
        _supersede(work, candidate, text, statement)
    work.facts.append(
        Fact(
            kind=candidate.kind,
            text=text,
            source=statement.source,
            prompt=statement.prompt,
            at=statement.at,
            detail=candidate.detail,
        )
    )


def _restated(fact: Fact, candidate: Candidate, statement: Statement, text: str) -> Fact:
    again = statement.prompt is None or statement.prompt != (fact.last_prompt or fact.prompt)
    detail = fact.detail
    if candidate.detail and _ACTION_RANK.get(candidate.detail, 0) > _ACTION_RANK.get(detail or "", 0):
        detail = candidate.detail
    update: dict[str, object] = {"text": text, "detail": detail}
    if again:
        update |= {"seen": fact.seen + 1, "last_prompt": statement.prompt or fact.last_prompt}
    return fact.model_copy(update=update)


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
    elif scratch:  # nothing shares a word: the user's own latest decision
        said = [
            i
            for i, f in enumerate(work.facts)
            if f.kind is FactKind.DECISION and f.status is FactStatus.ACTIVE and f.source is FactSource.PROMPT
        ]
        if said:
            _end(work, said[-1], FactStatus.SUPERSEDED, text, statement)


def _subject(text: str) -> set[str]:
    """What a decision is for ("… for the job queue"): its telling words."""
    words: set[str] = set()
    for match in _SUBJECT.finditer(text):
        words |= content_words(match.group(1))
    return words - _GENERIC_SUBJECTS


def _close(work: _Digest, text: str, statement: Statement) -> None:
    words = content_words(text)
    open_questions = [
        i for i, f in enumerate(work.facts) if f.kind is FactKind.QUESTION and f.status is FactStatus.ACTIVE
    ]
    best: tuple[int, int] | None = None
    for index in open_questions:
        shared = len(words & content_words(work.facts[index].text))
        if shared and (best is None or shared >= best[0]):
            best = (shared, index)
    if best is not None:
        _end(work, best[1], FactStatus.CLOSED, text, statement)
    elif open_questions and (len(words) < _GENERIC_CLOSE_WORDS or "question" in text.lower()):
        _end(work, open_questions[-1], FactStatus.CLOSED, text, statement)


def _end(work: _Digest, index: int, status: FactStatus, by: str, statement: Statement) -> None:
    work.facts[index] = work.facts[index].model_copy(
        update={"status": status, "ended_by": snippet(by, ENDED_BY_CHARS), "ended_prompt": statement.prompt}
    )


def in_project(path: str, roots: Iterable[str]) -> bool:
    """A relative path, or one under a project root: the project's own file, not one elsewhere."""
    if not path.startswith(("/", "~")):
        return True
    return any(path.startswith(root.rstrip("/") + "/") for root in roots if root)


def score(fact: Fact, prompts: int, roots: Iterable[str] = ()) -> float:
    """How useful a fact is to keep: recent, repeated, said by the user, a file worked on."""
    when = fact.last_prompt or fact.prompt
    recency = (when / prompts) if when and prompts else 0.5
    repetition = 0.15 * min(fact.seen - 1, 4)
    if fact.kind is FactKind.FILE:  # what was done to it, and whether it is the project's own
        own = OWN_FILE if in_project(fact.text, roots) else 0.0
        return recency + repetition + 0.3 * _ACTION_RANK.get(fact.detail or "", 0) + own
    if fact.source is FactSource.AGENT:  # the user saying it again is emphasis; the agent's prose
        repetition = 0.0  # repeating a sentence word for word is boilerplate
    return recency + repetition + _SOURCE_WEIGHT[fact.source]


def _bound(work: _Digest, prompts: int, roots: Iterable[str]) -> None:
    """Each kind within its cap, ended facts within theirs, the whole within its size."""
    keep: list[Fact] = []
    ended = [f for f in work.facts if f.status is not FactStatus.ACTIVE]
    for kind, cap in CAPS.items():
        active = [f for f in work.facts if f.kind is kind and f.status is FactStatus.ACTIVE]
        keep += _best(active, cap, prompts, roots)
    keep += sorted(ended, key=lambda f: f.ended_prompt or 0)[-ENDED_CAP:]
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
