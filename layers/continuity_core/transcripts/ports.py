"""Storage interfaces the domain logic talks to. Implementations live in ``adapters/``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # annotations only: a function loads the models it uses, not every one
    from continuity_core.models.checkpoint import Checkpoint
    from continuity_core.models.dashboard import ProjectRecord
    from continuity_core.models.digest import LedgerEntry, LedgerPage
    from continuity_core.models.handoff import Handoff
    from continuity_core.models.hooks import Hook
    from continuity_core.models.injections import InjectionRecord
    from continuity_core.models.state import SessionIdentity, SessionState, Tally
    from continuity_core.models.tokens import TokenRecord
    from continuity_core.models.transcripts import SessionSummary, TranscriptHead

Clock = Callable[[], datetime]


@dataclass(frozen=True)
class SessionLinks:
    """What a session start found: the session it continued and the parent it inherited from, each
    with how (the state keeps them, so a project's sessions show their lineage with their rows)."""

    continued_from: str | None = None
    continued_found_by: str | None = None
    parent_session_key: str | None = None
    parent_found_by: str | None = None

    def values(self) -> dict[str, str]:
        return {name: value for name, value in vars(self).items() if value is not None}


class StartExpectation(StrEnum):
    """What a session start assumed of its session's state when it chose what to inject without
    reading it; ``StateStore.start_session`` writes only if it holds."""

    ANY = "any"  # nothing assumed (the session's own checkpoints were read)
    NO_CHECKPOINTS = "no_checkpoints"  # the session has no checkpoint (none counted on its state)
    NEW = "new"  # the session has no state yet (so no checkpoint either)


@dataclass(frozen=True)
class StartWrite:
    """What ``StateStore.start_session`` did."""

    created: bool  # the write created the state (and noted the session under its project)
    injection_stored: bool  # the injection record is stored (its failure costs only the inspector)


class HandoffTakenError(Exception):
    """The hand-off a session start meant to consume is no longer open (another session took it)."""


class HandoffStore(Protocol):
    """Hand-offs under their project. Reading the open ones at session start is the project index's
    query (``CheckpointStore.project_snapshot``), consuming one is the start's write
    (``StateStore.start_session``)."""

    def put(self, agent_id: str, handoff: Handoff, close: list[Handoff]) -> None:
        """Store an open hand-off; the ``close`` ones (open, of its project) leave the open list."""
        ...

    def open_for_project(self, agent_id: str, project_normalized: str, limit: int) -> list[Handoff]:
        """The project's open hand-offs, newest first."""
        ...


class StateChangedError(Exception):
    """The session state moved on since it was read; read it again (latest wins)."""


class DuplicateHookError(Exception):
    """A hook with this idempotency key was already applied. ``same_body``: whether it came with the
    body fingerprint this one has (False: the key is reused for another request; None: unknown, the
    key was stored without one)."""

    def __init__(self, session_key: str, same_body: bool | None = None) -> None:
        super().__init__(session_key)
        self.same_body = same_body


class IdempotencyKeyConflictError(ValueError):
    """An idempotency key sent again with a different body: answered 409, never the first result."""

    def __init__(self, key: str) -> None:
        shown = key if len(key) <= 64 else key[:64] + "…"
        super().__init__(
            f"idempotency key {shown!r} was already used for a different request; "
            "send this one with a new key"
        )


class FlushConflictError(Exception):
    """The session kept changing under the writer; the message is retried by SQS."""


class KeyTooLongError(ValueError):
    """A path or key too long for the store's keys: the caller's input, answered 422."""


class StorageUnavailableError(Exception):
    """The store throttled or failed; the caller may retry later."""


class SessionDeletedError(Exception):
    """The session was deleted (``DELETE /api/sessions/{key}``): its tombstone refuses every write
    until it expires, so a hook spooled before the delete stores nothing when it arrives."""

    def __init__(self, session_key: str) -> None:
        super().__init__(f"session {session_key!r} was deleted (continuity forget); nothing was stored")
        self.session_key = session_key


@dataclass(frozen=True)
class PromptRecord:
    snippet: str | None  # the prompt, cut; its key terms are derived from it when a checkpoint is due
    idempotency_key: str | None = None
    body_fingerprint: str | None = None  # what "the same request" means (hooks/idempotency.py)
    transcript_chars: int | None = None
    transcript_end: int | None = None  # where the transcript delta this hook carries ends
    context_tokens: int | None = None  # the context size the harness recorded, when the client sent it
    compacted: bool = False  # the harness compacted since the last prompt: counted (Tally.COMPACTIONS)


class StateStore(Protocol):
    def touch(
        self,
        agent_id: str,
        identity: SessionIdentity,
        now: datetime,
        links: SessionLinks | None = None,
        tally: Tally | None = None,
    ) -> SessionState:
        """Create the session's state if missing and mark activity (and add one to ``tally``, in the
        same write); returns the state after.

        Every write that marks activity (this, ``record_prompt``, ``record_remember``,
        ``record_digest``) raises SessionDeletedError for a deleted session and writes nothing. The
        write that creates a state also notes the session under its project (``ErasureStore.
        project_sessions`` finds it before it has a checkpoint or a transcript)."""
        ...

    def start_session(
        self,
        agent_id: str,
        identity: SessionIdentity,
        now: datetime,
        links: SessionLinks | None,
        injection: InjectionRecord | None,
        expect: StartExpectation,
        handoff: Handoff | None = None,
    ) -> StartWrite | None:
        """A session start's writes, in as few requests as the store can: ``touch`` (with the links it
        followed; the project note when it creates the state) and the injection record (the
        ``InjectionLog``'s item, with the state's retention). None, writing nothing, when ``expect``
        does not hold; SessionDeletedError for a deleted session. With ``handoff`` (only with
        ``NEW``): that open hand-off is consumed by this session in the same write, all or nothing;
        HandoffTakenError, writing nothing, when another session consumed it first."""
        ...

    def record_prompt(
        self, agent_id: str, identity: SessionIdentity, prompt: PromptRecord, now: datetime
    ) -> SessionState:
        """Atomically count one prompt and append its terms and snippet. A key already held changes
        nothing and raises DuplicateHookError, saying whether it came with the same fingerprint."""
        ...

    def record_remember(
        self,
        agent_id: str,
        identity: SessionIdentity,
        content: str,
        now: datetime,
        idempotency_key: str | None = None,
        body_fingerprint: str | None = None,
    ) -> SessionState: ...

    def claim_flush(
        self, agent_id: str, session_key: str, token: str, now: datetime, stale_before: datetime
    ) -> bool:
        """Mark one flush pending unless another (newer than ``stale_before``) already is."""
        ...

    def release_flush(self, agent_id: str, session_key: str, token: str) -> None: ...

    def get(self, agent_id: str, session_key: str) -> SessionState | None:
        """The live state; None when there is none, it is past its TTL, or the session was deleted."""
        ...

    def deleted(self, agent_id: str, session_key: str) -> bool:
        """Whether the session was deleted (its tombstone is there): one small read."""
        ...

    def get_many(self, agent_id: str, session_keys: list[str]) -> dict[str, SessionState]:
        """The live states of these sessions, keyed by session (eventually consistent)."""
        ...

    def projects(self, agent_id: str, limit: int) -> list[ProjectRecord]:
        """The agent's projects (at most ``limit``, in no order): each noted as its sessions'
        states were created, with how many started, their harnesses and the newest."""
        ...

    def in_project(
        self,
        agent_id: str,
        project_normalized: str,
        limit: int,
        token: str | None = None,
        harness: str | None = None,
    ) -> tuple[list[SessionState], str | None]:
        """A page of the project's sessions (noted when their state was created; a transcript or
        not), newest start first, as their live states, and the token of the next page. A page looks
        at ``limit`` sessions (of ``harness``, given one): one whose state is gone is left out, so a
        page may hold fewer. InvalidPageTokenError for a token of another listing."""
        ...

    def set_transcript_hint(
        self, agent_id: str, session_key: str, end: int, head_written_at: datetime | None
    ) -> None:
        """Say the transcript ends at ``end`` (and its head was written at ``head_written_at``, when
        given), if the session has a state: never creates one."""
        ...

    def record_digest(self, agent_id: str, identity: SessionIdentity, now: datetime) -> SessionState:
        """Count one more checkpoint (an agent digest) and note when; creates the state if unseen."""
        ...

    def end_session(self, agent_id: str, session_key: str, now: datetime) -> None:
        """Drop what is pending (a session-end checkpoint already took what it keeps)."""
        ...

    def set_nudged(self, agent_id: str, session_key: str, nudged: bool, now: datetime) -> bool:
        """Flip the compaction-nudge flag (re-arming notes when); False if it already had that value."""
        ...


@dataclass(frozen=True)
class IdleCandidate:
    agent_id: str
    session_key: str
    # Where the session sits in the idle index: its first pending write, or its last activity when
    # the sweep last found it active; due once ``idleCloseMinutes`` have passed since.
    active_at: datetime


class IdleIndex(Protocol):
    """Sessions that got pending prompts, by when the idle sweep should look at them (sparse: a
    state enters it with its first pending prompt or remember, ``StateStore.record_*``)."""

    def due(self, before: datetime, limit: int) -> list[IdleCandidate]:
        """At most ``limit`` sessions due at or before ``before``, the longest due first per shard."""
        ...

    def recheck(self, candidate: IdleCandidate, active_at: datetime) -> bool:
        """Move the session to ``active_at``; only if it still sits at ``candidate.active_at``."""
        ...

    def settle(self, candidate: IdleCandidate, version: int | None) -> bool:
        """Out of the index; only if it still sits at ``active_at`` and its state at ``version`` (a
        prompt that came since keeps it in). ``None``: whatever the state (deleted, expired)."""
        ...


@dataclass(frozen=True)
class ProjectSnapshot:
    """What one query of the project index gives: recent checkpoints and the ledger's newest decisions."""

    checkpoints: list[Checkpoint]  # newest first
    recent_decisions: list[LedgerEntry]  # newest first
    handoffs: list[Handoff] = field(default_factory=list)  # the open ones, newest first


class CheckpointStore(Protocol):
    def commit(
        self,
        agent_id: str,
        checkpoint: Checkpoint,
        consumed: SessionState,
        now: datetime,
        evict: list[Checkpoint] | None = None,
    ) -> None:
        """Write the checkpoint and reset what it consumed, only if ``consumed`` is still current.

        Evicted checkpoints are deleted in the same transaction. StateChangedError on a race.
        """
        ...

    def put(self, agent_id: str, checkpoint: Checkpoint, now: datetime, evict: list[Checkpoint]) -> None:
        """Write a checkpoint that consumes no pending state (agent digests)."""
        ...

    def latest_for_session(self, agent_id: str, session_key: str) -> Checkpoint | None: ...

    def recent_for_session(self, agent_id: str, session_key: str, limit: int) -> list[Checkpoint]:
        """Newest first."""
        ...

    def project_snapshot(
        self, agent_id: str, project_normalized: str, since: datetime, limit: int
    ) -> ProjectSnapshot:
        """The project's checkpoints newer than ``since`` (newest first) and recent ledger decisions."""
        ...

    def list_for_project(self, agent_id: str, project_normalized: str, limit: int) -> list[Checkpoint]:
        """Newest first."""
        ...

    def list_for_session(self, agent_id: str, session_key: str, limit: int) -> list[Checkpoint]:
        """Oldest first."""
        ...


class LedgerStore(Protocol):
    def append(self, agent_id: str, entries: list[LedgerEntry]) -> None:
        """Append decisions to their project's ledger; entries are never rewritten."""
        ...

    def page(
        self, agent_id: str, project_normalized: str, limit: int, token: str | None = None
    ) -> LedgerPage:
        """Newest first; ``token`` continues a previous page."""
        ...


class FlushQueue(Protocol):
    def request_flush(self, agent_id: str, session_key: str, token: str, delay_seconds: int) -> None: ...


# -- live transcripts, sub-agent inheritance and search (wired in by the transcripts feature) --------


class TranscriptGapError(Exception):
    """An append starts past the stored end; the client resends from ``stored_length``."""

    def __init__(self, stored_length: int) -> None:
        super().__init__(f"transcript gap: the service holds {stored_length} characters")
        self.stored_length = stored_length


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
    """An append as the storage holds it: where it sits, its text, and the kind of a redaction that
    runs to its end (the next append may continue that secret; ``transcripts/redact.py``)."""

    span: Span
    text: str
    open_kind: str | None = None


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
        position, end and write time) is still there: False otherwise, and nothing is written."""
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


@dataclass(frozen=True)
class InheritedBlock:
    """The block a sub-agent inherits, and the parent it came from (lineage: how it was found)."""

    text: str
    parent_session_key: str
    found_by: str


class Inheritance(Protocol):
    def inherit(
        self, agent_id: str, hook: Hook, now: datetime, budget: int | None = None
    ) -> InheritedBlock | None:
        """``## Inherited from Parent Session`` for a sub-agent's start, at most ``budget`` characters."""
        ...


class InjectionLog(Protocol):
    """What each session start and sub-agent start was given (the dashboard's injection inspector)."""

    def record(self, agent_id: str, record: InjectionRecord) -> None:
        """Store one injection under its session, with the session's retention."""
        ...

    def for_session(self, agent_id: str, session_key: str, limit: int) -> list[InjectionRecord]:
        """The session's newest ``limit`` injections, newest first (expired ones left out)."""
        ...


@dataclass(frozen=True)
class SearchHit:
    session_key: str
    project: str | None
    snippet: str
    score: float
    updated_at: datetime


class TranscriptSearch(Protocol):
    def search(
        self,
        agent_id: str,
        query: str,
        limit: int,
        session_key: str | None = None,
        project_normalized: str | None = None,
        exclude_session_key: str | None = None,
    ) -> list[SearchHit]: ...


class TranscriptBodyMissingError(Exception):
    """A chunk of the transcript's body is gone from S3 (expired before its head item)."""


class InvalidPageTokenError(ValueError):
    """A ``next_token`` that this caller's previous page did not hand out."""


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


class TokenStore(Protocol):
    """Tokens under their agent (listed and revoked there), each also found by its hash."""

    def put(self, record: TokenRecord) -> None: ...

    def by_hash(self, token_sha256: str) -> TokenRecord | None: ...

    def for_agent(self, agent_id: str) -> list[TokenRecord]:
        """The agent's tokens, revoked ones too."""
        ...

    def revoke(self, agent_id: str, token_id: str, now: datetime) -> TokenRecord | None:
        """Mark the agent's token revoked (kept for the record); None if the agent has no such token."""
        ...

    # -- the operator's (never reached from a bearer token) --

    def add_tenant(self, record: TokenRecord) -> bool:
        """The record's agent joins the tenants with this, its first token, at once; False (nothing
        written) when the agent is a tenant already."""
        ...

    def tenants(self) -> list[str]:
        """Every tenant's agent id, in order."""
        ...


# -- deleting a session's or a project's data now (``admin/forget.py``) -------------------------------


@dataclass(frozen=True)
class SessionContents:
    """What is stored under one session's key, as the erasure store reads it."""

    items: tuple[
        str, ...
    ]  # every item but the state (the tombstone replaces it), by an id only the store reads
    states: int  # 0 or 1: a live state (not a tombstone)
    checkpoints: int
    transcripts: int  # transcript heads: 0 or 1
    transcript_parts: int  # the transcript's stored appends
    chunk_ids: tuple[str, ...]  # the transcript's bodies in S3, in order
    projects: frozenset[str]  # every project the items (the tombstone included) name
    deleted: bool  # a tombstone is there: the session was deleted before


@dataclass(frozen=True)
class LedgerItem:
    """One ledger entry, by an id only the store reads, and the session that recorded it."""

    item_id: str
    session_key: str | None


class ErasureStore(Protocol):
    """Reads and deletes everything a session or a project left; what goes, in which order, is
    ``admin/forget.py``'s."""

    def session_contents(self, agent_id: str, session_key: str) -> SessionContents:
        """Every item under the session's key (consistent reads, paged to the end)."""
        ...

    def put_tombstone(
        self, agent_id: str, session_key: str, projects: frozenset[str], now: datetime, until: datetime
    ) -> None:
        """Replace the session's state by a tombstone kept until ``until`` (the pruner and TTL take
        it then): from now on every state write of the session raises SessionDeletedError."""
        ...

    def delete_items(self, agent_id: str, session_key: str, items: tuple[str, ...]) -> None:
        """Delete these items of the session (batched; one already gone is no error)."""
        ...

    def delete_bodies(self, agent_id: str, session_key: str, chunk_ids: tuple[str, ...]) -> int:
        """Delete the transcript's S3 bodies; how many went."""
        ...

    def project_sessions(self, agent_id: str, project_normalized: str) -> set[str]:
        """The project's sessions: with a checkpoint or a transcript in its indexes, with a decision
        in its ledger, or noted under it when their state was created."""
        ...

    def ledger_items(self, agent_id: str, project_normalized: str) -> list[LedgerItem]:
        """Every entry of the project's ledger."""
        ...

    def delete_ledger_items(
        self, agent_id: str, project_normalized: str, items: list[LedgerItem], session_key: str | None
    ) -> None:
        """Delete these entries, and from the ledger's head the decisions of ``session_key``
        (None: the whole head, the project's ledger is going)."""
        ...

    def delete_project_entries(self, agent_id: str, project_normalized: str, session_keys: set[str]) -> int:
        """Delete the notes that these sessions belong to the project, and their hand-offs in it (each
        holds its session's digest); how many there were."""
        ...

    def delete_project_record(self, agent_id: str, project_normalized: str) -> None:
        """Delete the project's record: the projects page lists it no more."""
        ...
