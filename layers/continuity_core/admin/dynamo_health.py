"""What the health route reads: SQS's queue attributes, the rate windows, the pruner's cursor."""

from __future__ import annotations

from typing import Any

from continuity_core.admin.dynamo_rate import DynamoRateCounter
from continuity_core.admin.ports import Traffic
from continuity_core.kernel.aws import call, call_dynamodb
from continuity_core.kernel.dynamo_items import item_key, parse_timestamp
from continuity_core.kernel.names import PRUNER_CURSOR_PK, PRUNER_CURSOR_SK
from continuity_core.models.health import PrunerStatus, QueueDepth

_DEPTH = (
    "ApproximateNumberOfMessages",
    "ApproximateNumberOfMessagesNotVisible",
    "ApproximateNumberOfMessagesDelayed",
)


class AwsHealthSource:
    def __init__(self, table_name: str, queue_url: str, dlq_url: str) -> None:
        self._table = table_name
        self._queue_url = queue_url
        self._dlq_url = dlq_url

    def queue_depths(self) -> tuple[QueueDepth, QueueDepth]:
        return self._depth(self._queue_url), self._depth(self._dlq_url)

    def _depth(self, url: str) -> QueueDepth:
        found = call("sqs", "get_queue_attributes", QueueUrl=url, AttributeNames=list(_DEPTH))["Attributes"]
        visible, in_flight, delayed = (int(found.get(name, 0)) for name in _DEPTH)
        return QueueDepth(visible=visible, in_flight=in_flight, delayed=delayed)

    def traffic(self, keys: list[str], windows: list[int]) -> Traffic:
        return DynamoRateCounter(self._table).traffic(keys, windows)

    def pruner(self) -> PrunerStatus:
        item: dict[str, Any] = call_dynamodb(
            "get_item", TableName=self._table, Key=item_key(PRUNER_CURSOR_PK, PRUNER_CURSOR_SK)
        ).get("Item", {})
        cursor, lease = item.get("cursor", {}).get("S"), item.get("lease_until", {}).get("S")
        return PrunerStatus(
            pruned_before=parse_timestamp(cursor) if cursor else None,
            running_until=parse_timestamp(lease) if lease else None,
        )
