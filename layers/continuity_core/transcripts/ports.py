"""Live transcripts: the append (``TranscriptLog``), where a transcript is kept
(``TranscriptStorage``: ``dynamo_transcripts.py``, bodies in ``s3_bodies.py``) and what the
readers get (``TranscriptStore``: ``read.py``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # annotations only: a function loads the models it uses, not every one
    from continuity_core.models.state import SessionIdentity, SessionState
    from continuity_core.models.transcripts import SessionSummary, TranscriptHead


@dataclass(frozen=True)
class TranscriptHint:
    """What the session state said of the transcript, from the update the hook made anyway: where
    it ended before this hook (-1: unknown) and when its head item was last written."""

    previous_end: int
    head_written_at: datetime | None


@dataclass(frozen=True)
class Span:
    """One stored append: characters ``start`` to ``end``, written at ``at_ms`` (epoch ms)."""

    start: int
    end: int
    at_ms: int


@dataclass(frozen=True)
class StoredAppend:
    """An append as the storage holds it: where it sits, its text, the kind of a redaction that
    runs to its end (the next append may continue that secret; ``transcripts/redact.py``), and how
    many times its text was rewritten (a rewrite is refused to a view older than the last one)."""

    span: Span
    text: str
    open_kind: str | None = None
    revision: int = 0


@dataclass(frozen=True)
class ChunkMove:
    """Text moved to a new chunk: its id, and where the chunk ends (the head's new ``flushed``)."""

    chunk_id: str
    end: int


@dataclass(frozen=True)
class AppendResult:
    """What an append did: the stored length after it, whether it was refused as a gap (the client
    resends from ``length``), and the transcript hint the session state should hold from now on
    (None: the state's hint is right already)."""

    length: int
    gap: bool = False
    hint: TranscriptHint | None = None  # its ``previous_end`` is where the transcript ends now


class TranscriptLog(Protocol):
    def append(
        self,
        agent_id: str,
        identity: SessionIdentity,
        offset: int,
        text: str,
        now: datetime,
        hint: TranscriptHint | None = None,
    ) -> AppendResult:
        """Append ``text`` at ``offset``. Repeats/overlaps change nothing; a gap is refused (``gap``);
        a shorter transcript never overwrites the fuller copy. The caller writes ``hint`` to the state."""
        ...


class TranscriptStorage(Protocol):
    """Where a transcript is kept: a head, one item per append, chunks of text moved out. It stores
    and reads; what the items mean (the chain, incarnations, when to chunk) is decided in
    ``transcripts/append.py`` and ``transcripts/read.py``."""

    def head(self, agent_id: str, session_key: str, now: datetime, consistent: bool) -> TranscriptHead | None:
        """The head as last written (one read), None if there is none or it is past its TTL at ``now``.
        Its ``inline`` is the text a head of the earlier layout kept in itself ("" today)."""
        ...

    def heads(self, agent_id: str, session_keys: list[str], now: datetime) -> list[TranscriptHead]:
        """The live heads of these sessions (eventually consistent), in no particular order."""
        ...

    def start_head(self, agent_id: str, identity: SessionIdentity, now: datetime) -> bool:
        """A new head created at ``now`` (a new incarnation), unless a live one is there: then False."""
        ...

    def update_head(
        self,
        agent_id: str,
        identity: SessionIdentity,
        head: TranscriptHead,
        length: int,
        now: datetime,
        chunk: ChunkMove | None = None,
    ) -> bool:
        """Move the head's summary (``length``, ``updated_at``, identity fields it lacks) and expiry
        to ``now``, and with ``chunk`` record that chunk as the next one (``flushed`` moves to its end,
        the earlier layout's inline text goes) — only if the head is still the incarnation ``head``
        was read from and, with ``chunk``, still has ``head.flushed``. False: nothing was written."""
        ...

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
        """Store ``text`` (and ``open_kind``) at position ``start`` if the position is free: False when
        an append is there (with ``born``, an append written before ``born`` counts as free)."""
        ...

    def replace_append(self, agent_id: str, session_key: str, append: StoredAppend, text: str) -> bool:
        """Store ``text`` (as long as the append's) in place of ``append``'s text, if that append (its
        position, end and write time) is still there and was not rewritten since ``append`` was read
        (its ``revision``): False otherwise, and nothing is written. The stored revision goes up by one."""
        ...

    def appends(self, agent_id: str, session_key: str, start: int, consistent: bool) -> list[StoredAppend]:
        """Every stored append at position ``start`` or later, in position order, whatever its age."""
        ...

    def latest_appends(self, agent_id: str, session_key: str, before: int, limit: int) -> list[StoredAppend]:
        """The (at most) ``limit`` stored appends at the highest positions below ``before``, whatever
        their age, in position order (one consistent read)."""
        ...

    def newest_append(self, agent_id: str, session_key: str) -> Span | None:
        """The append at the highest position, if any (one small read, no text)."""
        ...

    def put_chunk(self, agent_id: str, session_key: str, number: int, chunk_id: str, text: str) -> None: ...

    def get_chunk(self, agent_id: str, session_key: str, number: int, chunk_id: str) -> str:
        """TranscriptBodyMissingError if it is gone."""
        ...

    def delete_chunk(self, agent_id: str, session_key: str, number: int, chunk_id: str) -> None: ...

    def session_index(
        self,
        agent_id: str,
        project_normalized: str,
        limit: int,
        token: str | None,
        harness: str | None,
        now: datetime,
    ) -> tuple[list[SessionSummary], str | None]:
        """Up to ``limit`` of the project's live transcripts, newest start first, as their heads were
        last written, and the token of the next page. InvalidPageTokenError for a foreign token."""
        ...


class TranscriptBodyMissingError(Exception):
    """A chunk of the transcript's body is gone from S3 (expired before its head item)."""


class TranscriptStore(Protocol):
    """What search, inheritance, the writer and the session API read of transcripts."""

    def head(self, agent_id: str, session_key: str, consistent: bool = False) -> TranscriptHead | None:
        """The head item alone (identity, project, chunk list; length as last written): one read."""
        ...

    def assembled_head(
        self, agent_id: str, session_key: str, consistent: bool = False
    ) -> TranscriptHead | None:
        """The head with the text since its last chunk (``inline``), the current length and marks."""
        ...

    def heads(self, agent_id: str, session_keys: list[str]) -> dict[str, TranscriptHead]:
        """Assembled heads, keyed by session."""
        ...

    def read(self, agent_id: str, head: TranscriptHead, start: int = 0, end: int | None = None) -> str:
        """Characters ``start`` to ``end`` (default: all stored) of the transcript ``head`` (assembled)
        describes."""
        ...

    def read_since(self, agent_id: str, session_key: str, start: int) -> tuple[str, int] | None:
        """The text from ``start`` to the end and where it ends (None: no transcript); reads only what
        came after ``start`` when it can."""
        ...

    def read_many(self, agent_id: str, ranges: list[tuple[TranscriptHead, int]]) -> dict[str, str]:
        """For each (head, start): its text from ``start`` on, keyed by session; unreadable ones left out."""
        ...

    def recent_sessions(
        self,
        agent_id: str,
        project_normalized: str,
        limit: int,
        token: str | None = None,
        harness: str | None = None,
    ) -> tuple[list[SessionSummary], str | None]:
        """The project's sessions with a transcript, newest first, and the next token."""
        ...

    def session_page(
        self,
        agent_id: str,
        project_normalized: str,
        limit: int,
        token: str | None = None,
        harness: str | None = None,
    ) -> tuple[list[SessionSummary], str | None, dict[str, SessionState]]:
        """``recent_sessions`` and the states it read on the way (one batch read, not two)."""
        ...
