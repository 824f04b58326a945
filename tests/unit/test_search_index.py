"""The FTS5 search cache: safe queries, segments, snippets, incremental appends, eviction."""

from datetime import UTC, datetime, timedelta

import pytest

from continuity_core.models.transcripts import SessionSummary
from continuity_core.sessions.search import (
    HIT_END,
    HIT_START,
    SEGMENT_CHARS,
    SNIPPET_CHARS,
    SearchIndex,
    fit_snippet,
    fts_query,
    split_segments,
)

T0 = datetime(2026, 11, 22, 10, 0, tzinfo=UTC)
FILLER = "the agent edited files and ran the tests again while reading the logs carefully. "


def session(key: str, length: int, created_at: datetime = T0) -> SessionSummary:
    return SessionSummary(session_key=key, created_at=created_at, updated_at=created_at, length=length)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("postgres migration", '"postgres" OR "migration"'),
        ('find "exact phrase" here', '"exact phrase" OR "find" OR "here"'),
        ("NEAR(a b) OR col:x*", '"NEAR" OR "a" OR "b" OR "OR" OR "col" OR "x"'),
        ("  ?!  ", None),
    ],
)
def test_a_query_becomes_a_safe_fts_expression(text: str, expected: str | None) -> None:
    assert fts_query(text) == expected


def test_segments_cover_the_text_exactly_and_cut_at_whitespace() -> None:
    text = FILLER * 1000
    pieces = split_segments(text)
    assert "".join(pieces) == text
    assert all(len(p) <= SEGMENT_CHARS for p in pieces)
    assert all(p.endswith(" ") for p in pieces[:-1])


def test_a_long_snippet_is_cut_around_its_first_hit() -> None:
    snippet = "x" * 600 + f"{HIT_START}needle{HIT_END}" + "y" * 600
    cut = fit_snippet(snippet)
    assert "needle" in cut
    assert len(cut) <= SNIPPET_CHARS + 2


def test_an_appended_session_is_found_by_a_word_in_either_part() -> None:
    # Given a session indexed in two appends, the second crossing a segment boundary
    index = SearchIndex()
    first = FILLER * 100 + "zebracorn appears early. "
    second = FILLER * 200 + "quokkafish appears late. "
    doc = index.add("agent", session("s1", len(first)), 0, first)
    index.add("agent", session("s1", len(first) + len(second)), len(first), second)
    # When each word is searched
    early = index.query('"zebracorn"', [doc], 5, one_per_doc=False)
    late = index.query('"quokkafish"', [doc], 5, one_per_doc=False)
    # Then both are found, with a snippet around the hit
    assert len(early) == 1 and f"{HIT_START}zebracorn{HIT_END}" in early[0][2]
    assert len(late) == 1 and f"{HIT_START}quokkafish{HIT_END}" in late[0][2]
    assert index.known("agent", session("s1", 0)) == (doc, len(first) + len(second))


def test_only_sessions_in_scope_are_searched_and_one_hit_per_session_when_several() -> None:
    # Given three sessions mentioning the word, twice in one of them
    index = SearchIndex()
    docs = {}
    for key, text in {
        "a": FILLER * 300 + "kestrel " + FILLER * 300 + "kestrel kestrel",
        "b": "kestrel once " + FILLER,
        "c": "kestrel " + FILLER,
    }.items():
        docs[key] = index.add("agent", session(key, len(text)), 0, text)
    # When only a and b are in scope
    found = index.query('"kestrel"', [docs["a"], docs["b"]], 10, one_per_doc=True)
    # Then c is never read, and each session gives its best passage once
    assert sorted(doc for doc, _, _ in found) == sorted([docs["a"], docs["b"]])
    assert all(score > 0 for _, score, _ in found)


def test_a_session_re_created_under_the_same_key_starts_over() -> None:
    index = SearchIndex()
    index.add("agent", session("s1", 10), 0, "old words.")
    # When the same key shows up with another created_at / Then nothing of the old one is known
    assert index.known("agent", session("s1", 5, created_at=T0 + timedelta(days=1))) == (0, 0)


def test_the_cache_is_per_tenant() -> None:
    index = SearchIndex()
    index.add("alice", session("s1", 10), 0, "secret ok.")
    assert index.known("bob", session("s1", 10)) == (0, 0)


def test_the_least_recently_used_sessions_go_beyond_the_budget_but_never_those_in_scope() -> None:
    # Given a cache of 100 characters holding three sessions of 60
    index = SearchIndex(max_chars=100)
    docs = [index.add("agent", session(k, 60), 0, "w" * 60) for k in ("old", "mid", "new")]
    index.touch([docs[2]])
    # When it evicts, keeping the oldest in scope
    index.evict(keep={docs[0]})
    # Then the least recently used one not in scope went, and the budget holds
    assert index.known("agent", session("mid", 60)) == (0, 0)
    assert index.known("agent", session("old", 60))[1] == 60
