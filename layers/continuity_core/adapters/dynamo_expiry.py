"""The expiry index on stored items, and the "expired means gone" rule for reads.

Items that age out carry ``gsi3pk = EXP#{bucket}`` (the bucket their prunable instant closes),
``gsi3sk = {sha256(pk)[:20]}#{sk}`` (a session's items side by side, whatever the length of its
key) and ``expires_at`` (the TTL, a grace after the prunable instant). See ``logic/retention.py``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from continuity_core.logic.retention import Expiry, is_expired
from continuity_core.names import EXPIRY_BUCKET_PREFIX, EXPIRY_PK, EXPIRY_SK, TTL_ATTRIBUTE


def bucket_key(expiry: Expiry) -> str:
    return f"{EXPIRY_BUCKET_PREFIX}{expiry.bucket}"


def expiry_sort_key(pk: str, sk: str) -> str:
    return f"{hashlib.sha256(pk.encode('utf-8')).hexdigest()[:20]}#{sk}"


def expiry_values(pk: str, sk: str, expiry: Expiry) -> dict[str, Any]:
    """The attributes that put an item in its expiry bucket (plain values, for ``to_attributes``)."""
    return {
        EXPIRY_PK: bucket_key(expiry),
        EXPIRY_SK: expiry_sort_key(pk, sk),
        TTL_ATTRIBUTE: expiry.ttl_epoch,
    }


def item_expired(item: dict[str, Any], now: datetime) -> bool:
    """A raw (typed) DynamoDB item past its TTL; an item without one never expires."""
    ttl = item.get(TTL_ATTRIBUTE, {}).get("N")
    return is_expired(int(ttl) if ttl is not None else None, now)


def live(items: Iterable[dict[str, Any]], now: datetime) -> list[dict[str, Any]]:
    return [item for item in items if not item_expired(item, now)]
