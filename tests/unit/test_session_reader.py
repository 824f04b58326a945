"""The session API's rules, without storage: which sessions a search covers, a transcript page."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, cast

from continuity_core.models.sessions import SearchRequest
from continuity_core.models.transcripts import TranscriptHead
from continuity_core.sessions.ports import SearchHit, TranscriptSearch
from continuity_core.sessions.sessions import SessionReader
from continuity_core.transcripts.ports import TranscriptStore

T0 = datetime(2026, 11, 22, 9, 0, tzinfo=UTC)


class Transcripts:
    """The reads the session reader makes of a transcript store."""

    def __init__(self, *heads: TranscriptHead, text: str = "") -> None:
        self.heads = {head.session_key: head for head in heads}
        self.text = text

    def head(self, agent_id: str, session_key: str, consistent: bool = False) -> TranscriptHead | None:
        """The head item alone: its length as last written, behind the appends since."""
        found = self.heads.get(session_key)
        return found.model_copy(update={"length": 0}) if found else None

    def assembled_head(
        self, agent_id: str, session_key: str, consistent: bool = False
    ) -> TranscriptHead | None:
        return self.heads.get(session_key)

    def read(self, agent_id: str, head: TranscriptHead, start: int = 0, end: int | None = None) -> str:
        return self.text[start:end]


class Search:
    def __init__(self) -> None:
        self.asked: list[dict[str, Any]] = []

    def search(self, agent_id: str, query: str, limit: int, **scope: Any) -> list[SearchHit]:
        self.asked.append(scope)
        return [SearchHit("s0", "/work/app", "a «hit»", 1.5, T0)]


def session_reader(transcripts: Transcripts, search: Search | None) -> SessionReader:
    # Partial fakes: the reads the reader makes, and a search that records its scope as given.
    return SessionReader(cast(TranscriptStore, transcripts), cast(TranscriptSearch | None, search))


def head(session_key: str, project: str | None, length: int = 0) -> TranscriptHead:
    return TranscriptHead(
        session_key=session_key, project_normalized=project, created_at=T0, updated_at=T0, length=length
    )


def test_a_search_naming_only_the_asking_session_covers_its_project_without_it() -> None:
    search = Search()
    reader = session_reader(Transcripts(head("asking", "/work/app")), search)

    found = reader.search("a1", SearchRequest(query="queue", asking_session_key=" asking "))

    assert search.asked == [
        {"session_key": None, "project_normalized": "/work/app", "exclude_session_key": "asking"}
    ]
    assert [r.session_key for r in found.results] == ["s0"]


def test_a_named_project_wins_over_the_asking_sessions_and_is_normalised() -> None:
    search = Search()
    reader = session_reader(Transcripts(head("asking", "/work/app")), search)

    reader.search(
        "a1", SearchRequest(query="queue", project="/work/other/../lib/", asking_session_key="asking")
    )

    assert search.asked[0]["project_normalized"] == "/work/lib"


def test_an_asking_session_without_a_transcript_gives_the_search_no_scope() -> None:
    search = Search()
    reader = session_reader(Transcripts(), search)

    reader.search("a1", SearchRequest(query="queue", asking_session_key="unknown"))

    assert search.asked[0]["project_normalized"] is None


def test_a_transcript_page_says_where_the_next_one_starts_and_the_last_says_none() -> None:
    transcripts = Transcripts(head("s1", "/work/app", length=10), text="0123456789")
    reader = session_reader(transcripts, None)

    first = reader.transcript("a1", "s1", offset=0, limit=6)
    last = reader.transcript("a1", "s1", offset=6, limit=6)

    assert first is not None and (first.text, first.next_offset) == ("012345", 6)
    assert last is not None and (last.text, last.next_offset) == ("6789", None)
    assert reader.transcript("a1", "nope", offset=0, limit=6) is None
