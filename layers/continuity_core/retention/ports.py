"""What the pruner reads and deletes through (``dynamo_retention.py``): the run lease and
cursor, a due bucket's items."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # annotations only: a function loads the models it uses, not every one
    from continuity_core.kernel.expiry import Expiry


class ItemKind(StrEnum):
    CHECKPOINT = "checkpoint"
    STATE = "state"
    TRANSCRIPT = "transcript"
    TRANSCRIPT_BODY = "transcript_body"  # S3 objects: counted, never listed in the index
    INJECTION = "injection"


@dataclass(frozen=True)
class ExpiringItem:
    """One entry of a due bucket. ``item_id`` is opaque to the logic, except that a session's
    checkpoint ids sort oldest first (they are its sort keys)."""

    kind: ItemKind
    agent_id: str
    session_key: str
    item_id: str
    bucket: str
    chunk_ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class Lease:
    """The right to run, and where the previous run stopped (None: the first run)."""

    token: str
    cursor: datetime | None


class LeaseLostError(Exception):
    """Another run took the cursor over (this one outlived its lease); stop without saving."""


class RetentionStore(Protocol):
    items_read: int  # items DynamoDB handed back so far (what the pruner's reads cost)

    def acquire(self, now: datetime, until: datetime) -> Lease | None:
        """Take the run lease unless another run holds it; None if it does."""
        ...

    def save(self, lease: Lease, cursor: datetime, release: bool) -> None:
        """Store the cursor (the next bucket to prune); ``release`` gives the lease back."""
        ...

    def expiring(self, bucket: Expiry) -> Iterator[ExpiringItem]:
        """Every item in the bucket, a session's items next to each other (paged as it goes)."""
        ...

    def delete_if_unmoved(self, item: ExpiringItem) -> bool:
        """Delete the item if it is still in its bucket; False if it moved on (or is gone)."""
        ...

    def delete_bodies(self, item: ExpiringItem) -> int:
        """Delete a deleted transcript's S3 bodies; how many went (a failure leaves them to the
        bucket's lifecycle rule)."""
        ...

    def newest_checkpoint(self, agent_id: str, session_key: str) -> str | None:
        """The id of the session's newest checkpoint (one item read), None if it has none."""
        ...

    def last_activity(self, agent_id: str, session_key: str) -> datetime | None:
        """The session's last activity, None without a state."""
        ...

    def keep(self, item: ExpiringItem, until: Expiry) -> None:
        """Move a kept checkpoint to a later bucket, its TTL to that bucket's end (never re-creates
        one TTL deleted)."""
        ...
