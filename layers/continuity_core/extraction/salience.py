"""What makes a sentence worth keeping, without phrase lists: what it says, not how it says it.

A sentence is worth carrying across a compaction when it is **specific** (identifiers, paths,
versions, numbers with units, quoted names), **rare** (its terms are not ordinary coding-session
talk: measured against a background model of real sessions, ``data/background_terms.json``, built
offline by ``bench/build_background.py``), **not the session's running topic** (a term the session
says in most prompts tells nothing new), **modal** (must, never, only, should, don't: the grammar
of a rule or a choice, in any wording), **repeated** by the user, and **new** against what is
already kept. The phrase cues of ``extraction/sticky.py`` only label a sentence; this decides whether it
survives.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TypeVar

from continuity_core.extraction.terms import STOPWORDS

BACKGROUND_PATH = Path(__file__).resolve().parents[1] / "data" / "background_terms.json"

_TERM = re.compile(r"[^\W\d_](?:[\w'\u2019.-]*\w)?", re.UNICODE)
_SPECIFIC = re.compile(
    r"`[^`\n]{2,80}`"  # quoted code
    r"|\"[^\"\n]{2,60}\"|“[^”\n]{2,60}”"  # quoted names
    r"|\b\w+(?:[_/]\w+)+\b|(?:/[\w{}:.-]+){2,}"  # snake_case, paths, routes
    r"|\b[a-z]+[A-Z]\w*\b"  # camelCase
    r"|\b[A-Za-z]\w*\.[A-Za-z]\w+(?:\.\w+)*\b"  # dotted names, files
    r"|\bv?\d+(?:\.\d+)+\b"  # versions
    r"|\b\d+(?:[.,]\d+)?\s?(?:ms|s|sec|secs|seconds?|min|minutes?|h|hours?|days?|kb|mb|gb|tb|%|px|rpm|"
    r"rps|qps|x|k|m|chars?|lines?|items?|rows?|tokens?|requests?|retries|times|°c|eur|usd|€|\$)\b"
    r"|\b[A-Z]{2,}\d*\b"  # acronyms: ESR, MV3, GDPR
    r"|\b[a-z]+\d+[a-z\d]*\b",  # words with digits: utf8, k8s, s3
    re.UNICODE,
)
# What a message quotes rather than says: a URL, a “quoted” message, an exit status.
_OUTPUT = re.compile(
    r"https?://|[“\"][^”\"]{12,}[”\"]|\bexit(?:ed)? (?:code |with )?\d|\.\.\.$", re.IGNORECASE
)
# Grammar of a rule or a choice (modal verbs, negation, exclusivity): general, not phrase cues.
_MODAL = re.compile(
    r"\b(?:must|mustn'?t|never|always|only|should|shouldn'?t|shall|don'?t|do not|doesn'?t|does not|"
    r"can'?t|cannot|won'?t|not|no|nothing|nobody|without|unless|keep|avoid|required?|need(?:s)? to|"
    r"ha(?:ve|s) to|want|prefer|rather)\b",
    re.IGNORECASE,
)
# Everyday words, and the modal ones (modality is a feature of its own, not a topic).
_PLAIN = STOPWORDS | frozenset(
    " ".join(
        [
            "also just really maybe okay ok yeah yep nope sure thing things stuff lot lots bit way good",
            "great fine nice cool well right now then still even much many more less very pretty quite",
            "something anything everything someone anyone one two three first second last next time",
            "times today tomorrow yesterday hey hi hello thanks thx pls plz lol hmm wait sorry think",
            "thought know knew seems seem looks look said says say tell told ask asked going gonna",
            "wanna got get gets make made take took put give never always must mustn't mind ever",
        ]
    ).split()
)

T = TypeVar("T")


# English words at or above COMMON_ZIPF are everyday words; at or below RARE_ZIPF, rare.
COMMON_ZIPF, RARE_ZIPF = 5.5, 3.5


@dataclass(frozen=True)
class Background:
    sessions: int
    df: dict[str, int]  # coding sessions saying the term
    zipf: dict[str, float]  # ordinary English frequency of the term

    @lru_cache(maxsize=65536)  # noqa: B019 - one model per process, its terms looked up again and again
    def rarity(self, term: str) -> float:
        """0 (every session, or everyday English, says it) .. 1 (neither does)."""
        seen = self.df.get(term, 0)
        in_sessions = math.log((self.sessions + 1) / (seen + 1)) / math.log(self.sessions + 1)
        zipf = self.zipf.get(term, 0.0)
        in_english = (COMMON_ZIPF - zipf) / (COMMON_ZIPF - RARE_ZIPF) if zipf else 1.0
        return max(0.0, min(1.0, in_sessions, in_english))

    @lru_cache(maxsize=65536)  # noqa: B019 - as above
    def subject(self, term: str) -> float:
        """How much a term names a subject: the mean of its rarity in coding sessions and in
        English ("country" is common English but no coding talk; "file" is both)."""
        seen = self.df.get(term, 0)
        in_sessions = math.log((self.sessions + 1) / (seen + 1)) / math.log(self.sessions + 1)
        zipf = self.zipf.get(term, 0.0)
        in_english = (COMMON_ZIPF - zipf) / (COMMON_ZIPF - RARE_ZIPF) if zipf else 1.0
        return (max(0.0, min(1.0, in_sessions)) + max(0.0, min(1.0, in_english))) / 2

    def __hash__(self) -> int:
        return id(self)


@lru_cache(maxsize=1)
def background() -> Background:
    """The shipped model (read once per process, on first use)."""
    model = json.loads(BACKGROUND_PATH.read_text(encoding="utf-8"))
    return Background(
        int(model["sessions"]),
        {str(k): int(v) for k, v in model["df"].items()},
        {str(k): float(v) for k, v in model.get("zipf", {}).items()},
    )


def _stem(word: str) -> str:
    if word.endswith("ies") and len(word) > 5:
        return word[:-3] + "y"  # retries → retry
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


@lru_cache(maxsize=65536)
def _term(word: str) -> str | None:
    lowered = word.lower().replace("\u2019", "'").strip(".-'")
    # A contraction or a possessive is its base word: "don't" is "do", "it's" "it", "user's" "user"
    # (typographic apostrophes too), so everyday words never pass for rare ones.
    if lowered.endswith("n't"):
        lowered = {"ca": "can", "wo": "will", "sha": "shall"}.get(lowered[:-3], lowered[:-3])
    elif "'" in lowered:
        lowered = lowered.split("'", 1)[0]
    if len(lowered) < 3 or lowered in _PLAIN:
        return None
    return _stem(lowered)


def terms_of(text: str) -> list[str]:
    """The content terms of ``text`` in order (lower-case, lightly stemmed; repeats kept)."""
    found = []
    for match in _TERM.finditer(text):
        term = _term(match.group(0))
        if term is not None:
            found.append(term)
    return found


def term_set(text: str) -> frozenset[str]:
    return frozenset(terms_of(text))


def specific_tokens(text: str) -> list[str]:
    return [m.group(0) for m in _SPECIFIC.finditer(text)]


def is_modal(text: str) -> bool:
    return bool(_MODAL.search(text))


# Epistemic modality: a guess, not a conclusion ("X might be", "probably Y", "I suspect Z").
_HEDGED = re.compile(
    r"\b(?:might|may|could(?!\s+not\b)|perhaps|possibly|probably|maybe|likely|unlikely|seems?|appears? to|"
    r"suspect|guess|wonder)\b",
    re.IGNORECASE,
)


def is_tentative(text: str) -> bool:
    """A hypothesis rather than a finding: hedged by its grammar, or a lead-in to what comes next
    (ends with a colon: "Let me check whether …:")."""
    return bool(_HEDGED.search(text)) or text.rstrip().endswith(":")


def rare_terms(text: str, threshold: float = 0.55) -> frozenset[str]:
    """Terms few sessions of the background say: what a sentence is about."""
    model = background()
    return frozenset(t for t in terms_of(text) if model.rarity(t) >= threshold)


def key_terms(text: str, limit: int = 6, floor: float = 0.1) -> frozenset[str]:
    """What a sentence is about: its least common terms (at most ``limit``), everyday words aside."""
    model = background()
    ranked = sorted(term_set(text), key=model.rarity, reverse=True)
    return frozenset(t for t in ranked[:limit] if model.rarity(t) >= floor)


def has_content(text: str, labelled: bool = False) -> bool:
    """A fact needs something to say: a specific token, or two terms one of which is not common
    talk ("did that fix it?", "I never remember", "no need to decide now" have none). A sentence
    whose grammar already says what it is (a rule, a choice) needs two terms of any kind."""
    terms = term_set(text)
    if specific_tokens(text) and terms:
        return True
    if labelled:
        return len(terms) >= 2
    model = background()
    return len(terms) >= 2 and any(model.rarity(t) >= 0.5 for t in terms)


@dataclass(frozen=True)
class Salience:
    """The features of one sentence and its score (higher: keep first)."""

    score: float
    terms: frozenset[str]


def topic_terms(texts_by_prompt: Iterable[tuple[int | None, str]], prompts: int) -> frozenset[str]:
    """Terms the session says in many different prompts: its running topic, no news in a sentence."""
    where: dict[str, set[int]] = {}
    for prompt, text in texts_by_prompt:
        if prompt is None:
            continue
        for term in term_set(text):
            where.setdefault(term, set()).add(prompt)
    floor = max(4, int(0.25 * prompts))
    return frozenset(t for t, seen in where.items() if len(seen) >= floor)


def salience(
    text: str,
    *,
    prompt: int | None = None,
    prompts: int = 0,
    seen: int = 1,
    topic: frozenset[str] = frozenset(),
) -> Salience:
    terms = term_set(text)
    if not terms:
        return Salience(0.0, terms)
    model = background()
    rarities = sorted((model.rarity(t) for t in terms), reverse=True)
    info = sum(rarities[:5]) / min(5, len(rarities))
    coverage = min(1.0, sum(1 for r in rarities if r >= 0.6) / 3)
    specific = min(3, len(specific_tokens(text))) / 3
    modal = 1.0 if is_modal(text) else 0.0
    pasted = bool(_OUTPUT.search(text))  # a URL or a quoted message: pasted, not said
    repeated = 0.0 if pasted else min(seen - 1, 3) / 3  # the same error pasted again is no emphasis
    recency = (prompt / prompts) if prompt and prompts else 0.5
    on_topic = len(terms & topic) / len(terms)
    size = len(text)
    shape = -0.25 if size > 280 or len(terms) < 3 else 0.0
    quoted = -0.4 if pasted else 0.0
    opening = 0.3 if prompt is not None and prompt <= max(3, prompts // 10) else 0.0  # the task is set first
    score = (
        1.2 * info
        + 0.6 * coverage
        + 0.5 * specific
        + 0.6 * modal
        + 0.3 * repeated
        + 0.2 * recency
        + opening
        - 0.6 * on_topic
        + shape
        + quoted
    )
    return Salience(score, terms)


def select(
    items: Sequence[T],
    scored: Callable[[T], Salience],
    size: Callable[[T], int],
    budget: int,
    novelty: float = 1.0,
    floor: float = 0.45,
) -> list[T]:
    """The best ``items`` within ``budget`` characters, each new pick penalised by how much it
    repeats what was already picked (terms in common); in pick order."""
    pool = [(item, scored(item)) for item in items]
    pool = [(item, s) for item, s in pool if s.score >= floor]
    picked: list[tuple[T, Salience]] = []
    used = 0
    while pool:
        best_index, best_value = -1, -math.inf
        for index, (_item, sal) in enumerate(pool):
            overlap = max((_jaccard(sal.terms, p.terms) for _, p in picked), default=0.0)
            value = sal.score - novelty * overlap
            if value > best_value:
                best_index, best_value = index, value
        item, sal = pool.pop(best_index)
        if best_value < floor:
            break
        if used + size(item) > budget:
            continue
        picked.append((item, sal))
        used += size(item)
    return [item for item, _ in picked]


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)
