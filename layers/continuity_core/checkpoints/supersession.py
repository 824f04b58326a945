"""When a later statement replaces an earlier choice in the rolling digest (the old one stays, marked
superseded, with what replaced it): a decision that says it corrects ("actually", "scratch that",
"instead of X") or is for the same "for …" subject (``supersede_decision``); a later choice on the same
subject naming another value, a new number, or one that sets the old value aside
(``supersede_by_value``); the same quantity with a new amount (``supersede_quantity``); a sentence
that says it changes something ("switching X to Y", "swapped X for Y", "X -> Y",
``supersede_by_change``); a later message that sets aside or takes up a value, read over the whole
message (``supersede_by_message``, with ``extraction/reversal.py``); a package uninstalled
(``supersede_removed``). Rules are not replaced by a value set aside.
"""

from __future__ import annotations

import re
from functools import lru_cache

from continuity_core.checkpoints.digest_work import (
    INSTRUCTS,
    REPLY_CHARS,
    WORD_TOKEN,
    Statement,
    WorkingDigest,
    end_fact,
    subject_weight,
    term_of,
)
from continuity_core.extraction import reversal
from continuity_core.extraction.salience import background, rare_terms, specific_tokens, term_set
from continuity_core.extraction.sticky import Candidate, content_words, sentences
from continuity_core.models.session_digest import Fact, FactKind, FactSource, FactStatus

_SUBJECT = re.compile(r"\bfor (?:the |our |all |every |a |an )?([\w-]+(?:[ -][\w-]+)?)", re.IGNORECASE)
_SCRATCH = re.compile(r"\b(?:scratch that|change of plans?|on second thought|forget (?:that|it))\b", re.I)
_GENERIC_SUBJECTS = frozenset(
    {"step", "part", "thing", "stuff", "task", "work", "code", "file", "test", "now"}
)
# Whose decisions a later one of theirs may replace: the user's, and what the user accepted.
CHOOSERS = (FactSource.PROMPT, FactSource.AGENT)
# Whose recorded choices a later statement may replace: theirs, and the agent's own summaries'.
_REPLACEABLE = (*CHOOSERS, FactSource.AGENT_DIGEST, FactSource.COMPACTION_SUMMARY)
SUPERSEDE_SHARED = 2  # rare topic terms a newer choice shares with the one it replaces
SUPERSEDE_OVERLAP = 0.5  # and the share of the shorter one's rare terms they are


def supersede_by_value(
    work: WorkingDigest, text: str, statement: Statement, *, dismissal_only: bool = False
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
                (same_subject and other_value and chosen and not _ADDS.search(text))
                or _renumbers(text, fact.text)
                or (not _RULE_LIKE.search(fact.text) and _dismisses(text, fact.text))
            )
        if replaced:
            end_fact(work, index, FactStatus.SUPERSEDED, text, statement)


# The grammar of an addition: "the filter should also hide empty groups" adds to a choice, not replaces it.
_ADDS = re.compile(r"\b(?:also|as well|in addition|additionally)\b", re.IGNORECASE)
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


def supersede_by_change(work: WorkingDigest, text: str, statement: Statement) -> None:
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
            end_fact(work, index, FactStatus.SUPERSEDED, text, statement)
            return


@lru_cache(maxsize=8192)  # every older fact is read again for each new message
def _values(text: str) -> frozenset[str]:
    """What a statement names: its rare terms (as terms and as written) and specific tokens,
    lower-case."""
    rare = rare_terms(text)
    written = {w for w in reversal.words(text) if term_of(w) in rare}
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


def supersede_by_message(work: WorkingDigest, message: str, statement: Statement) -> None:
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
        _is_choice(s) or INSTRUCTS.match(s) or _CHANGE.search(s) for s in said
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
                end_fact(work, index, FactStatus.SUPERSEDED, message, statement)


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


def supersede_removed(work: WorkingDigest, packages: set[str], statement: Statement) -> None:
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
            end_fact(work, index, FactStatus.SUPERSEDED, statement.text, statement)


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
# ("resolves to /a.css instead of /b/a.css"), and a change it makes is read by supersede_by_change.
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
    if subject_weight(shared) < SUBJECT_SHARED or not _new_value(new, old):
        return False
    words = [(m.group(0).lower(), term_of(m.group(0))) for m in WORD_TOKEN.finditer(new)]
    model = background()
    # "no webpack" again after "no webpack, use esbuild" agrees with it: no reversal
    already_aside = {term_of(w) for w in reversal.set_aside(old)}
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


DISMISS_REACH = 3  # words before the older value a dismissal may stand
DISMISSED_RARITY = 0.3  # how telling the term a dismissal sets aside must be
# After the older value: "X is too slow", "X is out", "X isn't …", "X won't …".
_SET_ASIDE_AFTER = re.compile(
    r"^(?:[\w-]+ )?(?:is|are|was) (?:too|out|gone|dead|overkill)\b|^(?:isn'?t|aren'?t|won'?t)\b"
)


def _renumbers(new: str, old: str) -> bool:
    """The same subject with another number: "keep the retry count at 3" → "make it 5 retries"."""
    old_numbers = set(_NUMBER.findall(old))
    new_numbers = set(_NUMBER.findall(new))
    if not old_numbers or not (new_numbers - old_numbers):
        return False
    shared = term_set(new) & term_set(old)
    return subject_weight(shared) >= SUBJECT_SHARED and (_is_choice(new) or bool(INSTRUCTS.match(new)))


_QUANTITY = re.compile(r"(?<![\w.])(\d[\d,.]*)\s*([^\W\d_][\w-]*)", re.UNICODE)


def quantities(text: str) -> dict[str, str]:
    """``2000 core-hours`` → {"core-hour": "2000"}: each amount by the unit it counts."""
    found = {}
    for number, unit in _QUANTITY.findall(text):
        term = term_set(unit)
        if term:
            found[next(iter(term))] = number.rstrip(".,")
    return found


def supersede_quantity(work: WorkingDigest, text: str, statement: Statement) -> None:
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
            end_fact(work, index, FactStatus.SUPERSEDED, text, statement)


_CHOICE = re.compile(
    r"\b(?:use|using|go with|going with|pick|choose|switch|move|keep|set|make|put|store|run|deploy|"
    r"stay|stick|want|should|must|will|let'?s|we'?ll|i'?ll|go|goes)\b",
    re.IGNORECASE,
)


def _is_choice(text: str) -> bool:
    """A sentence that states how something is or will be (not a report of what happened)."""
    return bool(_CHOICE.search(text))


def supersede_decision(work: WorkingDigest, candidate: Candidate, text: str, statement: Statement) -> None:
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
            end_fact(work, index, FactStatus.SUPERSEDED, text, statement)
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
        end_fact(work, best[1], FactStatus.SUPERSEDED, text, statement)
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
            end_fact(work, said[-1], FactStatus.SUPERSEDED, text, statement)


def _subject(text: str) -> set[str]:
    """What a decision is for ("… for the job queue"): its telling words."""
    words: set[str] = set()
    for match in _SUBJECT.finditer(text):
        words |= content_words(match.group(1))
    return words - _GENERIC_SUBJECTS
