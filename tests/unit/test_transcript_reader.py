"""Reading transcripts against the in-memory storage: the head alone, assembled, and since a length."""

from __future__ import annotations

from datetime import timedelta

import pytest

from continuity_core.hooks.ports import PromptRecord
from continuity_core.models.state import SessionIdentity
from continuity_core.transcripts.append import TranscriptAppender
from continuity_core.transcripts.read import TranscriptReader
from tests.fakes.stores import Stores
from tests.fakes.transcripts import InMemoryTranscriptStorage
from tests.support.clock import Clock
from tests.unit.conftest import T0

AGENT = "default"
PROJECT = "/work/app"
CHUNK = 1000


def me(session: str = "s1") -> SessionIdentity:
    return SessionIdentity(
        session_key=session, harness="claude-code", project=PROJECT, project_normalized=PROJECT
    )


@pytest.fixture
def storage() -> InMemoryTranscriptStorage:
    return InMemoryTranscriptStorage()


@pytest.fixture
def appender(storage: InMemoryTranscriptStorage) -> TranscriptAppender:
    return TranscriptAppender(storage, chunk_chars=CHUNK, keep_chars=300, carry_chars=300)


@pytest.fixture
def reader(storage: InMemoryTranscriptStorage, stores: Stores, clock: Clock) -> TranscriptReader:
    return TranscriptReader(storage, stores.states, clock)


def grow(appender: TranscriptAppender, clock: Clock, *pieces: str, session: str = "s1") -> str:
    text = ""
    for piece in pieces:
        clock.now += timedelta(minutes=1)
        appender.append(AGENT, me(session), len(text), piece, clock())
        text += piece
    return text


def test_the_head_is_one_read_and_knows_the_sessions_project(
    reader: TranscriptReader, appender: TranscriptAppender, storage: InMemoryTranscriptStorage, clock: Clock
) -> None:
    grow(appender, clock, "one ", "two ")
    storage.calls.clear()
    head = reader.head(AGENT, "s1")
    assert storage.calls == ["head"]
    assert head is not None and head.project_normalized == PROJECT


def test_the_assembled_head_has_the_current_length_marks_and_tail(
    reader: TranscriptReader, appender: TranscriptAppender, clock: Clock
) -> None:
    grow(appender, clock, "one ", "two ", "three")
    head = reader.assembled_head(AGENT, "s1")
    assert head is not None
    assert (head.length, head.inline, head.updated_at) == (13, "one two three", T0 + timedelta(minutes=3))
    assert head.length_at(T0 + timedelta(minutes=2, seconds=30)) == 8


def test_reading_after_a_noted_length_is_one_query_of_what_came_since(
    reader: TranscriptReader, appender: TranscriptAppender, storage: InMemoryTranscriptStorage, clock: Clock
) -> None:
    text = grow(appender, clock, "a" * 600, "b" * 600, "c" * 600)  # the first moved to a chunk
    storage.calls.clear()
    assert reader.read_since(AGENT, "s1", 600) == (text[600:], len(text))
    assert storage.calls == ["appends"]


def test_reading_from_the_start_takes_the_chunks_too(
    reader: TranscriptReader, appender: TranscriptAppender, storage: InMemoryTranscriptStorage, clock: Clock
) -> None:
    text = grow(appender, clock, "a" * 600, "b" * 600, "c" * 600)
    assert storage.chunks  # part of it lives in a chunk
    assert reader.read_since(AGENT, "s1", 0) == (text, len(text))
    head = reader.assembled_head(AGENT, "s1")
    assert head is not None and reader.read(AGENT, head, 590, 610) == text[590:610]
    assert reader.read_since(AGENT, "nobody", 0) is None


def test_a_new_transcript_under_the_same_key_is_read_whole(
    reader: TranscriptReader, appender: TranscriptAppender, clock: Clock
) -> None:
    grow(appender, clock, "x" * 500)
    clock.now += timedelta(days=10)  # the first transcript expired; the session starts over
    text = grow(appender, clock, "new")
    assert reader.read_since(AGENT, "s1", 500) == (text, 3)


def test_a_session_whose_chunk_is_gone_is_left_out_of_a_read_of_many(
    reader: TranscriptReader, appender: TranscriptAppender, storage: InMemoryTranscriptStorage, clock: Clock
) -> None:
    grow(appender, clock, "a" * 800, "b" * 400, session="gone")
    text = grow(appender, clock, "kept", session="kept")
    storage.chunks.clear()
    heads = reader.heads(AGENT, ["gone", "kept"])
    assert reader.read_many(AGENT, [(heads["gone"], 0), (heads["kept"], 0)]) == {"kept": text}


def test_listed_sessions_carry_the_length_and_activity_the_state_has(
    reader: TranscriptReader, appender: TranscriptAppender, stores: Stores, clock: Clock
) -> None:
    grow(appender, clock, "hello", session="hinted")
    grow(appender, clock, "hi", session="unhinted")
    # The state saw a later prompt whose delta ends at 40 (its append is on its way)
    clock.now += timedelta(minutes=5)
    stores.states.record_prompt(AGENT, me("hinted"), PromptRecord("p", transcript_end=40), clock())
    listed, _ = reader.recent_sessions(AGENT, PROJECT, 10)
    found = {s.session_key: (s.length, s.updated_at) for s in listed}
    assert found["hinted"] == (40, clock())
    assert found["unhinted"] == (2, T0 + timedelta(minutes=2))  # from its newest append


def test_an_earlier_incarnations_append_is_not_taken_for_the_current_transcripts_end(
    reader: TranscriptReader, appender: TranscriptAppender, clock: Clock
) -> None:
    grow(appender, clock, "x" * 100, "y" * 100)
    clock.now += timedelta(days=10)
    grow(appender, clock, "new")  # overwrites the old append at 0; the old one at 100 lingers
    listed, _ = reader.recent_sessions(AGENT, PROJECT, 10)
    # Then the list says what the new head says (0 until it is rewritten), never the old 200
    assert [(s.length, s.created_at) for s in listed] == [(0, clock())]
