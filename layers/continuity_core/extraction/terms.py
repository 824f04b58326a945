"""Key terms of a prompt and short snippets: what a checkpoint remembers of each prompt."""

from __future__ import annotations

import re

from continuity_core.models.state import SNIPPET_CHARS, SessionState

MAX_TERMS = 8
MAX_TERM_CHARS = 40  # longer "words" are hashes, blobs, paths run together: not search terms
_WORD = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-/]*[A-Za-z0-9_]|[A-Za-z0-9_]")
_WHITESPACE = re.compile(r"\s+")
STOPWORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "also",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "done",
        "down",
        "during",
        "each",
        "else",
        "etc",
        "few",
        "for",
        "from",
        "further",
        "get",
        "got",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "him",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "let",
        "lets",
        "like",
        "make",
        "me",
        "more",
        "most",
        "my",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "out",
        "over",
        "own",
        "please",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "use",
        "using",
        "very",
        "want",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yes",
        "ok",
        "okay",
        "thanks",
        "thank",
        "can't",
        "don't",
        "it's",
        "i'm",
        "need",
        "needs",
        "see",
        "try",
    ]
)

# Words of any exchange about work, too generic to link an answer to a question: "fixed", "works now",
# "checked", "the new one", "start it": the "Updated it; passes now." kind of reply.
GENERIC_LINK = frozenset(
    [
        "actually",
        "already",
        "answer",
        "answered",
        "asking",
        "call",
        "called",
        "came",
        "case",
        "check",
        "checked",
        "checking",
        "come",
        "day",
        "days",
        "decide",
        "decided",
        "either",
        "enough",
        "every",
        "fix",
        "fixed",
        "fixes",
        "fixing",
        "getting",
        "go",
        "goes",
        "going",
        "gone",
        "guess",
        "however",
        "keep",
        "kept",
        "kind",
        "later",
        "looked",
        "looking",
        "makes",
        "mean",
        "means",
        "new",
        "old",
        "part",
        "point",
        "question",
        "ran",
        "remember",
        "run",
        "running",
        "runs",
        "show",
        "shown",
        "sort",
        "sound",
        "sounds",
        "start",
        "started",
        "stop",
        "stopped",
        "together",
        "tried",
        "try",
        "update",
        "updated",
        "used",
        "work",
        "worked",
        "working",
        "works",
        "done",
        "passes",
        "passing",
        "passed",
        "fine",
        "good",
        "great",
        "thanks",
    ]
)


def pending_query_terms(state: SessionState) -> list[str]:
    """The key terms of the prompts since the last checkpoint. Derived from their snippets when a
    checkpoint is written (the state, rewritten by every prompt and billed by its size, keeps one
    copy of each prompt); states written before kept the terms themselves."""
    if state.pending_queries:
        return state.pending_queries
    return [terms for text in state.pending_snippets if (terms := key_terms(text))]


def key_terms(prompt: str | None, limit: int = MAX_TERMS) -> str | None:
    """The first distinct non-stopword terms of the prompt, space separated (None if none)."""
    if not prompt:
        return None
    seen: list[str] = []
    for match in _WORD.finditer(prompt):
        word = match.group(0).lower()
        if not 3 <= len(word) <= MAX_TERM_CHARS or word in STOPWORDS or word.isdigit() or word in seen:
            continue
        seen.append(word)
        if len(seen) == limit:
            break
    return " ".join(seen) or None


def snippet(text: str | None, limit: int = SNIPPET_CHARS) -> str | None:
    """Whitespace collapsed, cut to ``limit`` characters with an ellipsis."""
    if not text:
        return None
    flat = _WHITESPACE.sub(" ", text).strip()
    if not flat:
        return None
    if len(flat) <= limit:
        return flat
    return flat[: limit - 1].rstrip() + "…"
