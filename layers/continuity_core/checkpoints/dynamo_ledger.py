"""The decision ledger in DynamoDB: append-only entries per project, plus a head of the newest."""

from __future__ import annotations

from typing import Any

from continuity_core.kernel.aws import call_dynamodb, write_if
from continuity_core.kernel.dynamo_batch import batch_write
from continuity_core.kernel.dynamo_items import (
    from_attributes,
    item_key,
    ledger_entry_sk,
    ledger_pk,
    parse_timestamp,
    project_pk,
    timestamp,
    to_attribute,
    to_attributes,
)
from continuity_core.kernel.dynamo_pages import decode_page_token, encode_page_token
from continuity_core.kernel.names import (
    LEDGER_ENTRY_PREFIX,
    LEDGER_HEAD_INDEX_SK,
    LEDGER_HEAD_SK,
    PK,
    PROJECT_INDEX_PK,
    PROJECT_INDEX_SK,
    SK,
)
from continuity_core.models.digest import LedgerEntry, LedgerPage

# The head keeps at least this many of the newest decisions (trimmed lazily at twice as many).
HEAD_DECISIONS = 20


def entry_values(entry: LedgerEntry) -> dict[str, Any]:
    values = entry.model_dump(mode="json")
    values["created_at"] = timestamp(entry.created_at)
    return values


def entry_from_item(item: dict[str, Any]) -> LedgerEntry:
    values = from_attributes(item)
    values["created_at"] = parse_timestamp(values["created_at"])
    return LedgerEntry.model_validate(values)


class DynamoLedgerStore:
    def __init__(self, table_name: str) -> None:
        self._table = table_name

    def append(self, agent_id: str, entries: list[LedgerEntry]) -> None:
        if not entries:
            return
        # Entries first (the ledger's truth, written once each), then the head that recovery reads.
        puts = [
            {
                "PutRequest": {
                    "Item": to_attributes(
                        {
                            **entry_values(entry),
                            PK: ledger_pk(agent_id, entry.project_normalized),
                            SK: ledger_entry_sk(entry.created_at, entry.id),
                        }
                    )
                }
            }
            for entry in entries
        ]
        batch_write(self._table, puts)
        for project in dict.fromkeys(entry.project_normalized for entry in entries):
            self._advance_head(agent_id, project, [e for e in entries if e.project_normalized == project])

    def page(
        self, agent_id: str, project_normalized: str, limit: int, token: str | None = None
    ) -> LedgerPage:
        scope = {PK: ledger_pk(agent_id, project_normalized)}
        request: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": f"{PK} = :pk AND begins_with({SK}, :prefix)",
            "ExpressionAttributeValues": {
                ":pk": {"S": scope[PK]},
                ":prefix": {"S": LEDGER_ENTRY_PREFIX},
            },
            "ScanIndexForward": False,
            "Limit": limit,
        }
        if token:
            request["ExclusiveStartKey"] = decode_page_token(token, scope, {SK: LEDGER_ENTRY_PREFIX})
        response = call_dynamodb("query", **request)
        entries = [entry_from_item(item) for item in response.get("Items", [])]
        last = response.get("LastEvaluatedKey")
        return LedgerPage(entries=entries, next_token=encode_page_token(last, scope) if last else None)

    def _advance_head(self, agent_id: str, project: str, entries: list[LedgerEntry]) -> None:
        key = item_key(ledger_pk(agent_id, project), LEDGER_HEAD_SK)
        response = call_dynamodb(
            "update_item",
            TableName=self._table,
            Key=key,
            UpdateExpression=(
                "SET recent = list_append(if_not_exists(recent, :empty), :new), "
                f"{PROJECT_INDEX_PK} = :gsi1pk, {PROJECT_INDEX_SK} = :gsi1sk ADD decision_count :count"
            ),
            ExpressionAttributeValues={
                ":empty": to_attribute([]),
                ":new": to_attribute([entry_values(e) for e in entries]),
                ":gsi1pk": to_attribute(project_pk(agent_id, project)),
                ":gsi1sk": to_attribute(LEDGER_HEAD_INDEX_SK),
                ":count": to_attribute(len(entries)),
            },
            ReturnValues="UPDATED_NEW",
        )
        recent = response["Attributes"]["recent"]["L"]
        if len(recent) > 2 * HEAD_DECISIONS:
            self._trim_head(key, len(recent))

    def _trim_head(self, key: dict[str, Any], length: int) -> None:

        drop = length - HEAD_DECISIONS
        # False when another append moved the head on: it trims next time.
        write_if(
            "update_item",
            TableName=self._table,
            Key=key,
            UpdateExpression="REMOVE " + ", ".join(f"recent[{i}]" for i in range(drop)),
            ConditionExpression="size(recent) = :length",
            ExpressionAttributeValues={":length": to_attribute(length)},
        )
