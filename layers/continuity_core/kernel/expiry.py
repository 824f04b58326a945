"""When a stored item expires: its prunable instant, rounded up to a bucket's end, and its TTL.

Every adapter writes these on the items it stores and reads them back ("expired means gone"); the
pruner's rules over them, and why items are bucketed so, are ``retention/retention.py``'s.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

BUCKET_SPAN = timedelta(hours=6)
# The TTL of what the pruner deletes (state, transcript heads) trails the prunable instant by this
# much: far more than a span plus the hour between runs, so the pruner (not TTL) deletes them.
TTL_GRACE = timedelta(days=1)

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
        """The TTL of what the pruner deletes (state, transcript heads): a grace after the instant."""
        return int((self.prunable + TTL_GRACE).timestamp())

    @property
    def prunable_epoch(self) -> int:
        """The TTL of what TTL deletes (checkpoints, injection records): the instant itself."""
        return int(self.prunable.timestamp())


def bucket_end(bucket: str) -> datetime:
    """The prunable instant a bucket's name stands for (``Expiry.bucket`` read back)."""
    return datetime.strptime(bucket, "%Y-%m-%dT%H").replace(tzinfo=UTC)


def expiry(last_change: datetime, keep: timedelta) -> Expiry:
    """The expiry of an item kept ``keep`` after ``last_change`` (creation, last activity, last append)."""
    return Expiry(prunable_at(last_change + keep))


def is_expired(ttl_epoch: int | None, now: datetime) -> bool:
    """Past its TTL: reads treat the item as gone even while DynamoDB still returns it."""
    return ttl_epoch is not None and ttl_epoch < int(now.timestamp())
