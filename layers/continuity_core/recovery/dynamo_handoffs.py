"""Hand-offs in DynamoDB: one item under the project's key, in the project index while open.

The item is HANDOFF#{at}#{id} under A#{agent}#P#{project}; while open, its index keys put it at
OPEN#HANDOFF#{at}#{id} in the project's index partition, after the ledger head, so the session
start's newest-first query reads the open hand-offs first (``dynamo_checkpoints.project_snapshot``).
Consuming or closing one removes its index keys, conditioned on their being there: once only.
Each write also keeps the project's record's count of open hand-offs (``dynamo_projects``).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from continuity_core.kernel.aws import call_dynamodb
from continuity_core.kernel.clock import Clock
from continuity_core.kernel.dynamo_expiry import live
from continuity_core.kernel.dynamo_items import (
    checkpoint_sk,
    item_key,
    model_item,
    model_values,
    project_pk,
    timestamp,
    to_attribute,
)
from continuity_core.kernel.expiry import expiry
from continuity_core.kernel.names import (
    HANDOFF_PREFIX,
    OPEN_HANDOFF_INDEX_PREFIX,
    PK,
    PROJECT_INDEX,
    PROJECT_INDEX_PK,
    PROJECT_INDEX_SK,
    SK,
    TTL_ATTRIBUTE,
)
from continuity_core.models.handoff import Handoff
from continuity_core.sessions.dynamo_projects import handoff_opened, project_record_key

# The story it carries, compressed like a checkpoint's body.
_BODY_FIELDS = ("digest", "session_digest", "note", "uncommitted")
_TIMES = ("created_at", "consumed_at")


def _suffix(handoff: Handoff) -> str:
    # checkpoint_sk's "CP#{at}#{id}" without its prefix: time order, then id.
    return checkpoint_sk(handoff.created_at, handoff.id).split("#", 1)[1]


def handoff_key(agent_id: str, handoff: Handoff) -> dict[str, Any]:
    return item_key(project_pk(agent_id, handoff.project_normalized), HANDOFF_PREFIX + _suffix(handoff))


def open_index_sk(handoff: Handoff) -> str:
    return OPEN_HANDOFF_INDEX_PREFIX + _suffix(handoff)


def handoff_item(agent_id: str, handoff: Handoff, retention: timedelta) -> dict[str, Any]:
    key = handoff_key(agent_id, handoff)
    pk, sk = key[PK]["S"], key[SK]["S"]
    keys: dict[str, Any] = {PK: pk, SK: sk}
    if handoff.open:
        keys.update({PROJECT_INDEX_PK: pk, PROJECT_INDEX_SK: open_index_sk(handoff)})
    # TTL only, like the project's session notes: the pruner's expiry index is for session items.
    keys[TTL_ATTRIBUTE] = expiry(handoff.created_at, retention).ttl_epoch
    return model_item(handoff, _BODY_FIELDS, _TIMES, keys)


def handoff_from_item(item: dict[str, Any]) -> Handoff:
    return Handoff.model_validate(model_values(item, _TIMES))


def is_open_handoff_item(item: dict[str, Any]) -> bool:
    return str(item.get(PROJECT_INDEX_SK, {}).get("S", "")).startswith(OPEN_HANDOFF_INDEX_PREFIX)


def consume_update(
    agent_id: str, handoff: Handoff, session_key: str, now: datetime, table: str
) -> dict[str, Any]:
    """The transaction's part that gives an open hand-off to ``session_key``: only while it is open."""
    return {
        "Update": {
            "TableName": table,
            "Key": handoff_key(agent_id, handoff),
            "UpdateExpression": (
                "SET consumed_by = :session, consumed_at = :now "
                f"REMOVE {PROJECT_INDEX_PK}, {PROJECT_INDEX_SK}"
            ),
            "ConditionExpression": f"{PROJECT_INDEX_SK} = :open",
            "ExpressionAttributeValues": {
                ":session": to_attribute(session_key),
                ":now": to_attribute(timestamp(now)),
                ":open": to_attribute(open_index_sk(handoff)),
            },
        }
    }


class DynamoHandoffStore:
    def __init__(
        self, table_name: str, retention: timedelta, clock: Clock = lambda: datetime.now(UTC)
    ) -> None:
        self._table = table_name
        self._retention = retention
        self._clock = clock

    def put(self, agent_id: str, handoff: Handoff, close: list[Handoff]) -> None:
        """The hand-off, the ones it closes and its project's record (its count of open hand-offs) in
        one transaction."""
        put = {"Put": {"TableName": self._table, "Item": handoff_item(agent_id, handoff, self._retention)}}
        closes = [self._close(agent_id, old) for old in close]
        opened = handoff_opened(handoff, close, self._retention)
        key = project_record_key(agent_id, handoff.project_normalized)
        record = {"Update": {"TableName": self._table, "Key": key, **opened.request()}}
        call_dynamodb("transact_write_items", TransactItems=[put, record, *closes])

    def _close(self, agent_id: str, handoff: Handoff) -> dict[str, Any]:
        # Unconditional: one consumed meanwhile is already out of the open list, and stays consumed.
        return {
            "Update": {
                "TableName": self._table,
                "Key": handoff_key(agent_id, handoff),
                "UpdateExpression": f"REMOVE {PROJECT_INDEX_PK}, {PROJECT_INDEX_SK}",
            }
        }

    def open_for_project(self, agent_id: str, project_normalized: str, limit: int) -> list[Handoff]:
        response = call_dynamodb(
            "query",
            TableName=self._table,
            IndexName=PROJECT_INDEX,
            KeyConditionExpression=f"{PROJECT_INDEX_PK} = :pk AND begins_with({PROJECT_INDEX_SK}, :open)",
            ExpressionAttributeValues={
                ":pk": {"S": project_pk(agent_id, project_normalized)},
                ":open": {"S": OPEN_HANDOFF_INDEX_PREFIX},
            },
            ScanIndexForward=False,
            Limit=limit,
        )
        return [handoff_from_item(item) for item in live(response.get("Items", []), self._clock())]
