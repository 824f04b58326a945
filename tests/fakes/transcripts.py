"""``TranscriptStorage`` in memory. ``tests/contract/test_transcript_storage_contract.py`` runs the
same checks against it and the DynamoDB/S3 adapter, so what the appender's unit tests rely on is
what the real storage does."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from continuity_core.kernel.dynamo_items import millis
from continuity_core.kernel.dynamo_pages import decode_page_token, encode_page_token
from continuity_core.kernel.expiry import expiry, is_expired
from continuity_core.models.state import SessionIdentity
from continuity_core.models.transcripts import SessionSummary, TranscriptHead
from continuity_core.transcripts.dynamo_transcripts import HEAD_EXTRA
from continuity_core.transcripts.ports import ChunkMove, Span, StoredAppend, TranscriptBodyMissingError

Key = tuple[str, str]  # (agent, session)


@dataclass
class _Head:
    head: TranscriptHead
    ttl_epoch: int


@dataclass
class InMemoryTranscriptStorage:
    retention: timedelta = timedelta(days=7)
    stored_heads: dict[Key, _Head] = field(default_factory=dict)
    stored_appends: dict[Key, dict[int, StoredAppend]] = field(default_factory=dict)
    chunks: dict[tuple[str, str, int, str], str] = field(default_factory=dict)
    calls: list[str] = field(default_factory=list)  # what the logic asked for, in order

    # -- seeding (what earlier code left behind) -------------------------------------------------

    def seed_head(self, agent_id: str, head: TranscriptHead, now: datetime) -> None:
        """A head as stored, e.g. one of the earlier layout (its text in ``inline``)."""
        self.stored_heads[(agent_id, head.session_key)] = _Head(head, self._head_ttl(now))

    # -- the head --------------------------------------------------------------------------------

    def head(self, agent_id: str, session_key: str, now: datetime, consistent: bool) -> TranscriptHead | None:
        self.calls.append("head")
        stored = self.stored_heads.get((agent_id, session_key))
        return stored.head if stored and not is_expired(stored.ttl_epoch, now) else None

    def heads(self, agent_id: str, session_keys: list[str], now: datetime) -> list[TranscriptHead]:
        self.calls.append("heads")
        found = (self.stored_heads.get((agent_id, key)) for key in dict.fromkeys(session_keys))
        return [s.head for s in found if s is not None and not is_expired(s.ttl_epoch, now)]

    def start_head(self, agent_id: str, identity: SessionIdentity, now: datetime) -> bool:
        self.calls.append("start_head")
        current = self.stored_heads.get((agent_id, identity.session_key))
        if current is not None and not is_expired(current.ttl_epoch, now):
            return False  # a live head: another writer started it
        head = TranscriptHead(**identity.model_dump(), created_at=now, updated_at=now, length=0, flushed=0)
        self.stored_heads[(agent_id, identity.session_key)] = _Head(head, self._head_ttl(now))
        return True

    def update_head(
        self,
        agent_id: str,
        identity: SessionIdentity,
        head: TranscriptHead,
        length: int,
        now: datetime,
        chunk: ChunkMove | None = None,
    ) -> bool:
        self.calls.append("update_head" if chunk is None else "update_head+chunk")
        current = self.stored_heads.get((agent_id, identity.session_key))
        if current is None or current.head.created_at != head.created_at:
            return False
        if chunk is not None and current.head.flushed != head.flushed:
            return False
        old = current.head
        changes: dict[str, object] = {
            "harness": old.harness if old.harness is not None else identity.harness,
            "project": old.project if old.project is not None else identity.project,
            "project_normalized": old.project_normalized
            if old.project_normalized is not None
            else identity.project_normalized,
            "updated_at": now,
            "length": length,
        }
        if chunk is not None:
            changes |= {
                "flushed": chunk.end,
                "chunk_ids": [*old.chunk_ids, chunk.chunk_id],
                "chunk_ends": [*old.chunk_ends, chunk.end],
                "inline": "",
            }
        self.stored_heads[(agent_id, identity.session_key)] = _Head(
            old.model_copy(update=changes), self._head_ttl(now)
        )
        return True

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
        self.calls.append("put_append")
        appends = self.stored_appends.setdefault((agent_id, session_key), {})
        there = appends.get(start)
        if there is not None and (born is None or there.span.at_ms >= millis(born)):
            return False
        appends[start] = StoredAppend(Span(start, start + len(text), millis(now)), text, open_kind)
        return True

    def replace_append(self, agent_id: str, session_key: str, append: StoredAppend, text: str) -> bool:
        self.calls.append("replace_append")
        appends = self.stored_appends.get((agent_id, session_key), {})
        there = appends.get(append.span.start)
        if there is None or there.span != append.span or there.revision != append.revision:
            return False
        appends[append.span.start] = replace(there, text=text, revision=there.revision + 1)
        return True

    def appends(self, agent_id: str, session_key: str, start: int, consistent: bool) -> list[StoredAppend]:
        self.calls.append("appends")
        stored = self.stored_appends.get((agent_id, session_key), {})
        return [stored[position] for position in sorted(stored) if position >= start]

    def latest_appends(self, agent_id: str, session_key: str, before: int, limit: int) -> list[StoredAppend]:
        self.calls.append("latest_appends")
        stored = self.stored_appends.get((agent_id, session_key), {})
        return [stored[position] for position in sorted(p for p in stored if p < before)[-limit:]]

    def newest_append(self, agent_id: str, session_key: str) -> Span | None:
        self.calls.append("newest_append")
        stored = self.stored_appends.get((agent_id, session_key), {})
        return stored[max(stored)].span if stored else None

    # -- chunks ----------------------------------------------------------------------------------

    def put_chunk(self, agent_id: str, session_key: str, number: int, chunk_id: str, text: str) -> None:
        self.calls.append("put_chunk")
        self.chunks[(agent_id, session_key, number, chunk_id)] = text

    def get_chunk(self, agent_id: str, session_key: str, number: int, chunk_id: str) -> str:
        self.calls.append("get_chunk")
        try:
            return self.chunks[(agent_id, session_key, number, chunk_id)]
        except KeyError:
            raise TranscriptBodyMissingError(chunk_id) from None

    def delete_chunk(self, agent_id: str, session_key: str, number: int, chunk_id: str) -> None:
        self.calls.append("delete_chunk")
        self.chunks.pop((agent_id, session_key, number, chunk_id), None)

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
        self.calls.append("session_index")
        # The index's sort key: when the transcript started, then the session; newest first.
        listed = sorted(
            (
                ((stored.head.created_at.isoformat(), key[1]), stored)
                for key, stored in self.stored_heads.items()
                if key[0] == agent_id and stored.head.project_normalized == project_normalized
            ),
            key=lambda entry: entry[0],
            reverse=True,
        )
        scope = {"sessions": f"{agent_id}\n{project_normalized}"}  # the adapter's codec, this fake's scope
        if token:
            key = decode_page_token(token, scope, {"started": "", "session": ""})
            after = (key["started"]["S"], key["session"]["S"])
            listed = [entry for entry in listed if entry[0] < after]
        found: list[SessionSummary] = []
        read = 0
        while True:
            # As a DynamoDB Query: a page of ``limit`` minus what was found; a harness filter applies
            # after the page is read, and then one page is all.
            page = listed[read : read + limit - len(found)]
            read += len(page)
            for _, stored in page:
                if is_expired(stored.ttl_epoch, now) or (
                    harness is not None and stored.head.harness != harness
                ):
                    continue
                found.append(stored.head.summary())
            more = read < len(listed)
            if not more or len(found) >= limit or harness is not None:
                if not more:
                    return found, None
                started, session = listed[read - 1][0]
                last = {"started": {"S": started}, "session": {"S": session}}
                return found, encode_page_token(last, scope)

    def _head_ttl(self, now: datetime) -> int:
        return expiry(now, self.retention + HEAD_EXTRA).ttl_epoch
