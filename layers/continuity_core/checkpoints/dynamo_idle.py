"""The idle index (``names.IDLE_INDEX``): sessions with pending prompts, by when the sweep looks.

The attributes live on the session's state item (``hooks/dynamo_state.py`` sets them with the
first pending write); this adapter only reads the index and moves or removes a session's place in it,
each conditioned on the place the sweep read, so a concurrent change is never overwritten.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from continuity_core.checkpoints.ports import IdleCandidate
from continuity_core.hooks.dynamo_state import idle_sort_key, parse_idle_sort_key
from continuity_core.kernel.aws import call_dynamodb, write_if
from continuity_core.kernel.dynamo_items import session_pk
from continuity_core.kernel.names import (
    AGENT_PREFIX,
    IDLE_INDEX,
    IDLE_PK,
    IDLE_SHARD_PREFIX,
    IDLE_SHARDS,
    IDLE_SK,
    PK,
    SESSION_PART,
    SK,
    STATE_SK,
)
from continuity_core.kernel.observability import logger


class DynamoIdleIndex:
    def __init__(self, table_name: str) -> None:
        self._table = table_name

    def due(self, before: datetime, limit: int) -> list[IdleCandidate]:
        """One query per shard (``Limit``: a bounded read however many sessions are indexed)."""
        found: list[IdleCandidate] = []
        per_shard = max(1, limit // IDLE_SHARDS)
        for shard in range(IDLE_SHARDS):
            response = call_dynamodb(
                "query",
                TableName=self._table,
                IndexName=IDLE_INDEX,
                KeyConditionExpression="#pk = :shard AND #sk <= :before",
                ExpressionAttributeNames={"#pk": IDLE_PK, "#sk": IDLE_SK},
                ExpressionAttributeValues={
                    ":shard": {"S": f"{IDLE_SHARD_PREFIX}{shard}"},
                    ":before": {"S": idle_sort_key(before)},
                },
                Limit=per_shard,
            )
            found += [c for c in map(_candidate, response.get("Items", [])) if c is not None]
        return found[:limit]

    def recheck(self, candidate: IdleCandidate, active_at: datetime) -> bool:
        return self._write(candidate, "SET #sk = :at", "#sk = :was", {":at": {"S": idle_sort_key(active_at)}})

    def settle(self, candidate: IdleCandidate, version: int | None) -> bool:
        if version is None:  # a deleted or expired session: out whatever its state
            return self._write(candidate, "REMOVE #pk, #sk", "#sk = :was", {})
        # A state only touched before its first prompt has no version yet: it reads as 0.
        same = "(attribute_not_exists(#v) OR #v = :v)" if version == 0 else "#v = :v"
        return self._write(
            candidate, "REMOVE #pk, #sk", f"#sk = :was AND {same}", {":v": {"N": str(version)}}
        )

    def _write(
        self, candidate: IdleCandidate, expression: str, condition: str, values: dict[str, Any]
    ) -> bool:
        names = {"#pk": IDLE_PK, "#sk": IDLE_SK, "#v": "version"}
        used = {alias: name for alias, name in names.items() if alias in expression or alias in condition}
        return write_if(
            "update_item",
            TableName=self._table,
            Key={PK: {"S": session_pk(candidate.agent_id, candidate.session_key)}, SK: {"S": STATE_SK}},
            UpdateExpression=expression,
            ConditionExpression=condition,
            ExpressionAttributeNames=used,
            ExpressionAttributeValues={":was": {"S": idle_sort_key(candidate.active_at)}, **values},
        )


def _candidate(item: dict[str, Any]) -> IdleCandidate | None:
    pk, session_key = item[PK]["S"], item.get("session_key", {}).get("S")
    suffix = f"{SESSION_PART}{session_key}"
    if session_key is None or not (pk.startswith(AGENT_PREFIX) and pk.endswith(suffix)):
        logger.warning("unexpected item in the idle index", extra={"pk": pk[:80]})
        return None
    agent_id = pk[len(AGENT_PREFIX) : len(pk) - len(suffix)]
    return IdleCandidate(agent_id, session_key, parse_idle_sort_key(item[IDLE_SK]["S"]))
