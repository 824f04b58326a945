"""The expiry index on stored items, and the "expired means gone" rule for reads.

Items that age out carry ``gsi3pk = EXP#{bucket}`` (the bucket their prunable instant closes),
``gsi3sk = {sha256(pk)[:20]}#{sk}`` (a session's items side by side, whatever the length of its
key) and ``expires_at`` (the TTL: a grace after the prunable instant for what the pruner deletes,
the instant itself for what TTL deletes). See ``retention/retention.py``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from continuity_core.kernel.expiry import Expiry, bucket_end, is_expired
from continuity_core.kernel.names import EXPIRY_BUCKET_PREFIX, EXPIRY_PK, EXPIRY_SK, TTL_ATTRIBUTE


def bucket_key(expiry: Expiry) -> str:
    return f"{EXPIRY_BUCKET_PREFIX}{expiry.bucket}"


def expiry_sort_key(pk: str, sk: str) -> str:
    return f"{hashlib.sha256(pk.encode('utf-8')).hexdigest()[:20]}#{sk}"


def expiry_values(pk: str, sk: str, expiry: Expiry, *, left_to_ttl: bool = False) -> dict[str, Any]:
    """The attributes that put an item in its expiry bucket (plain values, for ``to_attributes``).
    ``left_to_ttl`` (checkpoints, injection records): its TTL is the prunable instant itself."""
    return {
        EXPIRY_PK: bucket_key(expiry),
        EXPIRY_SK: expiry_sort_key(pk, sk),
        TTL_ATTRIBUTE: expiry.prunable_epoch if left_to_ttl else expiry.ttl_epoch,
    }


def item_expired(item: dict[str, Any], now: datetime) -> bool:
    """A raw (typed) DynamoDB item past its TTL; an item without one never expires."""
    ttl = item.get(TTL_ATTRIBUTE, {}).get("N")
    return is_expired(int(ttl) if ttl is not None else None, now)


def past_prunable(item: dict[str, Any], now: datetime) -> bool:
    """A raw checkpoint or injection record reads as gone past its TTL or its bucket's end, whichever
    comes first: they are equal on what is written now; items written before carry a TTL a day
    later, and TTL (not the pruner) deletes them, so the bucket is what hides them on time."""
    if item_expired(item, now):
        return True
    bucket = item.get(EXPIRY_PK, {}).get("S", "")
    if not bucket.startswith(EXPIRY_BUCKET_PREFIX):
        return False
    return is_expired(int(bucket_end(bucket[len(EXPIRY_BUCKET_PREFIX) :]).timestamp()), now)


def live(items: Iterable[dict[str, Any]], now: datetime) -> list[dict[str, Any]]:
    """What a read returns (``past_prunable``: by their TTL alone for items outside the expiry index)."""
    return [item for item in items if not past_prunable(item, now)]
