"""Shared rate-limit windows in DynamoDB: one small item per token and minute, expiring by TTL."""

from __future__ import annotations

from continuity_core.adapters.dynamo_batch import batch_get
from continuity_core.adapters.dynamo_items import item_key
from continuity_core.adapters.dynamo_state import call_dynamodb
from continuity_core.names import RATE_PREFIX, SK, TTL_ATTRIBUTE

HITS = "hits"  # a window's request count


def window_key(key: str, window: int) -> dict:
    return item_key(f"{RATE_PREFIX}{key}", str(window))


class DynamoRateCounter:
    def __init__(self, table_name: str) -> None:
        self._table = table_name

    def add(self, key: str, window: int, count: int, expires_at: int) -> int:
        response = call_dynamodb(
            "update_item",
            TableName=self._table,
            Key=window_key(key, window),
            UpdateExpression=f"ADD {HITS} :count SET {TTL_ATTRIBUTE} = :expires",
            ExpressionAttributeValues={":count": {"N": str(count)}, ":expires": {"N": str(expires_at)}},
            ReturnValues="UPDATED_NEW",
        )
        return int(response["Attributes"][HITS]["N"])

    def counts(self, keys: list[str], windows: list[int]) -> dict[int, int]:
        """Requests per window, summed over ``keys`` (one batch read per 100 key-windows)."""
        wanted = [window_key(key, window) for key in keys for window in windows]
        counts: dict[int, int] = {}
        for item in batch_get(self._table, wanted):
            window = int(item[SK]["S"])
            counts[window] = counts.get(window, 0) + int(item.get(HITS, {}).get("N", 0))
        return counts
