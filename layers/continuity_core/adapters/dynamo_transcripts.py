"""Live transcripts: a head item in the session's partition, the body inline while small, then S3.

Head item ``pk = A#{agent}#S#{session}``, ``sk = TRANSCRIPT``: identity (first write kept),
``created_at``/``updated_at``, ``length``, the inline text as a list of parts (``list_append``, so an
append sends only the new text), the S3 chunk list, and marks (when the transcript had which length).
It is also in the ``sessions_by_project`` index (``gsi2pk = A#{agent}#P#{project}``,
``gsi2sk = {updated_at}#{session}``, small projection) for the session list, search scope and
Claude Code's parent lookup.

An append is one conditional ``UpdateItem`` on the stored length and the inline budget; when the
condition fails, DynamoDB hands back the item, which sorts out repeats, overlaps and gaps without a
read. When the inline text would pass the budget, everything but the last ``tailChars`` goes to S3
as one chunk (one PUT) and the item is rewritten with the new text in one conditional
``UpdateItem``. The inline text to flush comes from the failed condition, or, in a warm function
that wrote the item last, from memory (``RecentHeads``): then a flush costs the PUT only.
"""

from __future__ import annotations

import base64
import binascii
import json
import threading
import uuid
from collections import OrderedDict
from datetime import UTC, datetime, timedelta
from typing import Any

from continuity_core.adapters.dynamo_expiry import (
    EXPIRY_PK,
    EXPIRY_SK,
    bucket_key,
    expiry_sort_key,
    item_expired,
)
from continuity_core.adapters.dynamo_items import (
    from_attributes,
    parse_timestamp,
    project_pk,
    session_pk,
    timestamp,
)
from continuity_core.adapters.dynamo_state import call_dynamodb
from continuity_core.adapters.dynamo_update import UpdateBuilder
from continuity_core.adapters.s3_bodies import S3BodyStore, chunk_key
from continuity_core.logic.retention import expiry, is_expired
from continuity_core.logic.transcripts import (
    MAX_MARKS,
    AppendKind,
    append_cost,
    clean_text,
    inline_cost,
    plan_append,
    split_for_flush,
)
from continuity_core.models.state import SessionIdentity
from continuity_core.models.transcripts import SessionSummary, TranscriptHead
from continuity_core.observability import logger
from continuity_core.ports import (
    Clock,
    InvalidPageTokenError,
    StorageUnavailableError,
    TranscriptBodyMissingError,
    TranscriptGapError,
)

TRANSCRIPT_SK = "TRANSCRIPT"
SESSION_INDEX = "sessions_by_project"
SESSION_INDEX_PK = "gsi2pk"
SESSION_INDEX_SK = "gsi2sk"
# What the session index projects besides its keys: everything a summary needs, never the body.
SESSION_INDEX_ATTRIBUTES = (
    "session_key",
    "harness",
    "project",
    "project_normalized",
    "created_at",
    "updated_at",
    "length",
)
MAX_ATTEMPTS = 6
_BATCH_GET = 100
_READ_WORKERS = 8


def head_key(agent_id: str, session_key: str) -> dict[str, Any]:
    return {"pk": {"S": session_pk(agent_id, session_key)}, "sk": {"S": TRANSCRIPT_SK}}


def head_from_item(item: dict[str, Any]) -> TranscriptHead:
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
        inline_bytes=values.get("inline_bytes", 0),
        marks=[(int(at), int(length)) for at, length in values.get("marks", [])],
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


_IDENTITY_FIELDS = {"session_key", "harness", "project", "project_normalized"}


def _identity_fields(identity: SessionIdentity) -> dict[str, Any]:
    return identity.model_dump(include=_IDENTITY_FIELDS)


class RecentHeads:
    """The head items this process wrote last (LRU, bounded by their inline bytes).

    A session's hooks are sequential and a warm function usually serves the next one, so it knows
    the inline text it is about to flush and need not read it back first. Only an optimisation:
    every write is conditioned on the stored length (and incarnation), and a stale entry fails it.
    """

    def __init__(self, max_bytes: int = 32 * 1024 * 1024) -> None:
        self._max_bytes = max_bytes
        self._heads: OrderedDict[tuple[str, str], TranscriptHead] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key: tuple[str, str]) -> TranscriptHead | None:
        with self._lock:
            head = self._heads.get(key)
            if head is not None:
                self._heads.move_to_end(key)
            return head

    def put(self, key: tuple[str, str], head: TranscriptHead) -> None:
        with self._lock:
            self._drop(key)
            self._heads[key] = head
            self._bytes += head.inline_bytes
            while self._bytes > self._max_bytes and len(self._heads) > 1:
                self._drop(next(iter(self._heads)))

    def drop(self, key: tuple[str, str]) -> None:
        with self._lock:
            self._drop(key)

    def _drop(self, key: tuple[str, str]) -> None:
        old = self._heads.pop(key, None)
        if old is not None:
            self._bytes -= old.inline_bytes


class DynamoTranscriptStore:
    """``retention`` runs from the last append; reads leave out transcripts past their TTL."""

    def __init__(
        self,
        table_name: str,
        bodies: S3BodyStore,
        retention: timedelta,
        inline_max_bytes: int,
        keep_chars: int,
        clock: Clock = lambda: datetime.now(UTC),
    ) -> None:
        self._table = table_name
        self._bodies = bodies
        self._retention = retention
        self._clock = clock
        self._inline_max = inline_max_bytes
        self._keep_chars = keep_chars
        self._recent = RecentHeads()

    # -- the append protocol -------------------------------------------------------------------

    def append(self, agent_id: str, identity: SessionIdentity, offset: int, text: str, now: datetime) -> int:
        text = clean_text(text)
        if not text:
            return offset  # nothing to place; a gap, if any, shows on the next append with text
        key = (agent_id, identity.session_key)
        known = self._recent.get(key)
        if (
            known is not None
            and known.length == offset
            and known.inline_bytes + append_cost(text) > self._inline_max
        ):
            # This process wrote the item last and knows its inline text: flush without reading first.
            after = self._flush_and_append(agent_id, identity, known, text, now)
            if after is not None:
                self._recent.put(key, after)
                return after.length
            known = None  # it had moved on
        self._recent.drop(key)
        for _ in range(MAX_ATTEMPTS):
            cost = append_cost(text)
            old: TranscriptHead | None
            if cost <= self._inline_max:
                applied, old = self._append_inline(agent_id, identity, offset, text, now, cost)
                if applied:
                    self._remember_inline(key, known, identity, offset, text, now, cost)
                    return offset + len(text)
            else:
                old = self._stored_head(agent_id, identity.session_key)
            stored = old.length if old else 0
            plan = plan_append(stored, offset, text)
            if plan.kind is AppendKind.NOTHING_NEW:
                return stored
            if plan.kind is AppendKind.GAP:
                raise TranscriptGapError(stored)
            offset, text, known = stored, plan.text, old  # the failed condition handed back the item
            if old is not None and old.inline_bytes + append_cost(text) <= self._inline_max:
                continue  # only the offset was off (repeat/overlap): append what is new
            after = self._flush_and_append(agent_id, identity, old, text, now)
            if after is not None:
                self._recent.put(key, after)
                return after.length
        raise StorageUnavailableError(f"transcript of {identity.session_key} kept changing; retry")

    def _append_inline(
        self, agent_id: str, identity: SessionIdentity, offset: int, text: str, now: datetime, cost: int
    ) -> tuple[bool, TranscriptHead | None]:
        """One UpdateItem if the copy ends at ``offset`` and the text fits inline; else the old item."""
        update = self._common(agent_id, identity, now, offset + len(text))
        update.append("parts", [text])
        update.append("marks", [[_millis(now), offset + len(text)]])
        inline = update.name("inline_bytes")
        update.sets.append(f"{inline} = if_not_exists({inline}, {update.value(0)}) + {update.value(cost)}")
        update.set_if_missing("flushed", 0)
        update.conditions.append(self._at_length(update, offset))
        update.conditions.append(
            f"(attribute_not_exists({inline}) OR {inline} <= {update.value(self._inline_max - cost)})"
        )
        return self._update(agent_id, identity.session_key, update)

    def _remember_inline(
        self,
        key: tuple[str, str],
        known: TranscriptHead | None,
        identity: SessionIdentity,
        offset: int,
        text: str,
        now: datetime,
        cost: int,
    ) -> None:
        """Keep what the item now holds, when this process knows all of it."""
        mark = (_millis(now), offset + len(text))
        if known is not None and known.length == offset:
            self._recent.put(
                key,
                known.model_copy(
                    update={
                        "inline": known.inline + text,
                        "inline_bytes": known.inline_bytes + cost,
                        "length": offset + len(text),
                        "marks": [*known.marks, mark],
                        "updated_at": now,
                    }
                ),
            )
        elif offset == 0:  # the item was created by this append
            self._recent.put(
                key,
                TranscriptHead(
                    **_identity_fields(identity),
                    created_at=now,
                    updated_at=now,
                    length=len(text),
                    inline=text,
                    inline_bytes=cost,
                    marks=[mark],
                ),
            )

    def _flush_and_append(
        self, agent_id: str, identity: SessionIdentity, old: TranscriptHead | None, text: str, now: datetime
    ) -> TranscriptHead | None:
        """Move all but the tail to one S3 chunk and rewrite the item, if it is still ``old``; the item
        as written, or None when it had moved on."""
        stored = old.length if old else 0
        flushed = old.flushed if old else 0
        chunk, keep = split_for_flush(
            (old.inline if old else "") + text, self._keep_chars, self._inline_max // 2
        )
        marks = [*(old.marks if old else []), (_millis(now), stored + len(text))][-MAX_MARKS:]
        chunk_ids = list(old.chunk_ids) if old else []
        chunk_ends = list(old.chunk_ends) if old else []
        update = self._common(agent_id, identity, now, stored + len(text))
        key = None
        if chunk:
            chunk_id = uuid.uuid4().hex[:16]
            key = chunk_key(agent_id, identity.session_key, len(chunk_ids), chunk_id)
            self._bodies.put(key, chunk)
            update.append("chunk_ids", [chunk_id])
            update.append("chunk_ends", [flushed + len(chunk)])
            chunk_ids.append(chunk_id)
            chunk_ends.append(flushed + len(chunk))
        after = TranscriptHead(
            **(old.model_dump(include=_IDENTITY_FIELDS) if old else _identity_fields(identity)),
            created_at=old.created_at if old else now,
            updated_at=now,
            length=stored + len(text),
            flushed=flushed + len(chunk),
            chunk_ids=chunk_ids,
            chunk_ends=chunk_ends,
            inline=keep,
            inline_bytes=inline_cost([keep] if keep else [], len(marks)),
            marks=marks,
        )
        update.set("flushed", after.flushed)
        update.set("parts", [keep] if keep else [])
        update.set("marks", [list(mark) for mark in marks])
        update.set("inline_bytes", after.inline_bytes)
        update.conditions.append(self._at_length(update, stored))
        if old is not None:  # the same incarnation (a session re-created after expiry is another)
            update.conditions.append(
                f"{update.name('created_at')} = {update.value(timestamp(old.created_at))}"
            )
        applied, _ = self._update(agent_id, identity.session_key, update)
        if not applied:
            if key is not None:
                self._forget_chunk(key)
            return None
        return after

    def _common(self, agent_id: str, identity: SessionIdentity, now: datetime, length: int) -> UpdateBuilder:
        update = UpdateBuilder()
        update.set_if_missing("session_key", identity.session_key)
        update.set_if_missing("harness", identity.harness)
        update.set_if_missing("project", identity.project)
        update.set_if_missing("project_normalized", identity.project_normalized)
        update.set_if_missing("created_at", timestamp(now))
        update.set("updated_at", timestamp(now))
        update.set("length", length)
        until = expiry(now, self._retention)
        update.set("expires_at", until.ttl_epoch)
        update.set(EXPIRY_PK, bucket_key(until))
        update.set_if_missing(
            EXPIRY_SK, expiry_sort_key(session_pk(agent_id, identity.session_key), TRANSCRIPT_SK)
        )
        # The project's session index, newest first. A hook without a project keeps the first one.
        update.set(SESSION_INDEX_SK, f"{timestamp(now)}#{identity.session_key}")
        if identity.project_normalized:
            update.set_if_missing(SESSION_INDEX_PK, project_pk(agent_id, identity.project_normalized))
        return update

    @staticmethod
    def _at_length(update: UpdateBuilder, length: int) -> str:
        name = update.name("length")
        if length == 0:
            return f"(attribute_not_exists({name}) OR {name} = {update.value(0)})"
        return f"{name} = {update.value(length)}"

    def _update(
        self, agent_id: str, session_key: str, update: UpdateBuilder
    ) -> tuple[bool, TranscriptHead | None]:
        from botocore.exceptions import ClientError

        try:
            call_dynamodb(
                "update_item",
                TableName=self._table,
                Key=head_key(agent_id, session_key),
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
                **update.request(),
            )
        except ClientError as error:
            if error.response["Error"]["Code"] != "ConditionalCheckFailedException":
                raise
            item: dict[str, Any] | None = error.response.get("Item")  # type: ignore[assignment]
            return False, head_from_item(item) if item else None
        return True, None

    def _forget_chunk(self, key: str) -> None:
        try:
            self._bodies.delete(key)
        except Exception:  # an orphan is harmless: the bucket's lifecycle rule removes it
            logger.warning("could not delete an unused transcript chunk", extra={"key": key})

    # -- reads ---------------------------------------------------------------------------------

    def head(self, agent_id: str, session_key: str, consistent: bool = False) -> TranscriptHead | None:
        item = self._head_item(agent_id, session_key, consistent)
        return head_from_item(item) if item and not item_expired(item, self._clock()) else None

    def _stored_head(self, agent_id: str, session_key: str) -> TranscriptHead | None:
        """The item as stored, expired or not: the append protocol works on the stored length."""
        item = self._head_item(agent_id, session_key, consistent=True)
        return head_from_item(item) if item else None

    def _head_item(self, agent_id: str, session_key: str, consistent: bool) -> dict[str, Any] | None:
        response = call_dynamodb(
            "get_item",
            TableName=self._table,
            Key=head_key(agent_id, session_key),
            ConsistentRead=consistent,
        )
        item: dict[str, Any] | None = response.get("Item")
        return item

    def heads(self, agent_id: str, session_keys: list[str]) -> dict[str, TranscriptHead]:
        found: dict[str, TranscriptHead] = {}
        keys = [head_key(agent_id, key) for key in dict.fromkeys(session_keys)]
        for start in range(0, len(keys), _BATCH_GET):
            pending: dict[str, Any] = {self._table: {"Keys": keys[start : start + _BATCH_GET]}}
            for _ in range(MAX_ATTEMPTS):
                response = call_dynamodb("batch_get_item", RequestItems=pending)
                now = self._clock()
                for item in response.get("Responses", {}).get(self._table, []):
                    if item_expired(item, now):
                        continue
                    head = head_from_item(item)
                    found[head.session_key] = head
                pending = response.get("UnprocessedKeys") or {}
                if not pending:
                    break
            else:
                raise StorageUnavailableError("transcript heads: keys left unprocessed")
        return found

    def read(self, agent_id: str, head: TranscriptHead, start: int = 0, end: int | None = None) -> str:
        end = head.length if end is None else min(end, head.length)
        if start >= end:
            return ""
        wanted = self._chunks_between(head, start, end)
        if len(wanted) > 1:
            from concurrent.futures import ThreadPoolExecutor  # reads only: off the hook path

            with ThreadPoolExecutor(max_workers=_READ_WORKERS) as pool:
                texts = list(pool.map(lambda c: self._chunk(agent_id, head, c), wanted))
        else:
            texts = [self._chunk(agent_id, head, c) for c in wanted]
        pieces = []
        for number, text in zip(wanted, texts, strict=True):
            chunk_start = head.chunk_ends[number - 1] if number else 0
            pieces.append(text[max(start - chunk_start, 0) : end - chunk_start])
        if end > head.flushed:
            pieces.append(head.inline[max(start - head.flushed, 0) : end - head.flushed])
        return "".join(pieces)

    def read_many(self, agent_id: str, ranges: list[tuple[TranscriptHead, int]]) -> dict[str, str]:
        jobs = [
            (head, number)
            for head, start in ranges
            for number in self._chunks_between(head, start, head.length)
        ]

        def fetch(job: tuple[TranscriptHead, int]) -> tuple[str, int, str | None]:
            head, number = job
            try:
                return head.session_key, number, self._chunk(agent_id, head, number)
            except TranscriptBodyMissingError:
                return head.session_key, number, None

        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=_READ_WORKERS) as pool:
            fetched = {(key, number): text for key, number, text in pool.map(fetch, jobs)}
        out: dict[str, str] = {}
        for head, start in ranges:
            numbers = self._chunks_between(head, start, head.length)
            if any(fetched.get((head.session_key, n)) is None for n in numbers):
                logger.warning(
                    "transcript body missing; session left out", extra={"session": head.session_key}
                )
                continue
            pieces = []
            for number in numbers:
                chunk_start = head.chunk_ends[number - 1] if number else 0
                pieces.append((fetched[(head.session_key, number)] or "")[max(start - chunk_start, 0) :])
            pieces.append(head.inline[max(start - head.flushed, 0) :])
            out[head.session_key] = "".join(pieces)
        return out

    @staticmethod
    def _chunks_between(head: TranscriptHead, start: int, end: int) -> list[int]:
        out = []
        for number, chunk_end in enumerate(head.chunk_ends):
            chunk_start = head.chunk_ends[number - 1] if number else 0
            if chunk_end > start and chunk_start < end:
                out.append(number)
        return out

    def _chunk(self, agent_id: str, head: TranscriptHead, number: int) -> str:
        text = self._bodies.get(chunk_key(agent_id, head.session_key, number, head.chunk_ids[number]))
        expected = head.chunk_ends[number] - (head.chunk_ends[number - 1] if number else 0)
        if len(text) != expected:
            raise RuntimeError(f"transcript chunk {number} of {head.session_key}: {len(text)} != {expected}")
        return text

    def recent_sessions(
        self,
        agent_id: str,
        project_normalized: str,
        limit: int,
        token: str | None = None,
        harness: str | None = None,
    ) -> tuple[list[SessionSummary], str | None]:
        index_pk = project_pk(agent_id, project_normalized)
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
            request["ExclusiveStartKey"] = decode_token(token, agent_id, index_pk)
        found: list[SessionSummary] = []
        now = self._clock()
        while True:
            response = call_dynamodb("query", Limit=limit - len(found), **request)
            for item in response.get("Items", []):
                summary = summary_from_item(item)
                # The index projects no TTL; the head's expiry follows from its last append. Newest
                # first, so the first expired one means every later one is too: the listing ends.
                if is_expired(expiry(summary.updated_at, self._retention).ttl_epoch, now):
                    return found, None
                found.append(summary)
            last = response.get("LastEvaluatedKey")
            if not last or len(found) >= limit or harness is not None:
                return found, encode_token(last) if last else None
            request["ExclusiveStartKey"] = last


def encode_token(key: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(key, sort_keys=True).encode()).decode().rstrip("=")


def decode_token(token: str, agent_id: str, index_pk: str) -> dict[str, Any]:
    """The LastEvaluatedKey behind ``token``, if it belongs to this caller's project listing."""
    try:
        key = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
    except (binascii.Error, ValueError, UnicodeDecodeError) as error:
        raise InvalidPageTokenError("next_token is not one this API handed out") from error
    names = {"pk", "sk", SESSION_INDEX_PK, SESSION_INDEX_SK}
    if (
        not isinstance(key, dict)
        or set(key) != names
        or not all(isinstance(v, dict) and set(v) == {"S"} and isinstance(v["S"], str) for v in key.values())
        or key[SESSION_INDEX_PK]["S"] != index_pk
        or not key["pk"]["S"].startswith(session_pk(agent_id, ""))
        or key["sk"]["S"] != TRANSCRIPT_SK
    ):
        raise InvalidPageTokenError("next_token is not one this API handed out for this project")
    return key


def _millis(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)
