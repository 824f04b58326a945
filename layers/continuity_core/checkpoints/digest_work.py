"""What every step of the rolling digest works on: the statements ``roll`` merges, the working digest
they merge into, a fact's key, and ending a fact (superseded, closed) with what ended it.

Also the word reading the steps share: the terms that link a question to its answer as a reader
sees them (``visibly_linked``), and how telling shared terms are (``subject_weight``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache

from continuity_core.extraction.salience import background, term_set, terms_of
from continuity_core.extraction.sticky import Role
from continuity_core.extraction.terms import GENERIC_LINK, snippet
from continuity_core.models.session_digest import (
    CheckVerdict,
    Fact,
    FactKind,
    FactSource,
    FactStatus,
    FailingTest,
    PlanItem,
    ProjectCommand,
)

ENDED_BY_CHARS = 160
REPLY_CHARS = 240  # a message this short is one reply, whatever its sentences
PART_CHARS = 30
CONCLUSION = "conclusion"  # a finding's detail: the agent's report, not labelled by what it says
_KEY_WORDS = re.compile(r"\w+", re.UNICODE)
# An instruction ("add a soak test for that") asks for work; it does not answer a question.
INSTRUCTS = re.compile(
    r"^\W*(?:please\s+|pls\s+|now\s+|then\s+|ok,?\s+|so\s+)?(?:add|run|make|fix|use|update|remove|delete|"
    r"create|write|move|rename|change|check|try|test|implement|refactor|build|deploy|revert|commit|push|"
    r"set|put|go|do|look|find|investigate|debug|show|open|read|start|stop|continue|finish|wire|hook|bump|"
    r"merge|rebase|install|drop|replace|split|extract|can you|could you|let'?s)\b",
    re.IGNORECASE,
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
    rewound: int = 0  # a rewind: how many prompts before this point the user abandoned


@dataclass
class WorkingDigest:
    """The digest as ``roll`` builds it: each step changes it in place; ``roll`` makes the result."""

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
    checks: list[CheckVerdict] = field(default_factory=list)
    commands: list[ProjectCommand] = field(default_factory=list)
    steps: int = 0
    edited_step: int | None = None
    checked_step: int | None = None


@lru_cache(maxsize=8192)  # the same facts are keyed again for every statement merged
def fact_key(kind: FactKind, text: str) -> str:
    """Same words, same fact (files: the same path)."""
    if kind is FactKind.FILE:
        return "file:" + text.strip().rstrip("/")
    return " ".join(_KEY_WORDS.findall(text.lower()))


def end_fact(work: WorkingDigest, index: int, status: FactStatus, by: str, statement: Statement) -> None:
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
        found = [m.start() for m in WORD_TOKEN.finditer(flat) if term_of(m.group(0)) in shared]
    start = max(0, min(found) - ENDED_BY_CHARS // 3) if found else 0
    if start == 0:
        return snippet(flat, ENDED_BY_CHARS) or ""
    return "…" + (snippet(flat[start:], ENDED_BY_CHARS - 1) or "")


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
    return whole | {t for w in _WORD.findall(rest) if w.lower() not in GENERIC_LINK and (t := term_of(w))}


# A path, dotted or snake name, key=value, URL or address: read as one word.
_IDENTIFIER_LIKE = re.compile(r"[\w.-]*[A-Za-z][\w-]*[/_.:=#@][\w./:=#@-]*\w|[a-z]+[A-Z]\w*")


def subject_weight(terms: frozenset[str] | set[str]) -> float:
    """How much shared terms say two sentences are on one subject: rare in coding talk and in
    English alike ("file" says nothing, "country" a little, "soak" much)."""
    model = background()
    return sum(model.subject(t) for t in terms)


WORD_TOKEN = re.compile(r"[^\W_][\w'\u2019.-]*", re.UNICODE)


def term_of(word: str) -> str | None:
    found = terms_of(word)
    return found[0] if found else None
