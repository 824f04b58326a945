"""Retention: when a stored item becomes prunable, and the pruner that deletes it.

Every item that ages out (checkpoints, session state, transcript heads) is written with its
*prunable instant*: the time its retention runs out, rounded **up** to the end of a
``BUCKET_SPAN`` (6 h) bucket. An expiry index (``by_expiry``) holds each such item under its bucket,
so the pruner reads only the buckets that came due since its last run: what it reads is what
expires, never what is stored. Rounding up groups what a session leaves behind (its checkpoints of
the same hours, its state, its transcript) into one bucket, so the per-session lookups the
keep-latest rule needs are paid once per session and bucket, not once per checkpoint; the price is
that an item goes up to one span (plus the hour between runs) after its retention ran out.

The TTL attribute is set ``TTL_GRACE`` after the prunable instant: the pruner does the deleting,
DynamoDB TTL (which can lag for days) is only the backstop, and reads ignore an item once its TTL
has passed, deleted or not.

Rules, per session in a bucket:

- transcript heads and state go if they are still in the bucket (a conditional delete: an append or
  a prompt since moved them to a later bucket); a transcript takes its S3 bodies with it;
- checkpoints all go, except the session's newest while its last activity is within the retention
  window: that one is kept and its expiry moved to the state's (last activity + retention);
- injections (what a session start was given, for the dashboard's inspector) all go: each is
  written once, with the session's retention from its start;
- the per-session cap is enforced where checkpoints are written (the writer evicts in the same
  transaction that adds one), so a session never holds more than the cap; the pruner only removes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from itertools import groupby
from typing import Protocol

from continuity_core.config import ContinuityConfig
from continuity_core.ports import Clock

BUCKET_SPAN = timedelta(hours=6)
# The TTL attribute trails the prunable instant by this much: far more than a span plus the hour
# between runs, so the pruner (not TTL) deletes, and a kept checkpoint is moved before TTL sees it.
TTL_GRACE = timedelta(days=1)
# One run at a time: a run holds the cursor's lease this long (well past the function's timeout).
LEASE = timedelta(minutes=15)
# Checkpoint deletes are sent in batches (BatchWriteItem takes 25 per request).
DELETE_BATCH = 25

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)


def prunable_at(moment: datetime) -> datetime:
    """``moment`` rounded up to the end of its bucket (a moment on a boundary stays)."""
    span = BUCKET_SPAN // _MICROSECOND
    elapsed = (moment.astimezone(UTC) - _EPOCH) // _MICROSECOND
    return _EPOCH + -(-elapsed // span) * span * _MICROSECOND


@dataclass(frozen=True)
class Expiry:
    """When an item becomes prunable (its bucket's end) and when TTL may delete it."""

    prunable: datetime

    @property
    def bucket(self) -> str:
        return self.prunable.strftime("%Y-%m-%dT%H")

    @property
    def ttl_epoch(self) -> int:
        return int((self.prunable + TTL_GRACE).timestamp())


def expiry(last_change: datetime, keep: timedelta) -> Expiry:
    """The expiry of an item kept ``keep`` after ``last_change`` (creation, last activity, last append)."""
    return Expiry(prunable_at(last_change + keep))


def is_expired(ttl_epoch: int | None, now: datetime) -> bool:
    """Past its TTL: reads treat the item as gone even while DynamoDB still returns it."""
    return ttl_epoch is not None and ttl_epoch < int(now.timestamp())


# -- the pruner ---------------------------------------------------------------------------------


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

    def delete_checkpoints(self, items: list[ExpiringItem]) -> None:
        """Delete these checkpoints and injections (batched; deleting one already gone is a no-op)."""
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
        """Move a kept checkpoint to a later bucket, TTL included."""
        ...


@dataclass
class PruneReport:
    deleted: Counter[str] = field(default_factory=Counter)
    kept_latest: int = 0
    buckets: int = 0
    items_read: int = 0
    skipped: bool = False  # another run held the lease
    caught_up: bool = False  # every due bucket is done (False: out of time, the next run goes on)

    def as_dict(self) -> dict[str, object]:
        return {
            "deleted": {kind.value: self.deleted[kind.value] for kind in ItemKind},
            "kept_latest": self.kept_latest,
            "buckets": self.buckets,
            "items_read": self.items_read,
            "skipped": self.skipped,
            "caught_up": self.caught_up,
        }


class Pruner:
    def __init__(self, store: RetentionStore, config: ContinuityConfig, clock: Clock) -> None:
        self._store = store
        self._retention = timedelta(days=config.retention_days)
        # A first run (no cursor) looks back as far as anything can still be before its TTL.
        self._lookback = max(self._retention, timedelta(days=config.transcript_retention_days)) + TTL_GRACE
        self._clock = clock

    def run(self, should_stop: Callable[[], bool] = lambda: False) -> PruneReport:
        """Prune every bucket that came due since the last run. Idempotent: a second run finds
        nothing due; a run cut short (or failed) leaves the cursor at the bucket it was on."""
        report = PruneReport()
        read_before = self._store.items_read
        now = self._clock()
        lease = self._store.acquire(now, until=now + LEASE)
        if lease is None:
            report.skipped = True
            return report
        # Aligned to a bucket boundary (a cursor saved under another span still lands on one).
        bucket = prunable_at(lease.cursor or now - self._lookback)
        try:
            while bucket <= now and not should_stop():
                self._prune_bucket(Expiry(bucket), now, report)
                bucket += BUCKET_SPAN
                report.buckets += 1
                self._store.save(lease, bucket, release=False)
            report.caught_up = bucket > now
        finally:
            self._store.save(lease, bucket, release=True)
            report.items_read = self._store.items_read - read_before
        return report

    def _prune_bucket(self, bucket: Expiry, now: datetime, report: PruneReport) -> None:
        doomed: list[ExpiringItem] = []
        sessions = groupby(self._store.expiring(bucket), key=lambda i: (i.agent_id, i.session_key))
        for _, items in sessions:
            doomed += self._prune_session(list(items), now, report)
            if len(doomed) >= DELETE_BATCH:
                self._delete(doomed, report)
                doomed = []
        self._delete(doomed, report)

    def _prune_session(
        self, items: list[ExpiringItem], now: datetime, report: PruneReport
    ) -> list[ExpiringItem]:
        """Deletes the session's transcript and state if still due; answers its checkpoints and
        injections to delete."""
        injections = _of(items, ItemKind.INJECTION)
        return injections + self._prune_checkpoints(items, now, report)

    def _prune_checkpoints(
        self, items: list[ExpiringItem], now: datetime, report: PruneReport
    ) -> list[ExpiringItem]:
        for head in _of(items, ItemKind.TRANSCRIPT):
            if self._store.delete_if_unmoved(head):
                report.deleted[ItemKind.TRANSCRIPT] += 1
                report.deleted[ItemKind.TRANSCRIPT_BODY] += self._store.delete_bodies(head)
        inactive = False
        for state in _of(items, ItemKind.STATE):
            if self._store.delete_if_unmoved(state):
                report.deleted[ItemKind.STATE] += 1
                inactive = True  # its last activity is past the window: nothing of it is kept
        checkpoints = sorted(_of(items, ItemKind.CHECKPOINT), key=lambda c: c.item_id)
        if inactive or not checkpoints:
            return checkpoints
        *older, latest = checkpoints  # the older ones are never the newest: no read needed
        newest = self._store.newest_checkpoint(latest.agent_id, latest.session_key)
        if newest is None or newest < latest.item_id:
            return older  # ``latest`` is gone already
        if newest > latest.item_id:
            return checkpoints
        activity = self._store.last_activity(latest.agent_id, latest.session_key)
        if activity is not None:
            until = expiry(activity, self._retention)
            if until.prunable > now:  # the session is still within its window: keep its newest
                self._store.keep(latest, until)
                report.kept_latest += 1
                return older
        return checkpoints

    def _delete(self, doomed: list[ExpiringItem], report: PruneReport) -> None:
        if doomed:
            self._store.delete_checkpoints(doomed)
            report.deleted.update(item.kind.value for item in doomed)


def _of(items: Iterable[ExpiringItem], kind: ItemKind) -> list[ExpiringItem]:
    return [item for item in items if item.kind is kind]
