"""The transcript append protocol and where transcript text lives (pure rules)."""

from datetime import UTC, datetime, timedelta

import pytest

from continuity_core.models.transcripts import TranscriptHead
from continuity_core.transcripts.layout import (
    AppendKind,
    AppendPlan,
    chunk_cut,
    clean_text,
    crosses_chunk,
    follow,
    plan_append,
    tail_since,
)
from continuity_core.transcripts.ports import Span

T0 = datetime(2026, 11, 22, 10, 0, tzinfo=UTC)


def test_an_append_at_the_stored_end_adds_all_of_it() -> None:
    assert plan_append(stored=5, offset=5, text="world") == AppendPlan(AppendKind.APPEND, "world")


def test_a_repeated_append_changes_nothing() -> None:
    # Given a copy that already holds "hello world" / When "world" is sent again at 6
    plan = plan_append(stored=11, offset=6, text="world")
    # Then nothing is new
    assert plan.kind is AppendKind.NOTHING_NEW


def test_an_overlapping_append_adds_only_what_is_new() -> None:
    # Given 8 characters stored / When characters 6..13 arrive
    plan = plan_append(stored=8, offset=6, text="world!!")
    # Then only the part past 8 is appended
    assert plan == AppendPlan(AppendKind.APPEND, "rld!!")


def test_an_append_past_the_stored_end_is_a_gap() -> None:
    assert plan_append(stored=8, offset=9, text="x").kind is AppendKind.GAP


def test_a_shorter_transcript_never_overwrites_the_fuller_copy() -> None:
    # Given a compacted transcript resent from the start, shorter than what is stored
    plan = plan_append(stored=10_000, offset=0, text="summary of the conversation so far")
    # Then it changes nothing
    assert plan.kind is AppendKind.NOTHING_NEW


@pytest.mark.parametrize("text", ["plain", "é😀 mixed", ""])
def test_clean_text_keeps_valid_text_as_is(text: str) -> None:
    assert clean_text(text) == text


def test_a_lone_surrogate_becomes_a_replacement_character_of_the_same_length() -> None:
    text = "a\ud800b"
    cleaned = clean_text(text)
    assert cleaned == "a\ufffdb"
    assert len(cleaned) == len(text)
    cleaned.encode("utf-8")  # storable


def test_the_text_is_the_chain_of_appends_from_where_it_starts() -> None:
    spans = {0: Span(0, 5, 1), 5: Span(5, 9, 2), 9: Span(9, 12, 3), 40: Span(40, 44, 4)}
    assert [s.start for s in follow(spans, 0)] == [0, 5, 9]
    assert [s.start for s in follow(spans, 5)] == [5, 9]
    assert follow(spans, 12) == []  # an append off the chain (an old incarnation's) is not text


def test_a_chunk_is_due_when_an_append_passes_a_multiple_of_the_chunk_size() -> None:
    assert crosses_chunk(900, 1100, 1000)
    assert not crosses_chunk(1000, 1999, 1000)
    assert crosses_chunk(0, 5000, 1000)


def test_a_chunk_ends_at_an_append_and_leaves_the_tail() -> None:
    chain = [Span(0, 6000, 1), Span(6000, 9000, 2), Span(9000, 10_000, 3)]
    # at least the last 3,000 stay: after 9,000 only 1,000 would
    assert chunk_cut(chain, 0, keep_chars=3000, min_chars=1000) == 6000
    assert chunk_cut(chain, 0, keep_chars=500, min_chars=1000) == 9000
    # too little to make a sizeable chunk: nothing moves
    assert chunk_cut(chain, 0, keep_chars=3000, min_chars=8000) == 0
    assert chunk_cut([], 7, keep_chars=0, min_chars=1) == 7


def test_the_tail_since_a_position_is_bounded_and_marked_when_cut() -> None:
    # Given inline text starting at 100 ("a"*50 + "b"*50), the checkpoint at 120
    inline = "a" * 50 + "b" * 50
    # When at most 40 characters are asked for
    tail, cut = tail_since(inline, inline_start=100, since=120, tail_chars=40)
    # Then the last 40 come back, marked as cut (text between 120 and 160 is left out)
    assert tail == "b" * 40
    assert cut
    # and everything since the checkpoint when it fits
    assert tail_since(inline, 100, since=180, tail_chars=40) == ("b" * 20, False)


def _head(marks: list[tuple[int, int]], length: int) -> TranscriptHead:
    return TranscriptHead(
        session_key="s", created_at=T0, updated_at=T0, length=length, inline="x" * length, marks=marks
    )


def test_the_length_at_a_moment_is_that_of_the_last_append_before_it() -> None:
    ms = int(T0.timestamp() * 1000)
    head = _head([(ms, 10), (ms + 60_000, 25), (ms + 120_000, 40)], 40)
    assert head.length_at(T0 + timedelta(seconds=90)) == 25
    assert head.length_at(T0 + timedelta(minutes=5)) == 40
    assert head.length_at(T0 - timedelta(seconds=1)) == 0
