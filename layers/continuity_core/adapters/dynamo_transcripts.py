"""Live transcripts in DynamoDB and S3: one small item per append, a head item, S3 chunks.

- **Appends** ``sk = TRANSCRIPT#D#{start:012d}``: one per append, the new text zlib-compressed
  (``z``), where it ends (``end``), when it was written (``at``, epoch ms) and its TTL. In no index.
  A put is conditioned on the key being free, so two writers never store different text at one
  position; the text is the chain of appends from the head's ``flushed`` on, each starting where
  the one before ended.
- **Head** ``sk = TRANSCRIPT``: identity, ``created_at`` (which appends belong to this incarnation of
  the session's transcript), ``flushed`` and the S3 chunk list, and the summary the session index
  projects (``sessions_by_project``, sorted by when the transcript started). Written when the
  transcript starts, when text moves to S3, and at least every ``HEAD_REFRESH`` while appends come,
  never on every append: DynamoDB bills a write by the item's whole size, so the head stays small
  and an append costs what its own compressed text costs.
- **Chunks** in S3 (gzip): when an append passes a multiple of ``chunk_chars``, the appends since
  the last chunk, all but the last ``keep_chars``, become one object and ``flushed`` moves past them.
  The appends stay until their TTL (deleting them would cost as many write units as writing them);
  nothing reads them any more.

The session state carries a hint (``transcript_end``, ``transcript_prev_end``,
``transcript_head_at``) in the update every prompt makes anyway. When the hint says the transcript
ended exactly where the client's delta starts and the head is fresh, an append is one ``PutItem``.
Otherwise (the first append, a repeat, an overlap, a gap, a stale head, a replay) the careful path
reads the head and the appends since ``flushed`` and decides from what is stored; the hint is only
ever a shortcut, the appends are the truth.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

from continuity_core.adapters.dynamo_batch import batch_get
from continuity_core.adapters.dynamo_expiry import (
    bucket_key,
    expiry_sort_key,
    item_expired,
)
from continuity_core.adapters.dynamo_items import (
    compress_text,
    decompress_text,
    from_attributes,
    item_key,
    parse_timestamp,
    project_pk,
    session_pk,
    timestamp,
    to_attributes,
)
from continuity_core.adapters.dynamo_pages import decode_page_token, encode_page_token
from continuity_core.adapters.dynamo_state import (
    call_dynamodb,
    set_transcript_hint,
    state_from_item,
    write_if,
)
from continuity_core.adapters.dynamo_update import UpdateBuilder
from continuity_core.adapters.s3_bodies import S3BodyStore, chunk_key
from continuity_core.logic.retention import expiry, is_expired
from continuity_core.logic.transcripts import (
    AppendKind,
    Span,
    chunk_cut,
    clean_text,
    crosses_chunk,
    follow,
    plan_append,
)
from continuity_core.models.state import SessionIdentity
from continuity_core.models.transcripts import SessionSummary, TranscriptHead
from continuity_core.names import (
    EXPIRY_PK,
    EXPIRY_SK,
    PK,
    SESSION_INDEX,
    SESSION_INDEX_PK,
    SESSION_INDEX_SK,
    SK,
    STATE_SK,
    TRANSCRIPT_SK,
    TTL_ATTRIBUTE,
)
from continuity_core.names import TRANSCRIPT_APPEND_PREFIX as APPEND_PREFIX
from continuity_core.observability import logger
from continuity_core.ports import (
    Clock,
    StorageUnavailableError,
    TranscriptBodyMissingError,
    TranscriptGapError,
    TranscriptHint,
)

_APPENDS_END = APPEND_PREFIX + "~"
# The head is rewritten at least this often while appends come, and kept HEAD_EXTRA longer than an
# append: every append then expires before its head (appends come < 18 h after the head's write; a
# 6 h bucket rounds up), so the pruner, deleting the head, never cuts a transcript short.
HEAD_REFRESH = timedelta(hours=18)
HEAD_EXTRA = timedelta(days=1)
# At most 256 KB of UTF-8 (incompressible text grows by ~0.1 % in zlib): an item stays < 400 KB.
MAX_APPEND_CHARS = 65_536
MAX_ATTEMPTS = 6
_READ_WORKERS = 8


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


class DynamoTranscriptStore:
    """``retention`` runs from the last append; reads leave out what is past its TTL."""

    def __init__(
        self,
        table_name: str,
        bodies: S3BodyStore,
        retention: timedelta,
        chunk_chars: int,
        keep_chars: int,
        clock: Clock = lambda: datetime.now(UTC),
    ) -> None:
        self._table = table_name
        self._bodies = bodies
        self._retention = retention
        self._clock = clock
        self._chunk_chars = chunk_chars
        self._keep_chars = keep_chars

    # -- the append protocol -------------------------------------------------------------------

    def append(
        self,
        agent_id: str,
        identity: SessionIdentity,
        offset: int,
        text: str,
        now: datetime,
        hint: TranscriptHint | None = None,
    ) -> int:
        text = clean_text(text)
        if not text:
            return offset  # nothing to place; a gap, if any, shows on the next append with text
        key = identity.session_key
        end = offset + len(text)
        if hint is not None and self._hint_fits(hint, offset, now):
            if self._put_append(agent_id, key, offset, text, now, born=None):
                self._chunk_if_crossed(agent_id, key, offset, end, now)
                return end
        elif (
            hint is not None
            and hint.previous_end < 0  # the state knows of no transcript: most likely a new one,
            and offset == 0  # so start it without reading first
            and self._start_head(agent_id, identity, now)
            and self._put_append(agent_id, key, 0, text, now, born=now)
        ):
            set_transcript_hint(self._table, agent_id, key, end, head_written_at=now)
            self._chunk_if_crossed(agent_id, key, 0, end, now)
            return end
        return self._append_careful(agent_id, identity, offset, text, now, hint)

    @staticmethod
    def _hint_fits(hint: TranscriptHint, offset: int, now: datetime) -> bool:
        return (
            hint.previous_end == offset
            and hint.head_written_at is not None
            and now - hint.head_written_at < HEAD_REFRESH
        )

    def _append_careful(
        self,
        agent_id: str,
        identity: SessionIdentity,
        offset: int,
        text: str,
        now: datetime,
        hint: TranscriptHint | None,
    ) -> int:
        """Decide from what is stored: the head, and the appends since its ``flushed``."""
        key = identity.session_key
        hinted_end = offset + len(text) if hint is not None else None  # what the state update set
        hinted_head = hint.head_written_at if hint is not None else None

        def tell_state(end: int, head_at: datetime | None) -> None:
            """Correct the state's hint where it is wrong, so the next prompt takes one request."""
            if end != hinted_end or head_at != hinted_head:
                set_transcript_hint(self._table, agent_id, key, end, head_written_at=head_at)

        for _ in range(MAX_ATTEMPTS):
            item = self._head_item(agent_id, key, consistent=True)
            head = head_from_item(item) if item and not item_expired(item, now) else None
            if head is None:
                stored, born = 0, now
            else:
                born = head.created_at
                spans, _ = self._since_flushed(agent_id, head, now, consistent=True, texts=False)
                stored = spans[-1].end if spans else head.flushed
            plan = plan_append(stored, offset, text)
            if plan.kind is not AppendKind.APPEND:
                tell_state(stored, head.updated_at if head else None)
                if plan.kind is AppendKind.GAP:
                    raise TranscriptGapError(stored)
                return stored
            head_at = head.updated_at if head else None
            if head is None:
                if not self._start_head(agent_id, identity, now):
                    continue  # another writer started it: decide again
                head_at = now
            if not self._put_append(agent_id, key, stored, plan.text, now, born=born):
                continue  # another writer appended at the same place
            new_end = stored + len(plan.text)
            if (
                head is not None
                and now - head.updated_at >= HEAD_REFRESH
                and self._refresh_head(agent_id, identity, head, new_end, now)
            ):
                head_at = now
            tell_state(new_end, head_at)
            self._chunk_if_crossed(agent_id, key, stored, new_end, now)
            return new_end
        raise StorageUnavailableError(f"transcript of {key} kept changing; retry")

    def _put_append(
        self, agent_id: str, session_key: str, start: int, text: str, now: datetime, born: datetime | None
    ) -> bool:
        """Store ``text`` at ``start`` unless something is there (of this incarnation, when ``born``):
        one item per ``MAX_APPEND_CHARS``, so an item stays far below DynamoDB's 400 KB."""
        for at in range(0, len(text), MAX_APPEND_CHARS):
            if not self._put_one(
                agent_id, session_key, start + at, text[at : at + MAX_APPEND_CHARS], now, born
            ):
                return False  # someone else appended here; the caller decides again from what is stored
        return True

    def _put_one(
        self, agent_id: str, session_key: str, start: int, text: str, now: datetime, born: datetime | None
    ) -> bool:
        item = {
            PK: session_pk(agent_id, session_key),
            SK: append_sk(start),
            "end": start + len(text),
            "at": _millis(now),
            "z": compress_text(text),
            # TTL at the end of its retention, no grace: by the time the pruner deletes the head
            # (which outlives every append), DynamoDB may delete the appends for free.
            TTL_ATTRIBUTE: int(expiry(now, self._retention).prunable.timestamp()),
        }
        request: dict[str, Any] = {"ConditionExpression": f"attribute_not_exists({SK})"}
        if born is not None:  # an append left by an earlier incarnation is free to overwrite
            request = {
                "ConditionExpression": f"attribute_not_exists({SK}) OR #at < :born",
                "ExpressionAttributeNames": {"#at": "at"},
                "ExpressionAttributeValues": {":born": {"N": str(_millis(born))}},
            }
        return write_if("put_item", TableName=self._table, Item=to_attributes(item), **request)

    def _start_head(self, agent_id: str, identity: SessionIdentity, now: datetime) -> bool:
        """A new head (a new incarnation when the old one is past its TTL); False if one lives."""
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
        return write_if(
            "put_item",
            TableName=self._table,
            Item=to_attributes(values),
            ConditionExpression=f"attribute_not_exists({PK}) OR {TTL_ATTRIBUTE} < :now",
            ExpressionAttributeValues={":now": {"N": str(int(now.timestamp()))}},
        )

    def _head_update(
        self, agent_id: str, identity: SessionIdentity, head: TranscriptHead, length: int, now: datetime
    ) -> UpdateBuilder:
        """The head's summary and expiry moved to ``now``, if it is still this incarnation."""
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
        return update

    def _refresh_head(
        self, agent_id: str, identity: SessionIdentity, head: TranscriptHead, length: int, now: datetime
    ) -> bool:
        return self._update_head(
            agent_id, identity.session_key, self._head_update(agent_id, identity, head, length, now)
        )

    def _update_head(self, agent_id: str, session_key: str, update: UpdateBuilder) -> bool:
        return write_if(
            "update_item", TableName=self._table, Key=head_key(agent_id, session_key), **update.request()
        )

    # -- moving text to S3 -----------------------------------------------------------------------

    def _chunk_if_crossed(self, agent_id: str, session_key: str, start: int, end: int, now: datetime) -> None:
        if not crosses_chunk(start, end, self._chunk_chars):
            return
        try:
            self._move_to_s3(agent_id, session_key, now)
        except Exception:  # the append is stored; the next crossing moves what this one did not
            logger.exception("could not move transcript text to S3", extra={"session": session_key})

    def _move_to_s3(self, agent_id: str, session_key: str, now: datetime) -> None:
        item = self._head_item(agent_id, session_key, consistent=True)
        if not item or item_expired(item, now):
            return
        head = head_from_item(item)
        spans, texts = self._since_flushed(agent_id, head, now, consistent=True)
        cut = chunk_cut(spans, head.flushed, self._keep_chars, self._chunk_chars // 2)
        if cut <= head.flushed:
            return
        chunk = "".join(text for span, text in zip(spans, texts, strict=True) if span.end <= cut)
        chunk_id = uuid.uuid4().hex[:16]
        key = chunk_key(agent_id, session_key, len(head.chunk_ids), chunk_id)
        self._bodies.put(key, chunk)
        identity = SessionIdentity(
            session_key=session_key,
            harness=head.harness or "",
            project=head.project,
            project_normalized=head.project_normalized,
        )
        update = self._head_update(agent_id, identity, head, spans[-1].end, now)
        update.set("flushed", cut)
        update.append("chunk_ids", [chunk_id])
        update.append("chunk_ends", [cut])
        update.conditions.append(f"{update.name('flushed')} = {update.value(head.flushed)}")
        if head.inline:  # the earlier layout's inline text is in the chunk now
            for name in ("parts", "inline_bytes", "marks"):
                update.remove(name)
        if not self._update_head(agent_id, session_key, update):
            self._forget_chunk(key)

    def _forget_chunk(self, key: str) -> None:
        try:
            self._bodies.delete(key)
        except Exception:  # an orphan is harmless: the bucket's lifecycle rule removes it
            logger.warning("could not delete an unused transcript chunk", extra={"key": key})

    # -- reads ---------------------------------------------------------------------------------

    def _appends(
        self,
        agent_id: str,
        session_key: str,
        start: int,
        born: datetime,
        now: datetime,
        consistent: bool,
        texts: bool = True,
    ) -> tuple[list[Span], list[str]]:
        """The chain of this incarnation's appends from ``start`` (and their texts)."""
        spans: dict[int, Span] = {}
        bodies: dict[int, bytes] = {}
        born_ms = _millis(born)
        for item in self._query_appends(agent_id, session_key, start, consistent):
            # While the head lives, its appends are the transcript, TTL or not (an append can pass
            # its TTL in a session active for longer than the retention); an earlier incarnation's
            # are not.
            if int(item["at"]["N"]) < born_ms:
                continue
            position = int(item[SK]["S"][len(APPEND_PREFIX) :])
            spans[position] = Span(position, int(item["end"]["N"]), int(item["at"]["N"]))
            bodies[position] = item["z"]["B"]
        chain = follow(spans, start)
        return chain, [decompress_text(bodies[span.start]) for span in chain] if texts else []

    def _since_flushed(
        self, agent_id: str, head: TranscriptHead, now: datetime, consistent: bool, texts: bool = True
    ) -> tuple[list[Span], list[str]]:
        """The text after ``flushed``: a head of the earlier layout's inline text, then the appends."""
        legacy = head.inline
        start = head.flushed + len(legacy)
        spans, bodies = self._appends(
            agent_id, head.session_key, start, head.created_at, now, consistent, texts
        )
        if not legacy:
            return spans, bodies
        first = Span(head.flushed, start, _millis(head.created_at))
        return [first, *spans], [legacy, *bodies] if texts else []

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

    def _query_appends(
        self, agent_id: str, session_key: str, start: int, consistent: bool
    ) -> Iterator[dict[str, Any]]:
        request = self._appends_request(agent_id, session_key, start) | {"ConsistentRead": consistent}
        while True:
            response = call_dynamodb("query", **request)
            yield from response.get("Items", [])
            last = response.get("LastEvaluatedKey")
            if not last:
                return
            request["ExclusiveStartKey"] = last

    def _assemble(self, agent_id: str, item: dict[str, Any], consistent: bool) -> TranscriptHead:
        """The head with the text since ``flushed`` (``inline``), its length and marks."""
        head = head_from_item(item)
        spans, texts = self._since_flushed(agent_id, head, self._clock(), consistent)
        if not spans:
            return head.model_copy(update={"length": head.flushed})
        last = _moment(spans[-1].at_ms)
        return head.model_copy(
            update={
                "inline": "".join(texts),
                "length": spans[-1].end,
                "marks": [(span.at_ms, span.end) for span in spans],
                "updated_at": max(head.updated_at, last),
            }
        )

    def head(self, agent_id: str, session_key: str, consistent: bool = False) -> TranscriptHead | None:
        item = self._head_item(agent_id, session_key, consistent)
        if not item or item_expired(item, self._clock()):
            return None
        return self._assemble(agent_id, item, consistent)

    def read_since(self, agent_id: str, session_key: str, start: int) -> tuple[str, int] | None:
        """The text from ``start`` (a length the transcript had) to its end, and that end; None when
        the session has no transcript. From a length read before, one query: the appends stay in the
        table until their TTL, even once their text also went to S3, so the chain from ``start`` is
        there (an earlier incarnation's appends could only be on it after this one's head expired,
        and then the digest that noted ``start`` has expired too). Otherwise the whole body."""
        if start > 0:
            spans, texts = self._appends(agent_id, session_key, start, _EPOCH, self._clock(), True)
            if spans:
                return "".join(texts), spans[-1].end
        item = self._head_item(agent_id, session_key, consistent=True)
        if not item or item_expired(item, self._clock()):
            return None
        whole = self._assemble(agent_id, item, consistent=True)
        if whole.length < start:  # a new transcript under the same key: all of it is new
            start = 0
        return self.read(agent_id, whole, start), whole.length

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
        keys = [head_key(agent_id, key) for key in dict.fromkeys(session_keys)]
        items = batch_get(self._table, keys)
        now = self._clock()
        live = [item for item in items if not item_expired(item, now)]
        from concurrent.futures import ThreadPoolExecutor  # reads only: off the hook path

        with ThreadPoolExecutor(max_workers=_READ_WORKERS) as pool:
            found = list(pool.map(lambda item: self._assemble(agent_id, item, False), live))
        return {head.session_key: head for head in found}

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
        """Newest transcript first; length and last activity as the session state has them now."""
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
        now = self._clock()
        while True:
            response = call_dynamodb("query", Limit=limit - len(found), **request)
            for item in response.get("Items", []):
                summary = summary_from_item(item)
                # The index projects no TTL; the head's follows from its last write.
                if not is_expired(expiry(summary.updated_at, self._retention + HEAD_EXTRA).ttl_epoch, now):
                    found.append(summary)
            last = response.get("LastEvaluatedKey")
            if not last or len(found) >= limit or harness is not None:
                return self._with_activity(agent_id, found), encode_page_token(last, scope) if last else None
            request["ExclusiveStartKey"] = last

    def _with_activity(self, agent_id: str, summaries: list[SessionSummary]) -> list[SessionSummary]:
        """The head is not written per append: length and last activity come from the session
        state's hint, or (no hint: the state is gone, or never saw this transcript) from the newest
        append."""
        if not summaries:
            return summaries
        keys = [item_key(session_pk(agent_id, s.session_key), STATE_SK) for s in summaries]
        states = {state.session_key: state for state in map(state_from_item, batch_get(self._table, keys))}
        latest: dict[str, tuple[int, datetime]] = {
            key: (state.transcript_end, state.last_activity_at)
            for key, state in states.items()
            if state.transcript_end is not None
        }
        unhinted = [s for s in summaries if s.session_key not in latest]
        if unhinted:
            from concurrent.futures import ThreadPoolExecutor  # reads only: off the hook path

            with ThreadPoolExecutor(max_workers=_READ_WORKERS) as pool:
                for summary, span in zip(
                    unhinted, pool.map(lambda s: self._newest(agent_id, s), unhinted), strict=True
                ):
                    if span is not None:
                        latest[summary.session_key] = (span.end, _moment(span.at_ms))
        out = []
        for summary in summaries:
            end, active = latest.get(summary.session_key, (summary.length, summary.updated_at))
            out.append(
                summary.model_copy(
                    update={"length": max(summary.length, end), "updated_at": max(summary.updated_at, active)}
                )
            )
        return out

    def _newest(self, agent_id: str, summary: SessionSummary) -> Span | None:
        """The transcript's last append (of this incarnation), if any."""
        response = call_dynamodb(
            "query",
            **self._appends_request(agent_id, summary.session_key, 0),
            ProjectionExpression=f"{SK}, #end, #at",
            ExpressionAttributeNames={"#end": "end", "#at": "at"},
            ScanIndexForward=False,
            Limit=1,
        )
        for item in response.get("Items", []):
            at = int(item["at"]["N"])
            if at >= _millis(summary.created_at):
                start = int(item[SK]["S"][len(APPEND_PREFIX) :])
                return Span(start, int(item["end"]["N"]), at)
        return None


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


_IDENTITY_FIELDS = {"session_key", "harness", "project", "project_normalized"}


def _identity_fields(identity: SessionIdentity) -> dict[str, Any]:
    return identity.model_dump(include=_IDENTITY_FIELDS)


def _millis(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def _moment(millis: int) -> datetime:
    return datetime.fromtimestamp(millis / 1000, UTC)
