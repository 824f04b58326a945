"""Ranking and bounding the rolling digest: how useful a fact is to keep (``score``: recent, repeated,
said by the user, a file worked on in the project, an answer to a question asked), and each kind
within its cap, ended facts within theirs, the whole within its size (``bound``): beyond, the least
useful go first, constraints last.
"""

from __future__ import annotations

from collections.abc import Iterable

from continuity_core.checkpoints.digest_work import CONCLUSION, WorkingDigest
from continuity_core.checkpoints.questions import mark_answers
from continuity_core.extraction.salience import is_tentative, salience
from continuity_core.extraction.sticky import ASKED, FileAction
from continuity_core.models.session_digest import Fact, FactKind, FactSource, FactStatus

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
ACTION_RANK = {
    FileAction.EDITED.value: 4,
    FileAction.WRITTEN.value: 4,
    FileAction.MENTIONED.value: 3,
    FileAction.SYMBOL.value: 2,
    FileAction.READ.value: 1,
}
# For ranking files: worked on (edited, written) far above named (mentioned) or looked at (read).
_FILE_RANK = {**ACTION_RANK, FileAction.MENTIONED.value: 2}
_STANDING = frozenset({FactKind.CONSTRAINT, FactKind.DECISION})
STANDING_RECENCY = 0.3
TENTATIVE_WEIGHT = 0.4
ANSWER_WEIGHT = 0.6  # a sentence that answered a question asked: the answer outlives the asking


def strongest_action(detail: str | None) -> str:
    actions = [a for a in (detail or "").split(",") if a]
    return max(actions, key=lambda a: ACTION_RANK.get(a, 5)) if actions else ""


def in_project(path: str, roots: Iterable[str]) -> bool:
    """A relative path, or one under a project root: the project's own file, not one elsewhere."""
    if not path.startswith(("/", "~")):
        return True
    return any(path.startswith(root.rstrip("/") + "/") for root in roots if root)


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


def bound(work: WorkingDigest, prompts: int, roots: Iterable[str]) -> None:
    """Each kind within its cap, ended facts within theirs, the whole within its size."""
    keep: list[Fact] = []
    work.facts = mark_answers(work.facts)
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
