"""Shared rate-limit windows in DynamoDB: one small item per token and minute, expiring by TTL."""

from __future__ import annotations

from continuity_core.adapters.dynamo_items import item_key
from continuity_core.adapters.dynamo_state import call_dynamodb
from continuity_core.names import RATE_PREFIX, TTL_ATTRIBUTE


class DynamoRateCounter:
    def __init__(self, table_name: str) -> None:
        self._table = table_name

    def add(self, key: str, window: int, count: int, expires_at: int) -> int:
        response = call_dynamodb(
            "update_item",
            TableName=self._table,
            Key=item_key(f"{RATE_PREFIX}{key}", str(window)),
            UpdateExpression=f"ADD hits :count SET {TTL_ATTRIBUTE} = :expires",
            ExpressionAttributeValues={":count": {"N": str(count)}, ":expires": {"N": str(expires_at)}},
            ReturnValues="UPDATED_NEW",
        )
        return int(response["Attributes"]["hits"]["N"])
