"""One candidate fact merged into the working digest (``add_fact``): the same words said again are one
fact seen again, a snippet cut short grows into its full text, a finding said in part and in whole is
one finding; a new fact is appended after what it supersedes (``supersession.py``) or closes
(``questions.py``).
"""

from __future__ import annotations

from continuity_core.checkpoints.digest_work import PART_CHARS, Statement, WorkingDigest, fact_key
from continuity_core.checkpoints.questions import close_question
from continuity_core.checkpoints.ranking import ACTION_RANK
from continuity_core.checkpoints.supersession import (
    CHOOSERS,
    supersede_by_change,
    supersede_by_value,
    supersede_decision,
    supersede_quantity,
)
from continuity_core.extraction.paths import names_a_file, project_file
from continuity_core.extraction.sticky import Candidate, FileAction, content_words
from continuity_core.extraction.terms import snippet
from continuity_core.models.session_digest import Fact, FactKind, FactSource

FACT_CHARS = 320
REMEMBER_CHARS = 500
_GENERIC_CLOSE_WORDS = 3


def add_fact(
    work: WorkingDigest,
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
        close_question(work, text, statement)
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
        supersede_decision(work, candidate, text, statement)
    choosing = candidate.kind in (FactKind.DECISION, FactKind.SAID, FactKind.CONSTRAINT, FactKind.NEXT_STEP)
    if (source or statement.source) in CHOOSERS and (choosing or candidate.kind is FactKind.FINDING):
        # a finding replaces a choice only by setting its value aside ("the CSV path is gone")
        supersede_by_value(work, text, statement, dismissal_only=not choosing)
    if statement.source is FactSource.PROMPT and candidate.kind is not FactKind.FILE:
        supersede_quantity(work, text, statement)
    if (source or statement.source) in CHOOSERS and candidate.kind is not FactKind.FILE:
        supersede_by_change(work, text, statement)
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


def _part_of(a: str, b: str) -> bool:
    shorter, longer = sorted((a, b), key=len)
    return len(shorter) >= PART_CHARS and shorter in longer


def _restated(fact: Fact, candidate: Candidate, statement: Statement, text: str) -> Fact:
    again = statement.prompt is None or statement.prompt != (fact.last_prompt or fact.prompt)
    detail = fact.detail
    if fact.kind is FactKind.FILE and candidate.detail:
        detail = with_action(detail, candidate.detail)
    elif candidate.detail and ACTION_RANK.get(candidate.detail, 0) > ACTION_RANK.get(detail or "", 0):
        detail = candidate.detail
    update: dict[str, object] = {"text": text, "detail": detail}
    if again:
        update |= {"seen": fact.seen + 1, "last_prompt": statement.prompt or fact.last_prompt}
    return fact.model_copy(update=update)


def with_action(done: str | None, new: str) -> str:
    """Everything done to a file, strongest last; written or edited again after a delete revives it."""
    seen = [a for a in (done or "").split(",") if a]
    if new in (FileAction.EDITED.value, FileAction.WRITTEN.value):
        seen = [a for a in seen if a != FileAction.DELETED.value]
    if new not in seen:
        seen.append(new)
    return ",".join(sorted(seen, key=lambda a: ACTION_RANK.get(a, 5)))
