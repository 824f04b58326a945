"""Shared rate-limit windows in DynamoDB: one small item per token and minute, expiring by TTL."""

from __future__ import annotations

from continuity_core.adapters.dynamo_state import call_dynamodb


class DynamoRateCounter:
    def __init__(self, table_name: str) -> None:
        self._table = table_name

    def add(self, key: str, window: int, count: int, expires_at: int) -> int:
        response = call_dynamodb(
            "update_item",
            TableName=self._table,
            Key={"pk": {"S": f"RATE#{key}"}, "sk": {"S": str(window)}},
            UpdateExpression="ADD hits :count SET expires_at = :expires",
            ExpressionAttributeValues={":count": {"N": str(count)}, ":expires": {"N": str(expires_at)}},
            ReturnValues="UPDATED_NEW",
        )
        return int(response["Attributes"]["hits"]["N"])
