"""Tokens in DynamoDB: looked up by hash (the authorizer), listed and revoked by id (the admin)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from continuity_core.adapters.dynamo_items import (
    from_attributes,
    item_key,
    parse_timestamp,
    timestamp,
    to_attributes,
)
from continuity_core.adapters.dynamo_state import call_dynamodb
from continuity_core.models.tokens import TokenRecord
from continuity_core.names import PK, SK, TOKEN_HASH_PREFIX, TOKEN_INDEX_PK, TOKEN_SK

# Tokens are global (not under an agent): the hash item answers the authorizer in one GetItem,
# the index item lists them and finds a token's hash from its public id.
_TIMES = ("created_at", "expires_at", "revoked_at")


def record_values(record: TokenRecord) -> dict[str, Any]:
    values = record.model_dump(mode="json")
    for name in _TIMES:
        moment = getattr(record, name)
        values[name] = timestamp(moment) if moment else None
    return values


def record_from_item(item: dict[str, Any]) -> TokenRecord:
    values = from_attributes(item)
    for name in _TIMES:
        if values.get(name):
            values[name] = parse_timestamp(values[name])
    return TokenRecord.model_validate(values)


class DynamoTokenStore:
    def __init__(self, table_name: str) -> None:
        self._table = table_name

    def put(self, record: TokenRecord) -> None:
        values = record_values(record)
        call_dynamodb(
            "transact_write_items",
            TransactItems=[
                {
                    "Put": {
                        "TableName": self._table,
                        "Item": to_attributes(
                            {**values, PK: TOKEN_HASH_PREFIX + record.token_sha256, SK: TOKEN_SK}
                        ),
                        "ConditionExpression": f"attribute_not_exists({PK})",
                    }
                },
                {
                    "Put": {
                        "TableName": self._table,
                        "Item": to_attributes({**values, PK: TOKEN_INDEX_PK, SK: record.token_id}),
                        "ConditionExpression": f"attribute_not_exists({PK})",
                    }
                },
            ],
        )

    def by_hash(self, token_sha256: str) -> TokenRecord | None:
        item = call_dynamodb(
            "get_item", TableName=self._table, Key=item_key(TOKEN_HASH_PREFIX + token_sha256, TOKEN_SK)
        ).get("Item")
        return record_from_item(item) if item else None

    def all(self) -> list[TokenRecord]:
        records: list[TokenRecord] = []
        request: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": f"{PK} = :pk",
            "ExpressionAttributeValues": {":pk": {"S": TOKEN_INDEX_PK}},
        }
        while True:
            response = call_dynamodb("query", **request)
            records += [record_from_item(item) for item in response.get("Items", [])]
            if "LastEvaluatedKey" not in response:
                return records
            request["ExclusiveStartKey"] = response["LastEvaluatedKey"]

    def revoke(self, token_id: str, now: datetime) -> TokenRecord | None:
        key = item_key(TOKEN_INDEX_PK, token_id)
        item = call_dynamodb("get_item", TableName=self._table, Key=key).get("Item")
        if not item:
            return None
        record = record_from_item(item)
        if record.revoked_at is not None:
            return record
        update = {
            "UpdateExpression": "SET revoked_at = :now",
            "ExpressionAttributeValues": {":now": {"S": timestamp(now)}},
        }
        call_dynamodb(
            "transact_write_items",
            TransactItems=[
                {
                    "Update": {
                        "TableName": self._table,
                        "Key": item_key(TOKEN_HASH_PREFIX + record.token_sha256, TOKEN_SK),
                        **update,
                    }
                },
                {"Update": {"TableName": self._table, "Key": item_key(TOKEN_INDEX_PK, token_id), **update}},
            ],
        )
        return record.model_copy(update={"revoked_at": now})
