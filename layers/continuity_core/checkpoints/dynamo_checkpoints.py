"""Checkpoints in DynamoDB: under the session's partition, indexed by project (newest first)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from continuity_core.checkpoints.ports import ProjectSnapshot, StateChangedError
from continuity_core.kernel.aws import call_dynamodb
from continuity_core.kernel.clock import Clock
from continuity_core.kernel.dynamo_expiry import expiry_values, live, past_prunable
from continuity_core.kernel.dynamo_items import (
    checkpoint_sk,
    from_attributes,
    item_key,
    model_item,
    model_values,
    parse_timestamp,
    project_pk,
    session_pk,
    timestamp,
    to_attribute,
    to_attributes,
)
from continuity_core.kernel.expiry import expiry
from continuity_core.kernel.names import (
    CHECKPOINT_PREFIX,
    DELETED_AT_ATTRIBUTE,
    LEDGER_HEAD_INDEX_SK,
    OPEN_HANDOFF_INDEX_PREFIX,
    PK,
    PROJECT_INDEX,
    PROJECT_INDEX_PK,
    PROJECT_INDEX_SK,
    SK,
    STATE_SK,
    TTL_ATTRIBUTE,
)
from continuity_core.kernel.observability import logger
from continuity_core.models.checkpoint import Checkpoint
from continuity_core.models.digest import LedgerEntry
from continuity_core.models.handoff import MAX_OPEN_HANDOFFS, Handoff
from continuity_core.models.state import SessionState
from continuity_core.recovery.dynamo_handoffs import handoff_from_item, is_open_handoff_item

_PAGE = 100
_IN_PROJECT = f"{PROJECT_INDEX_PK} = :pk"


# The text of a checkpoint, stored as one zlib-compressed JSON attribute (``body``): DynamoDB bills a
# write and its project index copy by the item's size, and digests compress ~2.5x.
_BODY_FIELDS = ("digest", "memory_queries", "recent_remembers", "summary", "next_steps", "session_digest")
_TIMES = ("created_at",)


def checkpoint_item(agent_id: str, checkpoint: Checkpoint, expires_at: int) -> dict[str, Any]:
    sort_key = checkpoint_sk(checkpoint.created_at, checkpoint.id)
    keys = {PK: session_pk(agent_id, checkpoint.session_key), SK: sort_key, TTL_ATTRIBUTE: expires_at}
    if checkpoint.project_normalized:
        index_pk = project_pk(agent_id, checkpoint.project_normalized)
        keys.update({PROJECT_INDEX_PK: index_pk, PROJECT_INDEX_SK: sort_key})
    return model_item(checkpoint, _BODY_FIELDS, _TIMES, keys)


def checkpoint_from_item(item: dict[str, Any]) -> Checkpoint:
    """Items written before the body was compressed hold its fields as plain attributes."""
    return Checkpoint.model_validate(model_values(item, _TIMES))


class DynamoCheckpointStore:
    """Reads leave out checkpoints past their TTL (``expires_at``, their prunable instant) or their
    expiry bucket's end, deleted or not: DynamoDB's TTL deletes them, not the pruner."""

    def __init__(
        self, table_name: str, retention: timedelta, clock: Clock = lambda: datetime.now(UTC)
    ) -> None:
        self._table = table_name
        self._retention = retention
        self._clock = clock

    def item(self, agent_id: str, checkpoint: Checkpoint) -> dict[str, Any]:
        """The stored item: the checkpoint, its keys, its expiry (``retention`` after it was made,
        TTL at that instant: TTL deletes it, the pruner only keeps a session's newest longer)."""
        until = expiry(checkpoint.created_at, self._retention)
        item = checkpoint_item(agent_id, checkpoint, until.prunable_epoch)
        return item | to_attributes(expiry_values(item[PK]["S"], item[SK]["S"], until, left_to_ttl=True))

    def commit(
        self,
        agent_id: str,
        checkpoint: Checkpoint,
        consumed: SessionState,
        now: datetime,
        evict: list[Checkpoint] | None = None,
        replaces: list[Checkpoint] | None = None,
    ) -> None:
        from botocore.exceptions import ClientError

        # Two writes in order, not one transaction (which DynamoDB bills twice, ~$0.056 per 100,000
        # prompts; decision 0011): the checkpoint first, so the pending lists are never reset before
        # what they held is stored; then the reset, valid only while the state is the one read. On a
        # race the checkpoint is withdrawn and the writer reads again (latest wins), as before.
        self._store(agent_id, checkpoint)
        # Before the reset: a checkpoint an unfinished commit left (which this one holds) must not
        # outlive it; if a delete fails, the state is not reset and the retry replaces it again.
        self._evict(agent_id, replaces)
        stamp = timestamp(now)
        try:
            call_dynamodb("update_item", **self._consume(agent_id, checkpoint, consumed, stamp))
        except ClientError as error:
            if error.response["Error"]["Code"] != "ConditionalCheckFailedException":
                raise  # not known to have failed: the checkpoint stays (a retry rolls it in again)
            if not _reset_by(dict(error.response), consumed, stamp):
                self._withdraw(agent_id, checkpoint)
                raise StateChangedError(checkpoint.session_key) from error
            # else: an earlier attempt of this very reset landed (botocore retried a lost answer)
        # After it: a commit that lost its race must not have taken an old checkpoint with it.
        self._evict(agent_id, evict)

    def _consume(
        self, agent_id: str, checkpoint: Checkpoint, consumed: SessionState, stamp: str
    ) -> dict[str, Any]:
        """Reset exactly what the checkpoint holds, only while the state is the one read."""
        return {
            "TableName": self._table,
            "Key": _state_key(agent_id, checkpoint.session_key),
            # The consumed lists are removed, not set empty: an absent list reads as empty and the
            # next append starts it, and the state (billed by size on every prompt) is ~60 bytes
            # smaller until then.
            "UpdateExpression": (
                "SET prompts_since_checkpoint = :zero, last_checkpoint_at = :now, "
                "last_checkpoint_trigger = :trigger "
                "REMOVE pending_queries, pending_snippets, pending_remembers, pending_remember_at, "
                "flush_token, flush_requested_at ADD version :one, checkpoints_written :one"
            ),
            # A state only touched (session start, digest) has no version yet: it reads as 0. A
            # deleted session's tombstone has none either: the checkpoint must not land on it.
            "ConditionExpression": (
                "version = :version"
                if consumed.version
                else f"(attribute_not_exists(version) OR version = :version) "
                f"AND attribute_not_exists({DELETED_AT_ATTRIBUTE})"
            ),
            "ExpressionAttributeValues": {
                ":zero": to_attribute(0),
                ":one": to_attribute(1),
                ":now": to_attribute(stamp),
                ":version": to_attribute(consumed.version),
                ":trigger": to_attribute(checkpoint.trigger.value),
            },
            # On a failed condition, the state as it is: tells a race from this reset's own retry.
            "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
        }

    def put(self, agent_id: str, checkpoint: Checkpoint, now: datetime, evict: list[Checkpoint]) -> None:
        self._store(agent_id, checkpoint)
        self._evict(agent_id, evict)

    def _store(self, agent_id: str, checkpoint: Checkpoint) -> None:
        """The checkpoint's put. Its id is new (a UUID): an item already there is this put's own
        earlier attempt, whose answer was lost and which botocore retried."""
        from botocore.exceptions import ClientError

        try:
            call_dynamodb(
                "put_item",
                TableName=self._table,
                Item=self.item(agent_id, checkpoint),
                ConditionExpression=f"attribute_not_exists({PK})",
            )
        except ClientError as error:
            if error.response["Error"]["Code"] != "ConditionalCheckFailedException":
                raise

    def _withdraw(self, agent_id: str, checkpoint: Checkpoint) -> None:
        """Take back a checkpoint whose reset lost the race; if that fails, the checkpoint stays: a
        complete one of the state read, which the next attempt rolls into its own (same prompts, so
        counted once) and which TTL deletes with the rest."""
        try:
            call_dynamodb("delete_item", TableName=self._table, Key=self._key(agent_id, checkpoint))
        except Exception:  # the race's answer (StateChangedError) matters more
            logger.warning("checkpoint %s of a lost race was not withdrawn", checkpoint.id, exc_info=True)

    def _evict(self, agent_id: str, evict: list[Checkpoint] | None) -> None:
        """Checkpoints this one replaces or pushes over the session's cap."""
        for old in evict or []:
            call_dynamodb("delete_item", TableName=self._table, Key=self._key(agent_id, old))

    @staticmethod
    def _key(agent_id: str, checkpoint: Checkpoint) -> dict[str, Any]:
        return item_key(
            session_pk(agent_id, checkpoint.session_key), checkpoint_sk(checkpoint.created_at, checkpoint.id)
        )

    def latest_for_session(self, agent_id: str, session_key: str) -> Checkpoint | None:
        found = self._query_session(agent_id, session_key, newest_first=True, limit=1)
        return found[0] if found else None

    def recent_for_session(self, agent_id: str, session_key: str, limit: int) -> list[Checkpoint]:
        return self._query_session(agent_id, session_key, newest_first=True, limit=limit)

    def project_snapshot(
        self, agent_id: str, project_normalized: str, since: datetime, limit: int
    ) -> ProjectSnapshot:
        # Newest first: the open hand-offs ("OPEN#HANDOFF#…" sorts after "LEDGER"), the ledger head
        # ("LEDGER" sorts after every "CP#…"), then the checkpoints. A project holds at most
        # MAX_OPEN_HANDOFFS open ones (the hand-off's write closes older ones), so they never crowd
        # out the checkpoints.
        response = call_dynamodb(
            "query",
            TableName=self._table,
            IndexName=PROJECT_INDEX,
            KeyConditionExpression=f"{_IN_PROJECT} AND {PROJECT_INDEX_SK} BETWEEN :since AND :last",
            ExpressionAttributeValues={
                ":pk": {"S": project_pk(agent_id, project_normalized)},
                ":since": {"S": checkpoint_sk(since, "")},
                ":last": {"S": OPEN_HANDOFF_INDEX_PREFIX + "~"},
            },
            ScanIndexForward=False,
            Limit=limit + 1 + MAX_OPEN_HANDOFFS,
        )
        checkpoints: list[Checkpoint] = []
        decisions: list[LedgerEntry] = []
        handoffs: list[Handoff] = []
        for item in live(response.get("Items", []), self._clock()):
            if item[PROJECT_INDEX_SK]["S"] == LEDGER_HEAD_INDEX_SK:
                decisions = ledger_head_decisions(item)
            elif is_open_handoff_item(item):
                handoffs.append(handoff_from_item(item))
            elif item[PROJECT_INDEX_SK]["S"].startswith(CHECKPOINT_PREFIX):
                checkpoints.append(checkpoint_from_item(item))
        return ProjectSnapshot(checkpoints[:limit], decisions, handoffs)

    def list_for_project(self, agent_id: str, project_normalized: str, limit: int) -> list[Checkpoint]:
        return self._newest_first(
            {
                "TableName": self._table,
                "IndexName": PROJECT_INDEX,
                "KeyConditionExpression": f"{_IN_PROJECT} AND begins_with({PROJECT_INDEX_SK}, :prefix)",
                "ExpressionAttributeValues": {
                    ":pk": {"S": project_pk(agent_id, project_normalized)},
                    ":prefix": {"S": CHECKPOINT_PREFIX},
                },
            },
            limit,
            # Across sessions a kept (newest) checkpoint may outlive newer ones: page past expired ones.
            stop_at_expired=False,
        )

    def list_for_session(self, agent_id: str, session_key: str, limit: int) -> list[Checkpoint]:
        return self._query_session(agent_id, session_key, newest_first=False, limit=limit)

    def _query_session(
        self, agent_id: str, session_key: str, newest_first: bool, limit: int
    ) -> list[Checkpoint]:
        request: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": f"{PK} = :pk AND begins_with({SK}, :prefix)",
            "ExpressionAttributeValues": {
                ":pk": {"S": session_pk(agent_id, session_key)},
                ":prefix": {"S": CHECKPOINT_PREFIX},
            },
        }
        if newest_first:
            # Within a session, expiry follows age (only the newest is ever kept longer): once one
            # is expired, every older one is too, so a Limit-1 lookup stays one request.
            return self._newest_first(request, limit, stop_at_expired=True)
        found: list[Checkpoint] = []
        while len(found) < limit:
            response = call_dynamodb("query", Limit=min(_PAGE, limit - len(found)), **request)
            found += [checkpoint_from_item(item) for item in live(response.get("Items", []), self._clock())]
            if "LastEvaluatedKey" not in response:
                break
            request["ExclusiveStartKey"] = response["LastEvaluatedKey"]
        return found[:limit]

    def _newest_first(self, request: dict[str, Any], limit: int, stop_at_expired: bool) -> list[Checkpoint]:
        now = self._clock()
        found: list[Checkpoint] = []
        request = {**request, "ScanIndexForward": False}
        while len(found) < limit:
            response = call_dynamodb("query", Limit=min(_PAGE, limit - len(found)), **request)
            for item in response.get("Items", []):
                if not past_prunable(item, now):
                    found.append(checkpoint_from_item(item))
                elif stop_at_expired:
                    return found
            if "LastEvaluatedKey" not in response:
                break
            request["ExclusiveStartKey"] = response["LastEvaluatedKey"]
        return found


def ledger_head_decisions(item: dict[str, Any]) -> list[LedgerEntry]:
    """The head item keeps the newest decisions oldest first; answer newest first."""
    entries = []
    for raw in from_attributes(item).get("recent", []):
        raw["created_at"] = parse_timestamp(raw["created_at"])
        entries.append(LedgerEntry.model_validate(raw))
    return list(reversed(entries))


def _reset_by(failure: dict[str, Any], consumed: SessionState, stamp: str) -> bool:
    """Whether the state failed the reset's condition because this very reset already landed: one
    version on from the one read, stamped with this checkpoint's instant (``failure``: the error's
    answer, holding the state as it is)."""
    item = failure.get("Item")
    if not isinstance(item, dict) or not item:
        return False
    values = from_attributes(item)
    return values.get("version") == consumed.version + 1 and values.get("last_checkpoint_at") == stamp


def _state_key(agent_id: str, session_key: str) -> dict[str, Any]:
    return item_key(session_pk(agent_id, session_key), STATE_SK)
