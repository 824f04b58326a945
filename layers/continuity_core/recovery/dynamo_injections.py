"""Injections in DynamoDB: one item per session start or sub-agent start, under the session.

The block itself is one zlib-compressed attribute (``body``: DynamoDB bills the write by the item's
size, and a 9,000-character block compresses to ~3 KB), the rest plain attributes. Each item's TTL is
the end of the session's retention from the injection (rounded up to its 6-hour bucket): reads stop
returning it then and DynamoDB's TTL deletes it. Nothing keeps an injection longer, so it is in no
index (written before 2026-11-27, it was in the expiry index; those go by TTL, a day after reads
stopped returning them). The erasure path deletes everything under the session's key, these
included.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from continuity_core.kernel.aws import call_dynamodb
from continuity_core.kernel.clock import Clock
from continuity_core.kernel.dynamo_expiry import live
from continuity_core.kernel.dynamo_items import (
    body_attribute,
    item_key,
    parse_timestamp,
    session_pk,
    timestamp,
    to_attributes,
    with_body,
)
from continuity_core.kernel.expiry import expiry
from continuity_core.kernel.names import INJECTION_PREFIX, PK, SK, TTL_ATTRIBUTE
from continuity_core.models.injections import InjectionRecord

_BODY_FIELDS = ("text", "sections")


def injection_sk(record: InjectionRecord) -> str:
    return f"{INJECTION_PREFIX}{timestamp(record.at)}#{record.event}"


def injection_item(agent_id: str, record: InjectionRecord, retention: timedelta) -> dict[str, Any]:
    """The stored item: the record under its session, the block and sections compressed, its TTL
    the session's retention from the injection (no index copy: TTL, not the pruner, deletes it)."""
    pk, sk = session_pk(agent_id, record.session_key), injection_sk(record)
    values = record.model_dump(mode="json", exclude=set(_BODY_FIELDS))
    values["at"] = timestamp(record.at)
    values[TTL_ATTRIBUTE] = expiry(record.at, retention).prunable_epoch
    body = body_attribute(record.model_dump(mode="json", include=set(_BODY_FIELDS)))
    return item_key(pk, sk) | to_attributes(values) | body


class DynamoInjectionLog:
    def __init__(self, table_name: str, retention: timedelta, clock: Clock) -> None:
        self._table = table_name
        self._retention = retention
        self._clock = clock

    def record(self, agent_id: str, record: InjectionRecord) -> None:
        item = injection_item(agent_id, record, self._retention)
        call_dynamodb("put_item", TableName=self._table, Item=item)

    def for_session(self, agent_id: str, session_key: str, limit: int) -> list[InjectionRecord]:
        answer = call_dynamodb(
            "query",
            TableName=self._table,
            KeyConditionExpression="#pk = :pk AND begins_with(#sk, :prefix)",
            ExpressionAttributeNames={"#pk": PK, "#sk": SK},
            ExpressionAttributeValues={
                ":pk": {"S": session_pk(agent_id, session_key)},
                ":prefix": {"S": INJECTION_PREFIX},
            },
            ScanIndexForward=False,
            Limit=limit,
        )
        return [_record(item) for item in live(answer.get("Items", []), self._clock())]


def _record(item: dict[str, Any]) -> InjectionRecord:
    values = with_body(item)
    values["at"] = parse_timestamp(values["at"])
    return InjectionRecord.model_validate(values)
