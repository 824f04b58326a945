"""The transcript append protocol against the in-memory storage (held to DynamoDB's by tests/contract)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from continuity_core.kernel.errors import StorageUnavailableError
from continuity_core.models.state import SessionIdentity
from continuity_core.transcripts.append import (
    HEAD_REFRESH,
    MAX_APPEND_CHARS,
    MAX_ATTEMPTS,
    TranscriptAppender,
)
from continuity_core.transcripts.ports import AppendResult, TranscriptHint
from continuity_core.transcripts.read import TranscriptReader
from tests.fakes.transcripts import InMemoryTranscriptStorage

T0 = datetime(2026, 11, 22, 9, 0, tzinfo=UTC)
AGENT = "default"
CHUNK = 1000
KEEP = 300
ME = SessionIdentity(
    session_key="s1", harness="claude-code", project="/work/app", project_normalized="/work/app"
)


@pytest.fixture
def storage() -> InMemoryTranscriptStorage:
    return InMemoryTranscriptStorage()


@pytest.fixture
def appender(storage: InMemoryTranscriptStorage) -> TranscriptAppender:
    return TranscriptAppender(storage, chunk_chars=CHUNK, keep_chars=KEEP, carry_chars=KEEP)


def text_of(storage: InMemoryTranscriptStorage, session: str = "s1", now: datetime = T0) -> str:
    reader = TranscriptReader(storage, None, lambda: now)
    head = reader.assembled_head(AGENT, session, consistent=True)
    return reader.read(AGENT, head) if head else ""


def hint_after(result: AppendResult) -> TranscriptHint:
    """What the state holds once the hook service wrote the result's correction."""
    assert result.hint is not None
    return result.hint


# -- the fast paths ------------------------------------------------------------------------------


def test_the_first_append_of_a_new_transcript_starts_it_without_reading(
    appender: TranscriptAppender, storage: InMemoryTranscriptStorage
) -> None:
    # Given a state that knows of no transcript (its hint says -1)
    # When the first delta arrives at 0
    result = appender.append(AGENT, ME, 0, "User: one\n", T0, TranscriptHint(-1, None))
    # Then the head is started and the text put, nothing read; the state learns of the head
    assert storage.calls == ["start_head", "put_append"]
    assert result == AppendResult(10, hint=TranscriptHint(10, T0))
    assert text_of(storage) == "User: one\n"


def test_an_append_where_the_hint_says_the_transcript_ends_is_one_put(
    appender: TranscriptAppender, storage: InMemoryTranscriptStorage
) -> None:
    hint = hint_after(appender.append(AGENT, ME, 0, "User: one\n", T0, TranscriptHint(-1, None)))
    storage.calls.clear()
    # When the next prompt's delta starts where the state says the transcript ends, on the instance
    # that stored the text before it
    result = appender.append(AGENT, ME, 10, "User: two\n", T0 + timedelta(minutes=1), hint)
    # Then one put is all it takes (the tail the new text is redacted after is the one this instance
    # stored), and the state's hint (set by the prompt's own update) is right
    assert storage.calls == ["put_append"]
    assert result == AppendResult(20)
    assert text_of(storage) == "User: one\nUser: two\n"


def test_on_another_instance_an_append_where_the_hint_says_the_transcript_ends_is_one_small_read_and_one_put(
    appender: TranscriptAppender, storage: InMemoryTranscriptStorage
) -> None:
    hint = hint_after(appender.append(AGENT, ME, 0, "User: one\n", T0, TranscriptHint(-1, None)))
    other = TranscriptAppender(storage, chunk_chars=CHUNK, keep_chars=KEEP, carry_chars=KEEP)
    storage.calls.clear()
    # When the next prompt's delta reaches an instance that knows nothing of the transcript's tail
    result = other.append(AGENT, ME, 10, "User: two\n", T0 + timedelta(minutes=1), hint)
    # Then it reads the latest append (the tail the new text is redacted after) and puts once
    assert storage.calls == ["latest_appends", "put_append"]
    assert result == AppendResult(20)
    assert text_of(storage) == "User: one\nUser: two\n"


def test_a_stale_head_sends_the_append_the_careful_way_and_refreshes_the_head(
    appender: TranscriptAppender, storage: InMemoryTranscriptStorage
) -> None:
    hint = hint_after(appender.append(AGENT, ME, 0, "one ", T0, TranscriptHint(-1, None)))
    later = T0 + HEAD_REFRESH
    # When a prompt comes after the head went unwritten for HEAD_REFRESH
    result = appender.append(AGENT, ME, 4, "two", later, hint)
    # Then the head is rewritten (its summary and expiry move on) and the state learns when
    head = storage.head(AGENT, "s1", later, consistent=True)
    assert head is not None and (head.updated_at, head.length) == (later, 7)
    assert result == AppendResult(7, hint=TranscriptHint(7, later))


# -- deciding from what is stored ----------------------------------------------------------------


def test_a_repeated_delta_changes_nothing(
    appender: TranscriptAppender, storage: InMemoryTranscriptStorage
) -> None:
    hint = hint_after(appender.append(AGENT, ME, 0, "hello world", T0, TranscriptHint(-1, None)))
    # When the same delta is sent again (a retried hook; its state update ends the hint at 11 again)
    result = appender.append(AGENT, ME, 0, "hello world", T0, TranscriptHint(11, hint.head_written_at))
    # Then nothing is stored twice, and the state's hint is right as it is
    assert text_of(storage) == "hello world"
    assert result == AppendResult(11)


def test_an_old_delta_resent_tells_the_state_where_the_transcript_really_ends(
    appender: TranscriptAppender, storage: InMemoryTranscriptStorage
) -> None:
    hint = hint_after(appender.append(AGENT, ME, 0, "hello world", T0, TranscriptHint(-1, None)))
    # When a spooled hook with an older, shorter delta arrives (its state update said the end is 5)
    result = appender.append(AGENT, ME, 0, "hello", T0, TranscriptHint(11, hint.head_written_at))
    # Then the state is told the transcript ends at 11, so the next prompt takes one put again
    assert result == AppendResult(11, hint=TranscriptHint(11, T0))
    assert text_of(storage) == "hello world"


def test_an_overlapping_delta_adds_only_what_is_new(
    appender: TranscriptAppender, storage: InMemoryTranscriptStorage
) -> None:
    appender.append(AGENT, ME, 0, "hello wor", T0)
    result = appender.append(AGENT, ME, 6, "world and more", T0)
    assert result.length == 20
    assert text_of(storage) == "hello world and more"


def test_a_delta_past_the_stored_end_is_a_gap_and_stores_nothing(
    appender: TranscriptAppender, storage: InMemoryTranscriptStorage
) -> None:
    appender.append(AGENT, ME, 0, "0123456789", T0)
    result = appender.append(AGENT, ME, 15, "xyz", T0)
    assert (result.gap, result.length) == (True, 10)
    assert text_of(storage) == "0123456789"


def test_a_shorter_transcript_after_compaction_never_overwrites_the_fuller_copy(
    appender: TranscriptAppender, storage: InMemoryTranscriptStorage
) -> None:
    full = "turn: a long exchange\n" * 20
    appender.append(AGENT, ME, 0, full, T0)
    result = appender.append(AGENT, ME, 0, "Summary: writer work.", T0)
    assert (result.gap, result.length) == (False, len(full))
    assert text_of(storage) == full


def test_a_hook_without_a_state_update_always_tells_the_state_where_the_transcript_ends(
    appender: TranscriptAppender,
) -> None:
    # A pre-compaction or session-end hook carries a delta but made no state update with a hint
    result = appender.append(AGENT, ME, 0, "before compaction\n", T0, hint=None)
    assert result.hint == TranscriptHint(18, T0)


def test_an_empty_delta_places_nothing(
    appender: TranscriptAppender, storage: InMemoryTranscriptStorage
) -> None:
    assert appender.append(AGENT, ME, 7, "", T0) == AppendResult(7)
    assert storage.calls == []


def test_a_lone_surrogate_is_stored_as_a_replacement_character_of_the_same_length(
    appender: TranscriptAppender, storage: InMemoryTranscriptStorage
) -> None:
    assert appender.append(AGENT, ME, 0, "a\ud800b", T0).length == 3
    assert text_of(storage) == "a\ufffdb"


def test_a_delta_larger_than_one_stored_append_is_stored_in_pieces_that_read_back_whole(
    storage: InMemoryTranscriptStorage,
) -> None:
    appender = TranscriptAppender(storage, chunk_chars=10 * MAX_APPEND_CHARS, keep_chars=KEEP)
    text = "é" * (2 * MAX_APPEND_CHARS + 5)
    appender.append(AGENT, ME, 0, text, T0)
    assert [a.span.end - a.span.start for a in storage.appends(AGENT, "s1", 0, True)] == [
        MAX_APPEND_CHARS,
        MAX_APPEND_CHARS,
        5,
    ]
    assert text_of(storage) == text


# -- races -----------------------------------------------------------------------------------------


class RacingStorage(InMemoryTranscriptStorage):
    """Another writer appends at the same position just before each of our puts, ``races`` times."""

    def __init__(self, races: int) -> None:
        super().__init__()
        self.races = races

    def put_append(
        self,
        agent_id: str,
        session_key: str,
        start: int,
        text: str,
        now: datetime,
        born: datetime | None,
        open_kind: str | None = None,
    ) -> bool:
        if self.races > 0:
            self.races -= 1
            super().put_append(agent_id, session_key, start, "X" * 5, now, born=None)
        return super().put_append(agent_id, session_key, start, text, now, born, open_kind)


def test_an_append_that_loses_a_race_decides_again_from_what_the_winner_stored() -> None:
    storage = RacingStorage(races=1)
    appender = TranscriptAppender(storage, chunk_chars=CHUNK, keep_chars=KEEP, carry_chars=KEEP)
    appender.append(AGENT, ME, 0, "hello", T0)  # the other writer's "XXXXX" landed first at 0
    # Then ours, sent from offset 0, overlaps it: only what lies past the winner's end is added
    assert text_of(storage) == "XXXXX"
    assert appender.append(AGENT, ME, 5, " world", T0).length == 11
    assert text_of(storage) == "XXXXX world"


def test_a_transcript_that_keeps_changing_gives_up_as_unavailable(
    appender: TranscriptAppender, storage: InMemoryTranscriptStorage, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a position that is taken again each time this writer tries it
    monkeypatch.setattr(storage, "put_append", lambda *args, **kwargs: False)
    # Then after MAX_ATTEMPTS decisions the hook is answered 503 (the client's spool resends it)
    with pytest.raises(StorageUnavailableError):
        appender.append(AGENT, ME, 0, "hello", T0)
    assert storage.calls.count("head") == MAX_ATTEMPTS


# -- incarnations ----------------------------------------------------------------------------------


def test_the_appends_of_an_expired_transcript_are_not_revived(
    appender: TranscriptAppender, storage: InMemoryTranscriptStorage
) -> None:
    # Given a transcript whose head passed its TTL while its appends linger
    appender.append(AGENT, ME, 0, "old text, a long one", T0)
    back = T0 + timedelta(days=10)
    # When the session comes back: the client's offset is past what a new transcript holds
    result = appender.append(AGENT, ME, 20, "more", back)
    assert (result.gap, result.length) == (True, 0)
    # and it starts over from 0 (the gap answer)
    appender.append(AGENT, ME, 0, "new", back)
    # Then only the new incarnation's text is there
    assert text_of(storage, now=back) == "new"


# -- moving text to chunks -------------------------------------------------------------------------


def test_passing_the_chunk_size_moves_all_but_the_tail_to_one_chunk(
    appender: TranscriptAppender, storage: InMemoryTranscriptStorage
) -> None:
    appender.append(AGENT, ME, 0, "a" * 800, T0)
    appender.append(AGENT, ME, 800, "b" * 400, T0)  # passes 1,000
    head = storage.head(AGENT, "s1", T0, consistent=True)
    assert head is not None
    # The first append went (the second, under KEEP from the end, stays as the tail)
    assert (head.flushed, head.chunk_ends) == (800, [800])
    assert list(storage.chunks.values()) == ["a" * 800]
    assert text_of(storage) == "a" * 800 + "b" * 400


def test_too_little_to_make_a_sizeable_chunk_moves_nothing(
    appender: TranscriptAppender, storage: InMemoryTranscriptStorage
) -> None:
    appender.append(AGENT, ME, 0, "a" * 950, T0)
    appender.append(AGENT, ME, 950, "b" * 100, T0)  # passes 1,000, but the tail needs the last 300
    assert storage.chunks == {}


def test_two_movers_at_once_keep_one_chunk_and_delete_the_other(
    appender: TranscriptAppender, storage: InMemoryTranscriptStorage, monkeypatch: pytest.MonkeyPatch
) -> None:
    appender.append(AGENT, ME, 0, "a" * 600, T0)
    appender.append(AGENT, ME, 600, "b" * 300, T0)  # not yet past the chunk size
    real_put = storage.put_chunk
    raced: list[bool] = []

    def put_then_race(agent_id: str, session_key: str, number: int, chunk_id: str, text: str) -> None:
        real_put(agent_id, session_key, number, chunk_id, text)
        if not raced:  # a second mover runs between our put and our head update
            raced.append(True)
            assert appender.move_to_chunk(AGENT, "s1", T0)

    monkeypatch.setattr(storage, "put_chunk", put_then_race)
    # When the first move finishes after the second
    assert not appender.move_to_chunk(AGENT, "s1", T0)
    # Then the second won, one chunk is left, and the text is there once
    assert raced == [True]
    assert len(storage.chunks) == 1
    assert text_of(storage) == "a" * 600 + "b" * 300


def test_a_failed_move_to_a_chunk_leaves_the_append_stored(
    appender: TranscriptAppender, storage: InMemoryTranscriptStorage, monkeypatch: pytest.MonkeyPatch
) -> None:
    def unavailable(*args: object) -> None:
        raise StorageUnavailableError("S3 is down")

    monkeypatch.setattr(storage, "put_chunk", unavailable)
    appender.append(AGENT, ME, 0, "a" * 800, T0)
    result = appender.append(AGENT, ME, 800, "b" * 400, T0)
    assert result.length == 1200
    assert text_of(storage) == "a" * 800 + "b" * 400


def test_a_head_of_the_earlier_layout_grows_and_its_text_moves_with_the_first_chunk(
    appender: TranscriptAppender, storage: InMemoryTranscriptStorage
) -> None:
    from continuity_core.models.transcripts import TranscriptHead

    # Given a head that holds its text in itself (the earlier layout), nothing in chunks
    old = "x" * 700
    storage.seed_head(
        AGENT,
        TranscriptHead(
            session_key="s1", harness="claude-code", created_at=T0, updated_at=T0, length=700, inline=old
        ),
        T0,
    )
    assert text_of(storage) == old
    # When the client goes on from there, past the chunk size
    appender.append(AGENT, ME, 700, "y" * 400, T0)
    # Then nothing was lost, and the old text moved to the first chunk
    assert text_of(storage) == old + "y" * 400
    head = storage.head(AGENT, "s1", T0, consistent=True)
    assert head is not None and head.inline == "" and head.flushed >= 700
