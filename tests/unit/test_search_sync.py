"""A cold search reads its sessions a step at a time and indexes one step while reading the next."""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from typing import cast

from continuity_core.kernel.config import ContinuityConfig
from continuity_core.models.transcripts import SessionSummary, TranscriptHead
from continuity_core.sessions.search import READ_STEP, SearchIndex, TranscriptSearchService
from continuity_core.transcripts.ports import TranscriptStore

T0 = datetime(2026, 11, 26, 7, 0, tzinfo=UTC)
SESSIONS = 2 * READ_STEP + 7
FILLER = "the agent edited files and ran the tests again. "


def text_of(n: int) -> str:
    return FILLER * 20 + f"word{n}x appears here. "


def head_of(n: int) -> TranscriptHead:
    return TranscriptHead(
        session_key=f"s{n}", project_normalized="/p", created_at=T0, updated_at=T0, length=len(text_of(n))
    )


class Transcripts:
    """A project's transcripts as the search reads them; ``heads`` records each batch it was asked."""

    def __init__(self) -> None:
        self.asked: list[list[str]] = []
        self.second_step_read = threading.Event()

    def recent_sessions(
        self,
        agent_id: str,
        project_normalized: str,
        limit: int,
        token: str | None = None,
        harness: str | None = None,
    ) -> tuple[list[SessionSummary], str | None]:
        return [head_of(n).summary() for n in range(SESSIONS)][:limit], None

    def heads(self, agent_id: str, session_keys: list[str]) -> dict[str, TranscriptHead]:
        self.asked.append(session_keys)
        if len(self.asked) == 2:
            self.second_step_read.set()
        return {key: head_of(int(key[1:])) for key in session_keys}

    def read_many(self, agent_id: str, ranges: list[tuple[TranscriptHead, int]]) -> dict[str, str]:
        return {head.session_key: text_of(int(head.session_key[1:]))[start:] for head, start in ranges}


class WaitingIndex(SearchIndex):
    """Indexing the first session waits until the second step is being read (or gives up)."""

    def __init__(self, transcripts: Transcripts) -> None:
        super().__init__()
        self.overlapped: bool | None = None
        self._transcripts = transcripts

    def add(self, agent_id: str, session: SessionSummary, start: int, text: str) -> int:
        if self.overlapped is None:
            self.overlapped = self._transcripts.second_step_read.wait(timeout=10)
        return super().add(agent_id, session, start, text)


def test_a_cold_search_reads_in_steps_while_indexing_and_finds_every_session() -> None:
    # Given a project of more sessions than two read steps, none indexed yet
    transcripts = Transcripts()
    index = WaitingIndex(transcripts)
    config = ContinuityConfig(search_max_sessions=SESSIONS)
    # (Transcripts is a partial fake: the reads the search makes)
    search = TranscriptSearchService(cast(TranscriptStore, transcripts), config, index)

    # When a word of the last session is searched
    hits = search.search("agent", f"word{SESSIONS - 1}x", 5, project_normalized="/p")

    # Then it is found, every session was read once in steps of at most READ_STEP (one batch read
    # of heads each), and the second step was read while the first was being indexed
    assert [hit.session_key for hit in hits] == [f"s{SESSIONS - 1}"]
    assert sorted(key for step in transcripts.asked for key in step) == sorted(
        f"s{n}" for n in range(SESSIONS)
    )
    assert [len(step) for step in transcripts.asked] == [READ_STEP, READ_STEP, SESSIONS - 2 * READ_STEP]
    assert index.overlapped is True

    # And a second search reads nothing more (every session is indexed)
    assert search.search("agent", "word3x", 5, project_normalized="/p")[0].session_key == "s3"
    assert len(transcripts.asked) == 3
