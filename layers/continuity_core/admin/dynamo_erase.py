"""What deleting a session or a project reads and deletes in DynamoDB and S3 (``ErasureStore``).

A session's items share its partition (``A#{agent}#S#{session}``: state, checkpoints, transcript
head and appends), so one paged query finds them all. A project's sessions come from its two
indexes (checkpoints in ``by_project``, transcripts in ``sessions_by_project``) and the notes under
its key that the state store writes when a session's state is created. The ledger is its own
partition per project. Which of these go, and in which order, is ``admin/forget.py``'s.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

from continuity_core.admin.ports import LedgerItem, SessionContents
from continuity_core.kernel.aws import call_dynamodb, write_if
from continuity_core.kernel.dynamo_batch import batch_write
from continuity_core.kernel.dynamo_expiry import expiry_values
from continuity_core.kernel.dynamo_items import (
    from_attributes,
    item_key,
    ledger_pk,
    project_pk,
    session_pk,
    timestamp,
    to_attribute,
    to_attributes,
)
from continuity_core.kernel.dynamo_update import UpdateBuilder
from continuity_core.kernel.errors import StorageUnavailableError
from continuity_core.kernel.expiry import expiry
from continuity_core.kernel.names import (
    CHECKPOINT_PREFIX,
    DELETED_AT_ATTRIBUTE,
    HANDOFF_PREFIX,
    LEDGER_ENTRY_PREFIX,
    LEDGER_HEAD_SK,
    PK,
    PROJECT_INDEX,
    PROJECT_INDEX_PK,
    PROJECT_INDEX_SK,
    PROJECT_SESSION_PREFIX,
    SESSION_INDEX,
    SESSION_INDEX_PK,
    SK,
    STATE_SK,
    TRANSCRIPT_APPEND_PREFIX,
    TRANSCRIPT_SK,
)
from continuity_core.sessions.dynamo_projects import handoffs_gone, project_record_key
from continuity_core.transcripts.s3_bodies import S3BodyStore, chunk_key

# The head's decisions are rewritten under a condition (an append may land meanwhile): tries.
HEAD_REWRITES = 5


class DynamoErasureStore:
    def __init__(self, table_name: str, bodies: S3BodyStore) -> None:
        self._table = table_name
        self._bodies = bodies

    # -- a session ---------------------------------------------------------------------------------

    def session_contents(self, agent_id: str, session_key: str) -> SessionContents:
        items: list[str] = []
        counts = {"states": 0, "checkpoints": 0, "transcripts": 0, "transcript_parts": 0}
        chunk_ids: tuple[str, ...] = ()
        projects: set[str] = set()
        deleted = False
        request = {
            "KeyConditionExpression": "#pk = :pk",
            "ExpressionAttributeValues": {":pk": {"S": session_pk(agent_id, session_key)}},
            "ConsistentRead": True,
        }
        for item in self._query(request, "#sk, project_normalized, projects, chunk_ids, #deleted"):
            values = from_attributes(item)
            sort_key = values[SK]
            projects.update(p for p in [values.get("project_normalized"), *values.get("projects", [])] if p)
            if sort_key == STATE_SK:  # not among the items: the tombstone replaces it
                deleted = DELETED_AT_ATTRIBUTE in values
                counts["states"] += 0 if deleted else 1
                continue
            items.append(sort_key)
            if sort_key.startswith(CHECKPOINT_PREFIX):
                counts["checkpoints"] += 1
            elif sort_key == TRANSCRIPT_SK:
                counts["transcripts"] += 1
                chunk_ids = tuple(values.get("chunk_ids", []))
            elif sort_key.startswith(TRANSCRIPT_APPEND_PREFIX):
                counts["transcript_parts"] += 1
        return SessionContents(
            items=tuple(items),
            chunk_ids=chunk_ids,
            projects=frozenset(projects),
            deleted=deleted,
            **counts,
        )

    def put_tombstone(
        self, agent_id: str, session_key: str, projects: frozenset[str], now: datetime, until: datetime
    ) -> None:
        pk = session_pk(agent_id, session_key)
        values: dict[str, Any] = {
            "session_key": session_key,
            DELETED_AT_ATTRIBUTE: timestamp(now),
            # A retried delete still knows where the session's decisions are once its items are gone.
            "projects": sorted(projects) or None,
            **expiry_values(pk, STATE_SK, expiry(until, timedelta(0))),
        }
        call_dynamodb("put_item", TableName=self._table, Item=item_key(pk, STATE_SK) | to_attributes(values))

    def delete_items(self, agent_id: str, session_key: str, items: tuple[str, ...]) -> None:
        pk = session_pk(agent_id, session_key)
        batch_write(self._table, [{"DeleteRequest": {"Key": item_key(pk, sk)}} for sk in items])

    def delete_bodies(self, agent_id: str, session_key: str, chunk_ids: tuple[str, ...]) -> int:
        keys = [chunk_key(agent_id, session_key, number, chunk) for number, chunk in enumerate(chunk_ids)]
        if not keys:
            return 0
        failed = self._bodies.delete_many(keys)
        if failed:  # the head stays (it is deleted after its bodies): a retried delete finds them
            raise StorageUnavailableError(f"{len(failed)} transcript bodies were not deleted")
        return len(keys)

    # -- a project ---------------------------------------------------------------------------------

    def project_sessions(self, agent_id: str, project_normalized: str) -> set[str]:
        index_pk = project_pk(agent_id, project_normalized)
        found: set[str] = set()
        checkpoints = {
            "IndexName": PROJECT_INDEX,
            "KeyConditionExpression": (
                f"{PROJECT_INDEX_PK} = :pk AND begins_with({PROJECT_INDEX_SK}, :prefix)"
            ),
            "ExpressionAttributeValues": {":pk": {"S": index_pk}, ":prefix": {"S": CHECKPOINT_PREFIX}},
        }
        transcripts = {
            "IndexName": SESSION_INDEX,
            "KeyConditionExpression": f"{SESSION_INDEX_PK} = :pk",
            "ExpressionAttributeValues": {":pk": {"S": index_pk}},
        }
        for request in (checkpoints, transcripts):
            found.update(item["session_key"]["S"] for item in self._query(request) if "session_key" in item)
        found.update(self._noted_sessions(agent_id, project_normalized))
        return found

    def ledger_items(self, agent_id: str, project_normalized: str) -> list[LedgerItem]:
        request = {
            "KeyConditionExpression": "#pk = :pk AND begins_with(#sk, :prefix)",
            "ExpressionAttributeValues": {
                ":pk": {"S": ledger_pk(agent_id, project_normalized)},
                ":prefix": {"S": LEDGER_ENTRY_PREFIX},
            },
            "ConsistentRead": True,
        }
        return [
            LedgerItem(item[SK]["S"], item.get("session_key", {}).get("S"))
            for item in self._query(request, "#sk, session_key")
        ]

    def delete_ledger_items(
        self, agent_id: str, project_normalized: str, items: list[LedgerItem], session_key: str | None
    ) -> None:
        pk = ledger_pk(agent_id, project_normalized)
        batch_write(self._table, [{"DeleteRequest": {"Key": item_key(pk, item.item_id)}} for item in items])
        head = item_key(pk, LEDGER_HEAD_SK)
        if session_key is None:
            call_dynamodb("delete_item", TableName=self._table, Key=head)
            return
        for _ in range(HEAD_REWRITES):
            response = call_dynamodb("get_item", TableName=self._table, Key=head, ConsistentRead=True)
            recent = response.get("Item", {}).get("recent", {}).get("L")
            if recent is None:
                return
            kept = [entry for entry in recent if entry["M"].get("session_key", {}).get("S") != session_key]
            if len(kept) == len(recent):
                return
            # Only if no decision was appended meanwhile (then read it again).
            if write_if(
                "update_item",
                TableName=self._table,
                Key=head,
                UpdateExpression="SET recent = :kept ADD decision_count :minus",
                ConditionExpression="size(recent) = :length",
                ExpressionAttributeValues={
                    ":kept": {"L": kept},
                    ":minus": to_attribute(-len(items)),
                    ":length": to_attribute(len(recent)),
                },
            ):
                return
        raise StorageUnavailableError("the ledger's head kept changing; retry the delete")

    def delete_project_entries(self, agent_id: str, project_normalized: str, session_keys: set[str]) -> int:
        noted = self._noted_sessions(agent_id, project_normalized) & session_keys
        pk = project_pk(agent_id, project_normalized)
        handoffs = self._handoffs_of(pk, session_keys)  # each holds its session's digest
        batch_write(
            self._table,
            [{"DeleteRequest": {"Key": item_key(pk, PROJECT_SESSION_PREFIX + key)}} for key in sorted(noted)]
            + [{"DeleteRequest": {"Key": item_key(pk, sk)}} for sk in handoffs],
        )
        if handoffs:  # the project's record no longer counts them (only a record that is there)
            gone = UpdateBuilder()
            handoffs_gone(gone, [sk.rsplit("#", 1)[1] for sk in handoffs])
            gone.conditions.append(f"attribute_exists({gone.name(PK)})")
            key = project_record_key(agent_id, project_normalized)
            write_if("update_item", TableName=self._table, Key=key, **gone.request())
        return len(noted) + len(handoffs)

    def _handoffs_of(self, pk: str, session_keys: set[str]) -> list[str]:
        """The sort keys of the project's hand-offs (open or taken) written by these sessions."""
        request = {
            "KeyConditionExpression": "#pk = :pk AND begins_with(#sk, :prefix)",
            "ExpressionAttributeValues": {":pk": {"S": pk}, ":prefix": {"S": HANDOFF_PREFIX}},
            "ConsistentRead": True,
        }
        found = self._query(request, "#sk, session_key")
        return [item[SK]["S"] for item in found if item.get("session_key", {}).get("S") in session_keys]

    def delete_project_record(self, agent_id: str, project_normalized: str) -> None:
        key = project_record_key(agent_id, project_normalized)
        call_dynamodb("delete_item", TableName=self._table, Key=key)

    # -- helpers -----------------------------------------------------------------------------------

    def _noted_sessions(self, agent_id: str, project_normalized: str) -> set[str]:
        request = {
            "KeyConditionExpression": "#pk = :pk AND begins_with(#sk, :prefix)",
            "ExpressionAttributeValues": {
                ":pk": {"S": project_pk(agent_id, project_normalized)},
                ":prefix": {"S": PROJECT_SESSION_PREFIX},
            },
            "ConsistentRead": True,
        }
        return {item[SK]["S"][len(PROJECT_SESSION_PREFIX) :] for item in self._query(request, "#sk")}

    def _query(self, request: dict[str, Any], projection: str | None = None) -> Iterator[dict[str, Any]]:
        """Every item the query finds, page after page."""
        request = {"TableName": self._table, **request}
        if projection is not None:
            names = {"#pk": PK, "#sk": SK, "#deleted": DELETED_AT_ATTRIBUTE}
            request["ProjectionExpression"] = projection
            request["ExpressionAttributeNames"] = {k: v for k, v in names.items() if k in projection}
        if "#pk" in request.get("KeyConditionExpression", ""):
            request.setdefault("ExpressionAttributeNames", {}).update({"#pk": PK})
        if "#sk" in request.get("KeyConditionExpression", ""):
            request.setdefault("ExpressionAttributeNames", {}).update({"#sk": SK})
        while True:
            response = call_dynamodb("query", **request)
            yield from response.get("Items", [])
            if "LastEvaluatedKey" not in response:
                return
            request["ExclusiveStartKey"] = response["LastEvaluatedKey"]
