"""What the pruner reads, deletes and keeps: buckets of the expiry index, its cursor, S3 bodies.

It deletes state and transcript heads (conditionally) and their S3 bodies; checkpoints and
injection records are left to DynamoDB's TTL, a kept checkpoint's bucket and TTL are moved.

The cursor is one item (``pk = PRUNER``, ``sk = CURSOR``): the next bucket to prune and, while a
run is on, its lease (a token and an expiry), so two runs never prune at once. ``items_read``
counts the items DynamoDB handed back (what the pruner's reads cost, for its log line).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from continuity_core.kernel.aws import call_dynamodb, write_if
from continuity_core.kernel.dynamo_expiry import bucket_key
from continuity_core.kernel.dynamo_items import (
    from_attributes,
    item_key,
    parse_timestamp,
    session_pk,
    timestamp,
    to_attribute,
)
from continuity_core.kernel.expiry import Expiry
from continuity_core.kernel.names import (
    AGENT_PREFIX,
    CHECKPOINT_PREFIX,
    EXPIRY_INDEX,
    EXPIRY_PK,
    INJECTION_PREFIX,
    PK,
    PRUNER_CURSOR_PK,
    PRUNER_CURSOR_SK,
    SESSION_PART,
    SK,
    STATE_SK,
    TRANSCRIPT_SK,
    TTL_ATTRIBUTE,
)
from continuity_core.kernel.observability import logger
from continuity_core.retention.ports import ExpiringItem, ItemKind, Lease, LeaseLostError
from continuity_core.transcripts.s3_bodies import S3BodyStore, chunk_key

CURSOR_KEY = item_key(PRUNER_CURSOR_PK, PRUNER_CURSOR_SK)


class DynamoRetentionStore:
    def __init__(self, table_name: str, bodies: S3BodyStore) -> None:
        self._table = table_name
        self._bodies = bodies
        self.items_read = 0

    # -- the cursor and its lease ------------------------------------------------------------------

    def acquire(self, now: datetime, until: datetime) -> Lease | None:
        from botocore.exceptions import ClientError

        token = uuid.uuid4().hex
        try:
            response = call_dynamodb(
                "update_item",
                TableName=self._table,
                Key=CURSOR_KEY,
                UpdateExpression="SET lease_token = :token, lease_until = :until",
                ConditionExpression="attribute_not_exists(lease_until) OR lease_until < :now",
                ExpressionAttributeValues={
                    ":token": to_attribute(token),
                    ":until": to_attribute(timestamp(until)),
                    ":now": to_attribute(timestamp(now)),
                },
                ReturnValues="ALL_NEW",
            )
        except ClientError as error:
            if error.response["Error"]["Code"] == "ConditionalCheckFailedException":
                return None
            raise
        self.items_read += 1
        cursor = response["Attributes"].get("cursor", {}).get("S")
        return Lease(token=token, cursor=parse_timestamp(cursor) if cursor else None)

    def save(self, lease: Lease, cursor: datetime, release: bool) -> None:
        from botocore.exceptions import ClientError

        expression = "SET #cursor = :cursor" + (" REMOVE lease_token, lease_until" if release else "")
        try:
            call_dynamodb(
                "update_item",
                TableName=self._table,
                Key=CURSOR_KEY,
                UpdateExpression=expression,
                ConditionExpression="lease_token = :token",
                ExpressionAttributeNames={"#cursor": "cursor"},
                ExpressionAttributeValues={
                    ":cursor": to_attribute(timestamp(cursor)),
                    ":token": to_attribute(lease.token),
                },
            )
        except ClientError as error:
            if error.response["Error"]["Code"] == "ConditionalCheckFailedException":
                raise LeaseLostError("another pruner run holds the cursor") from error
            raise

    # -- reading a due bucket ----------------------------------------------------------------------

    def expiring(self, bucket: Expiry) -> Iterator[ExpiringItem]:
        request: dict[str, Any] = {
            "TableName": self._table,
            "IndexName": EXPIRY_INDEX,
            "KeyConditionExpression": f"{EXPIRY_PK} = :bucket",
            "ExpressionAttributeValues": {":bucket": {"S": bucket_key(bucket)}},
        }
        while True:
            response = call_dynamodb("query", **request)
            self.items_read += response.get("ScannedCount", len(response.get("Items", [])))
            for item in response.get("Items", []):
                expiring = _expiring_item(item)
                if expiring is not None:
                    yield expiring
            if "LastEvaluatedKey" not in response:
                return
            request["ExclusiveStartKey"] = response["LastEvaluatedKey"]

    def newest_checkpoint(self, agent_id: str, session_key: str) -> str | None:
        response = call_dynamodb(
            "query",
            TableName=self._table,
            KeyConditionExpression=f"{PK} = :pk AND begins_with({SK}, :prefix)",
            ExpressionAttributeValues={
                ":pk": {"S": session_pk(agent_id, session_key)},
                ":prefix": {"S": CHECKPOINT_PREFIX},
            },
            ProjectionExpression=SK,
            ScanIndexForward=False,
            Limit=1,
        )
        self.items_read += response.get("ScannedCount", 0)
        items = response.get("Items", [])
        return str(items[0][SK]["S"]) if items else None

    def last_activity(self, agent_id: str, session_key: str) -> datetime | None:
        response = call_dynamodb(
            "get_item",
            TableName=self._table,
            Key=item_key(session_pk(agent_id, session_key), STATE_SK),
            ProjectionExpression="last_activity_at",
            ConsistentRead=True,
        )
        item = response.get("Item")
        if not item:
            return None
        self.items_read += 1
        value = from_attributes(item).get("last_activity_at")
        return parse_timestamp(value) if value else None

    # -- deleting and keeping ----------------------------------------------------------------------

    def delete_if_unmoved(self, item: ExpiringItem) -> bool:
        return write_if(
            "delete_item",
            TableName=self._table,
            Key=_key(item),
            # A prompt or an append since the bucket was read moved the item to a later bucket.
            ConditionExpression=f"{EXPIRY_PK} = :bucket",
            ExpressionAttributeValues={":bucket": {"S": item.bucket}},
        )

    def delete_bodies(self, item: ExpiringItem) -> int:
        keys = [
            chunk_key(item.agent_id, item.session_key, number, chunk_id)
            for number, chunk_id in enumerate(item.chunk_ids)
        ]
        if not keys:
            return 0
        try:
            failed = self._bodies.delete_many(keys)
        except Exception:  # the head is gone: the bucket's lifecycle rule removes the orphans
            logger.warning("could not delete transcript bodies", extra={"session": item.session_key})
            return 0
        if failed:
            logger.warning("some transcript bodies were not deleted", extra={"keys": failed[:10]})
        return len(keys) - len(failed)

    def keep(self, item: ExpiringItem, until: Expiry) -> None:
        write_if(
            "update_item",
            TableName=self._table,
            Key=_key(item),
            UpdateExpression=f"SET {EXPIRY_PK} = :bucket, {TTL_ATTRIBUTE} = :ttl",
            ConditionExpression=f"attribute_exists({PK})",  # never re-create a deleted item
            ExpressionAttributeValues={
                ":bucket": {"S": bucket_key(until)},
                ":ttl": to_attribute(until.prunable_epoch),  # left to TTL, like every checkpoint
            },
        )


def _expiring_item(item: dict[str, Any]) -> ExpiringItem | None:
    pk, sk = item[PK]["S"], item[SK]["S"]
    session_key = item.get("session_key", {}).get("S")
    kind = (
        ItemKind.CHECKPOINT
        if sk.startswith(CHECKPOINT_PREFIX)
        else ItemKind.INJECTION
        if sk.startswith(INJECTION_PREFIX)
        else {STATE_SK: ItemKind.STATE, TRANSCRIPT_SK: ItemKind.TRANSCRIPT}.get(sk)
    )
    suffix = f"{SESSION_PART}{session_key}"
    if kind is None or session_key is None or not (pk.startswith(AGENT_PREFIX) and pk.endswith(suffix)):
        logger.warning("unexpected item in the expiry index", extra={"pk": pk[:80], "sk": sk[:80]})
        return None
    return ExpiringItem(
        kind=kind,
        agent_id=pk[len(AGENT_PREFIX) : len(pk) - len(suffix)],
        session_key=session_key,
        item_id=sk,
        bucket=item[EXPIRY_PK]["S"],
        chunk_ids=tuple(value["S"] for value in item.get("chunk_ids", {}).get("L", [])),
    )


def _key(item: ExpiringItem) -> dict[str, Any]:
    return item_key(session_pk(item.agent_id, item.session_key), item.item_id)
