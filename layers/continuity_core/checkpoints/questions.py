"""Open questions and their answers in the rolling digest: a sentence that says it answers closes the
question it shares telling terms with (``close_question``); the user's own statement on a question's
subject closes it, the agent's is kept beside it as a likely answer (``note_answer``); the user's reply
to what the agent asked is kept beside the question (``note_reply``); and a sentence that closed a
question keeps the question's prompt (``mark_answers``), so it keeps its rank once the question is
dropped.
"""

from __future__ import annotations

import re

from continuity_core.checkpoints.digest_work import (
    ENDED_BY_CHARS,
    PART_CHARS,
    Statement,
    WorkingDigest,
    end_fact,
    fact_key,
    subject_weight,
    visibly_linked,
)
from continuity_core.extraction.salience import is_tentative, key_terms, term_set
from continuity_core.extraction.terms import snippet
from continuity_core.models.session_digest import Fact, FactKind, FactSource, FactStatus

CLOSE_WEIGHT = 0.7  # how telling the terms a question and its answer share must be, added up
CANDIDATE_WEIGHT = 0.4  # the user's own sentence on its subject: kept beside it as the likely answer
CUE_CLOSE_WEIGHT = 0.5  # the same, for a sentence that says it answers
ANSWER_KEY_CHARS = 60
_TOPIC = re.compile(r"^\W*(?:about|re|regarding|as for|on) ([\w /&'-]{1,40}):", re.IGNORECASE)


def close_question(work: WorkingDigest, text: str, statement: Statement) -> None:
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
        weight = subject_weight(shared)
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
        end_fact(work, best[1], FactStatus.CLOSED, text, statement)


def note_reply(work: WorkingDigest, words: str, statement: Statement) -> None:
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


def note_answer(work: WorkingDigest, text: str, statement: Statement, *, sure: bool) -> None:
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
        enough = len(shared) >= min(2, len(asked)) and subject_weight(shared) >= CLOSE_WEIGHT
        if enough and sure and visibly_linked(fact.text, text):
            end_fact(work, index, FactStatus.CLOSED, text, statement)
        elif subject_weight(mentioned) >= (CANDIDATE_WEIGHT if sure else CLOSE_WEIGHT) and (
            fact.answer is None or enough
        ):
            work.facts[index] = fact.model_copy(
                update={"answer": snippet(text, ENDED_BY_CHARS), "answer_prompt": statement.prompt}
            )


def mark_answers(facts: list[Fact]) -> list[Fact]:
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
