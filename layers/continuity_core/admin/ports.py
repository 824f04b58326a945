"""What the operator's side stores and reads: tokens (``dynamo_tokens.py``), erasure
(``dynamo_erase.py``), the rate windows (``dynamo_rate.py``) and the health page's sources
(``dynamo_health.py``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # annotations only: a function loads the models it uses, not every one
    from continuity_core.models.health import PrunerStatus, QueueDepth
    from continuity_core.models.tokens import TokenRecord


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


@dataclass
class Traffic:
    """What the rate windows (and the tokens' long-lived items) hold, summed over the tokens."""

    requests: dict[int, int] = field(default_factory=dict)  # by window
    client_errors: dict[int, int] = field(default_factory=dict)
    server_errors: dict[int, int] = field(default_factory=dict)
    seen: dict[str, int] = field(default_factory=dict)  # hook kind -> last received (epoch s)


class HealthSource(Protocol):
    def queue_depths(self) -> tuple[QueueDepth, QueueDepth]:
        """(the checkpoint queue, its DLQ)."""
        ...

    def traffic(self, keys: list[str], windows: list[int]) -> Traffic:
        """The rate keys' (token ids') windows summed, and their hooks' last sightings."""
        ...

    def pruner(self) -> PrunerStatus: ...


@dataclass(frozen=True)
class WindowAdds:
    """What one flush adds to a window besides its requests."""

    client_errors: int = 0  # answers 400-499
    server_errors: int = 0  # answers 500 and over
    seen: dict[str, int] = field(default_factory=dict)  # hook kind -> when last received (epoch s)
    instances: int = 0  # 1 on an instance's first add to the window


@dataclass(frozen=True)
class WindowTotals:
    """A window's shared totals, as an add leaves them."""

    requests: int
    instances: int  # the instances that added to it


class RateCounter(Protocol):
    def add(
        self, key: str, window: int, count: int, expires_at: int, adds: WindowAdds | None = None
    ) -> WindowTotals:
        """Add ``count`` requests (and ``adds``) to the key's window; returns its totals."""
        ...

    def keep_seen(self, key: str, seen: dict[str, int], expires_at: int) -> None:
        """Set these hook kinds' last sightings on the key's long-lived item."""
        ...
