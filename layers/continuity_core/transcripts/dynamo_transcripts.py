"""Live transcripts in DynamoDB and S3: one small item per append, a head item, S3 chunks.

This module stores and reads; the append protocol (the fast and the careful path, retries,
incarnations, head refresh, when text moves to S3) is ``transcripts/append.py``, the reads
(the chain of appends, assembling a head) ``transcripts/read.py``.

- **Appends** ``sk = TRANSCRIPT#D#{start:012d}``: one per append, the new text zlib-compressed
  (``z``), where it ends (``end``), when it was written (``at``, epoch ms) and its TTL. In no index.
  A put is conditioned on the key being free (or held by an append older than the head's
  ``created_at``: an earlier incarnation's).
- **Head** ``sk = TRANSCRIPT``: identity, ``created_at`` (which appends belong to this incarnation of
  the session's transcript), ``flushed`` and the S3 chunk list, and the summary the session index
  projects (``sessions_by_project``, sorted by when the transcript started). Never written per
  append: DynamoDB bills a write by the item's whole size, so the head stays small and an append
  costs what its own compressed text costs. A head of the earlier layout holds its text in ``parts``.
- **Chunks** in S3 (gzip), one object per chunk. The appends whose text moved stay until their TTL
  (deleting them would cost as many write units as writing them).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from continuity_core.kernel.aws import call_dynamodb, write_if
from continuity_core.kernel.dynamo_batch import batch_get
from continuity_core.kernel.dynamo_expiry import bucket_key, expiry_sort_key, item_expired
from continuity_core.kernel.dynamo_items import (
    compress_text,
    decompress_text,
    from_attributes,
    item_key,
    millis,
    parse_timestamp,
    project_pk,
    session_pk,
    timestamp,
    to_attributes,
)
from continuity_core.kernel.dynamo_pages import decode_page_token, encode_page_token
from continuity_core.kernel.dynamo_update import UpdateBuilder
from continuity_core.kernel.expiry import expiry, is_expired
from continuity_core.kernel.names import (
    EXPIRY_PK,
    EXPIRY_SK,
    PK,
    SESSION_INDEX,
    SESSION_INDEX_PK,
    SESSION_INDEX_SK,
    SK,
    TRANSCRIPT_SK,
    TTL_ATTRIBUTE,
)
from continuity_core.kernel.names import TRANSCRIPT_APPEND_PREFIX as APPEND_PREFIX
from continuity_core.models.state import SessionIdentity
from continuity_core.models.transcripts import SessionSummary, TranscriptHead
from continuity_core.transcripts.ports import ChunkMove, Span, StoredAppend
from continuity_core.transcripts.s3_bodies import S3BodyStore, chunk_key

_APPENDS_END = APPEND_PREFIX + "~"
_OPEN = "open"  # the kind of a redaction that runs to the append's end (transcripts/redact.py)
_REVISION = "rv"  # how many times the append's text was rewritten (absent: never)
# A head is kept this much longer than an append: the head is rewritten at least every 18 h while
# appends come (transcripts/append.py, HEAD_REFRESH), so every append expires before its head
# (a 6 h bucket rounds up) and the pruner, deleting the head, never cuts a transcript short.
HEAD_EXTRA = timedelta(days=1)
# The attributes of the earlier layout's head, which held its text in itself.
_EARLIER_LAYOUT = ("parts", "inline_bytes", "marks")


def head_key(agent_id: str, session_key: str) -> dict[str, Any]:
    return item_key(session_pk(agent_id, session_key), TRANSCRIPT_SK)


def append_sk(start: int) -> str:
    return f"{APPEND_PREFIX}{start:012d}"


def head_from_item(item: dict[str, Any]) -> TranscriptHead:
    """The head as stored; ``inline``, ``marks`` and the final ``length`` come from the appends.
    A head of the earlier layout keeps its inline text in ``parts``: that is ``inline`` here."""
    values = from_attributes(item)
    return TranscriptHead(
        session_key=values["session_key"],
        harness=values.get("harness"),
        project=values.get("project"),
        project_normalized=values.get("project_normalized"),
        created_at=parse_timestamp(values["created_at"]),
        updated_at=parse_timestamp(values["updated_at"]),
        length=values.get("length", 0),
        flushed=values.get("flushed", 0),
        chunk_ids=values.get("chunk_ids", []),
        chunk_ends=values.get("chunk_ends", []),
        inline="".join(values.get("parts", [])),
    )


def summary_from_item(item: dict[str, Any]) -> SessionSummary:
    values = from_attributes(item)
    return SessionSummary(
        session_key=values["session_key"],
        harness=values.get("harness"),
        project=values.get("project"),
        project_normalized=values.get("project_normalized"),
        created_at=parse_timestamp(values["created_at"]),
        updated_at=parse_timestamp(values["updated_at"]),
        length=values.get("length", 0),
    )


class DynamoTranscriptStorage:
    """``TranscriptStorage`` in DynamoDB and S3. ``retention`` runs from an append (its TTL) and from
    the head's last write (its TTL, ``HEAD_EXTRA`` longer); reads leave out a head past its TTL."""

    def __init__(self, table_name: str, bodies: S3BodyStore, retention: timedelta) -> None:
        self._table = table_name
        self._bodies = bodies
        self._retention = retention

    # -- the head --------------------------------------------------------------------------------

    def head(self, agent_id: str, session_key: str, now: datetime, consistent: bool) -> TranscriptHead | None:
        response = call_dynamodb(
            "get_item",
            TableName=self._table,
            Key=head_key(agent_id, session_key),
            ConsistentRead=consistent,
        )
        item = response.get("Item")
        return head_from_item(item) if item and not item_expired(item, now) else None

    def heads(self, agent_id: str, session_keys: list[str], now: datetime) -> list[TranscriptHead]:
        items = batch_get(self._table, [head_key(agent_id, key) for key in dict.fromkeys(session_keys)])
        return [head_from_item(item) for item in items if not item_expired(item, now)]

    def start_head(self, agent_id: str, identity: SessionIdentity, now: datetime) -> bool:
        pk = session_pk(agent_id, identity.session_key)
        until = expiry(now, self._retention + HEAD_EXTRA)
        values: dict[str, Any] = {
            PK: pk,
            SK: TRANSCRIPT_SK,
            **{k: v for k, v in _identity_fields(identity).items() if v is not None},
            "created_at": timestamp(now),
            "updated_at": timestamp(now),
            "length": 0,
            "flushed": 0,
            "chunk_ids": [],
            "chunk_ends": [],
            TTL_ATTRIBUTE: until.ttl_epoch,
            EXPIRY_PK: bucket_key(until),
            EXPIRY_SK: expiry_sort_key(pk, TRANSCRIPT_SK),
            # The project's session index, newest transcript first (a stable key: no index write
            # per append).
            SESSION_INDEX_SK: f"{timestamp(now)}#{identity.session_key}",
        }
        if identity.project_normalized:
            values[SESSION_INDEX_PK] = project_pk(agent_id, identity.project_normalized)
        # A head past its TTL (DynamoDB deletes within days) is free: a new incarnation replaces it.
        return write_if(
            "put_item",
            TableName=self._table,
            Item=to_attributes(values),
            ConditionExpression=f"attribute_not_exists({PK}) OR {TTL_ATTRIBUTE} < :now",
            ExpressionAttributeValues={":now": {"N": str(int(now.timestamp()))}},
        )

    def update_head(
        self,
        agent_id: str,
        identity: SessionIdentity,
        head: TranscriptHead,
        length: int,
        now: datetime,
        chunk: ChunkMove | None = None,
    ) -> bool:
        update = UpdateBuilder()
        update.set_if_missing("harness", identity.harness)
        update.set_if_missing("project", identity.project)
        update.set_if_missing("project_normalized", identity.project_normalized)
        if identity.project_normalized:
            update.set_if_missing(SESSION_INDEX_PK, project_pk(agent_id, identity.project_normalized))
        update.set("updated_at", timestamp(now))
        update.set("length", length)
        until = expiry(now, self._retention + HEAD_EXTRA)
        update.set(TTL_ATTRIBUTE, until.ttl_epoch)
        update.set(EXPIRY_PK, bucket_key(until))
        update.conditions.append(f"{update.name('created_at')} = {update.value(timestamp(head.created_at))}")
        if chunk is not None:
            update.set("flushed", chunk.end)
            update.append("chunk_ids", [chunk.chunk_id])
            update.append("chunk_ends", [chunk.end])
            update.conditions.append(f"{update.name('flushed')} = {update.value(head.flushed)}")
            for name in _EARLIER_LAYOUT:  # its inline text is in the chunk now
                update.remove(name)
        return write_if(
            "update_item",
            TableName=self._table,
            Key=head_key(agent_id, identity.session_key),
            **update.request(),
        )

    # -- appends ---------------------------------------------------------------------------------

    def put_append(
        self,
        agent_id: str,
        session_key: str,
        start: int,
        text: str,
        now: datetime,
        born: datetime | None,
        open_kind: str | None = None,
    ) -> bool:
        item: dict[str, Any] = {
            PK: session_pk(agent_id, session_key),
            SK: append_sk(start),
            "end": start + len(text),
            "at": millis(now),
            "z": compress_text(text),
            # TTL at the end of its retention, no grace: by the time the pruner deletes the head
            # (which outlives every append), DynamoDB may delete the appends for free.
            TTL_ATTRIBUTE: int(expiry(now, self._retention).prunable.timestamp()),
        }
        if open_kind is not None:
            item[_OPEN] = open_kind
        request: dict[str, Any] = {"ConditionExpression": f"attribute_not_exists({SK})"}
        if born is not None:
            request = {
                "ConditionExpression": f"attribute_not_exists({SK}) OR #at < :born",
                "ExpressionAttributeNames": {"#at": "at"},
                "ExpressionAttributeValues": {":born": {"N": str(millis(born))}},
            }
        return write_if("put_item", TableName=self._table, Item=to_attributes(item), **request)

    def replace_append(self, agent_id: str, session_key: str, append: StoredAppend, text: str) -> bool:
        span = append.span
        # A rewrite keeps ``at``: the revision tells a view taken before another rewrite.
        unchanged = "#rv = :rv" if append.revision else "(attribute_not_exists(#rv) OR #rv = :rv)"
        return write_if(
            "update_item",
            TableName=self._table,
            Key=item_key(session_pk(agent_id, session_key), append_sk(span.start)),
            UpdateExpression="SET z = :z, #rv = :next",
            ConditionExpression=f"#end = :end AND #at = :at AND {unchanged}",
            ExpressionAttributeNames={"#end": "end", "#at": "at", "#rv": _REVISION},
            ExpressionAttributeValues={
                ":z": {"B": compress_text(text)},
                ":end": {"N": str(span.end)},
                ":at": {"N": str(span.at_ms)},
                ":rv": {"N": str(append.revision)},
                ":next": {"N": str(append.revision + 1)},
            },
        )

    def appends(self, agent_id: str, session_key: str, start: int, consistent: bool) -> list[StoredAppend]:
        request = self._appends_request(agent_id, session_key, start) | {"ConsistentRead": consistent}
        found: list[StoredAppend] = []
        while True:
            response = call_dynamodb("query", **request)
            found += [_stored_append(item) for item in response.get("Items", [])]
            last = response.get("LastEvaluatedKey")
            if not last:
                return found
            request["ExclusiveStartKey"] = last

    def latest_appends(self, agent_id: str, session_key: str, before: int, limit: int) -> list[StoredAppend]:
        if before <= 0:
            return []
        response = call_dynamodb(
            "query",
            TableName=self._table,
            KeyConditionExpression=f"{PK} = :pk AND {SK} BETWEEN :first AND :last",
            ExpressionAttributeValues={
                ":pk": {"S": session_pk(agent_id, session_key)},
                ":first": {"S": append_sk(0)},
                ":last": {"S": append_sk(before - 1)},
            },
            ScanIndexForward=False,
            Limit=limit,
            ConsistentRead=True,
        )
        return [_stored_append(item) for item in reversed(response.get("Items", []))]

    def newest_append(self, agent_id: str, session_key: str) -> Span | None:
        response = call_dynamodb(
            "query",
            **self._appends_request(agent_id, session_key, 0),
            ProjectionExpression=f"{SK}, #end, #at",
            ExpressionAttributeNames={"#end": "end", "#at": "at"},
            ScanIndexForward=False,
            Limit=1,
        )
        items = response.get("Items", [])
        return _span(items[0]) if items else None

    def _appends_request(self, agent_id: str, session_key: str, start: int) -> dict[str, Any]:
        """A ``Query`` of the session's appends from ``start`` on."""
        return {
            "TableName": self._table,
            "KeyConditionExpression": f"{PK} = :pk AND {SK} BETWEEN :first AND :last",
            "ExpressionAttributeValues": {
                ":pk": {"S": session_pk(agent_id, session_key)},
                ":first": {"S": append_sk(start)},
                ":last": {"S": _APPENDS_END},
            },
        }

    # -- chunks ----------------------------------------------------------------------------------

    def put_chunk(self, agent_id: str, session_key: str, number: int, chunk_id: str, text: str) -> None:
        self._bodies.put(chunk_key(agent_id, session_key, number, chunk_id), text)

    def get_chunk(self, agent_id: str, session_key: str, number: int, chunk_id: str) -> str:
        return self._bodies.get(chunk_key(agent_id, session_key, number, chunk_id))

    def delete_chunk(self, agent_id: str, session_key: str, number: int, chunk_id: str) -> None:
        self._bodies.delete(chunk_key(agent_id, session_key, number, chunk_id))

    # -- the project's session index -------------------------------------------------------------

    def session_index(
        self,
        agent_id: str,
        project_normalized: str,
        limit: int,
        token: str | None,
        harness: str | None,
        now: datetime,
    ) -> tuple[list[SessionSummary], str | None]:
        index_pk = project_pk(agent_id, project_normalized)
        # A token continues this caller's listing of this project only (dynamo_pages).
        scope = {SESSION_INDEX_PK: index_pk, SK: TRANSCRIPT_SK}
        listed = {PK: session_pk(agent_id, ""), SESSION_INDEX_SK: ""}
        request: dict[str, Any] = {
            "TableName": self._table,
            "IndexName": SESSION_INDEX,
            "KeyConditionExpression": f"{SESSION_INDEX_PK} = :pk",
            "ExpressionAttributeValues": {":pk": {"S": index_pk}},
            "ScanIndexForward": False,
        }
        if harness is not None:
            request["FilterExpression"] = "harness = :harness"
            request["ExpressionAttributeValues"][":harness"] = {"S": harness}
        if token:
            request["ExclusiveStartKey"] = decode_page_token(token, scope, listed)
        found: list[SessionSummary] = []
        while True:
            response = call_dynamodb("query", Limit=limit - len(found), **request)
            for item in response.get("Items", []):
                summary = summary_from_item(item)
                # The index projects no TTL; the head's follows from its last write.
                if not is_expired(expiry(summary.updated_at, self._retention + HEAD_EXTRA).ttl_epoch, now):
                    found.append(summary)
            last = response.get("LastEvaluatedKey")
            if not last or len(found) >= limit or harness is not None:
                return found, encode_page_token(last, scope) if last else None
            request["ExclusiveStartKey"] = last


_IDENTITY_FIELDS = {"session_key", "harness", "project", "project_normalized"}


def _identity_fields(identity: SessionIdentity) -> dict[str, Any]:
    return identity.model_dump(include=_IDENTITY_FIELDS)


def _stored_append(item: dict[str, Any]) -> StoredAppend:
    open_kind = item.get(_OPEN, {}).get("S")
    revision = int(item.get(_REVISION, {}).get("N", 0))
    return StoredAppend(_span(item), decompress_text(item["z"]["B"]), open_kind, revision)


def _span(item: dict[str, Any]) -> Span:
    return Span(int(item[SK]["S"][len(APPEND_PREFIX) :]), int(item["end"]["N"]), int(item["at"]["N"]))
