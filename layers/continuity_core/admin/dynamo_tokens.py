"""Tokens in DynamoDB: found by hash (the authorizer), listed and revoked under their agent (its
admin), the tenants' list (the operator)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from continuity_core.kernel.aws import call_dynamodb, write_if
from continuity_core.kernel.dynamo_items import (
    from_attributes,
    item_key,
    parse_timestamp,
    timestamp,
    to_attributes,
)
from continuity_core.kernel.names import (
    AGENT_PREFIX,
    LEGACY_TOKEN_INDEX_PK,
    PK,
    SK,
    TENANTS_PK,
    TOKEN_HASH_PREFIX,
    TOKEN_SK,
    TOKENS_PART,
)
from continuity_core.models.tokens import TokenRecord

# Two items a token: the hash item answers the authorizer in one GetItem (it cannot know the agent
# before it), the agent's item lists it and finds its hash from its public id.
_TIMES = ("created_at", "expires_at", "revoked_at")


def agent_tokens_pk(agent_id: str) -> str:
    return f"{AGENT_PREFIX}{agent_id}{TOKENS_PART}"


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

    def _puts(self, record: TokenRecord) -> list[dict[str, Any]]:
        values = record_values(record)
        keys = (
            (TOKEN_HASH_PREFIX + record.token_sha256, TOKEN_SK),
            (agent_tokens_pk(record.agent_id), record.token_id),
        )
        return [
            {
                "Put": {
                    "TableName": self._table,
                    "Item": to_attributes({**values, PK: pk, SK: sk}),
                    "ConditionExpression": f"attribute_not_exists({PK})",
                }
            }
            for pk, sk in keys
        ]

    def put(self, record: TokenRecord) -> None:
        call_dynamodb("transact_write_items", TransactItems=self._puts(record))

    def by_hash(self, token_sha256: str) -> TokenRecord | None:
        item = call_dynamodb(
            "get_item", TableName=self._table, Key=item_key(TOKEN_HASH_PREFIX + token_sha256, TOKEN_SK)
        ).get("Item")
        return record_from_item(item) if item else None

    def for_agent(self, agent_id: str) -> list[TokenRecord]:
        return [record_from_item(item) for item in self._query(agent_tokens_pk(agent_id))]

    def revoke(self, agent_id: str, token_id: str, now: datetime) -> TokenRecord | None:
        key = item_key(agent_tokens_pk(agent_id), token_id)
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
                {"Update": {"TableName": self._table, "Key": key, **update}},
            ],
        )
        return record.model_copy(update={"revoked_at": now})

    def add_tenant(self, record: TokenRecord) -> bool:
        from botocore.exceptions import ClientError

        tenant = {
            "Put": {
                "TableName": self._table,
                "Item": to_attributes(
                    {PK: TENANTS_PK, SK: record.agent_id, "created_at": timestamp(record.created_at)}
                ),
                "ConditionExpression": f"attribute_not_exists({PK})",
            }
        }
        try:
            call_dynamodb("transact_write_items", TransactItems=[tenant, *self._puts(record)])
        except ClientError as error:
            reasons = error.response.get("CancellationReasons") or []
            if reasons and reasons[0].get("Code") == "ConditionalCheckFailed":
                return False
            raise
        return True

    def tenants(self) -> list[str]:
        return [item[SK]["S"] for item in self._query(TENANTS_PK)]

    def migrate_legacy(self) -> int:
        """Move each token item of the version before tenant admins (every agent's under one
        partition) under its agent, and its agent into the tenants' list; the hash items stay as
        they are. Idempotent: a moved item is deleted last, so a rerun finds only what is left."""
        moved = 0
        for item in self._query(LEGACY_TOKEN_INDEX_PK):
            record = record_from_item(item)
            values = {k: v for k, v in item.items() if k not in (PK, SK)}
            own = {**values, PK: {"S": agent_tokens_pk(record.agent_id)}, SK: item[SK]}
            call_dynamodb("put_item", TableName=self._table, Item=own)  # the same item: safe twice
            write_if(
                "put_item",
                TableName=self._table,
                Item=to_attributes(
                    {PK: TENANTS_PK, SK: record.agent_id, "created_at": timestamp(record.created_at)}
                ),
                ConditionExpression=f"attribute_not_exists({PK})",
            )
            legacy = item_key(LEGACY_TOKEN_INDEX_PK, item[SK]["S"])
            call_dynamodb("delete_item", TableName=self._table, Key=legacy)
            moved += 1
        return moved

    def _query(self, pk: str) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        request: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": f"{PK} = :pk",
            "ExpressionAttributeValues": {":pk": {"S": pk}},
        }
        while True:
            response = call_dynamodb("query", **request)
            items += response.get("Items", [])
            if "LastEvaluatedKey" not in response:
                return items
            request["ExclusiveStartKey"] = response["LastEvaluatedKey"]
