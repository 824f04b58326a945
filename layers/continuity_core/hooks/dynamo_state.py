"""Session state in DynamoDB: one item per session, every change one atomic UpdateItem.

A deleted session's state is its tombstone (``deleted_at``): every write that marks activity is
conditioned on its absence, so nothing of a deleted session is stored again until it expires. The
write that creates a state also puts a small item under the project's key
(``PROJECT_SESSION_PREFIX``), so deleting a project finds sessions that have no checkpoint or
transcript yet: one more write per session, none per prompt.

One module: the ``StateStore`` port's one adapter. Every write is a conditioned UpdateItem on the
same item, and its conditions (tombstone, idempotency key, version, the idle index's key, which
``checkpoints/dynamo_idle.py`` reads) are kept side by side so they stay consistent.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from continuity_core.hooks.ports import (
    DuplicateHookError,
    HandoffTakenError,
    PromptRecord,
    SessionLinks,
    StartExpectation,
    StartWrite,
)
from continuity_core.kernel.aws import call_dynamodb, write_if
from continuity_core.kernel.clock import Clock
from continuity_core.kernel.dynamo_batch import batch_get, batch_write
from continuity_core.kernel.dynamo_expiry import bucket_key, expiry_sort_key, item_expired
from continuity_core.kernel.dynamo_items import (
    compress_short_text,
    from_attributes,
    item_key,
    parse_timestamp,
    project_notes_pk,
    project_pk,
    projects_pk,
    session_pk,
    short_texts,
    timestamp,
    to_attributes,
)
from continuity_core.kernel.dynamo_pages import decode_page_token, encode_page_token
from continuity_core.kernel.dynamo_update import UpdateBuilder
from continuity_core.kernel.errors import SessionDeletedError
from continuity_core.kernel.expiry import expiry
from continuity_core.kernel.names import (
    DELETED_AT_ATTRIBUTE,
    EXPIRY_PK,
    EXPIRY_SK,
    IDLE_PK,
    IDLE_SHARD_PREFIX,
    IDLE_SHARDS,
    IDLE_SK,
    PK,
    PROJECT_SESSION_PREFIX,
    SESSION_INDEX,
    SESSION_INDEX_PK,
    SESSION_INDEX_SK,
    SK,
    STATE_SK,
    TTL_ATTRIBUTE,
)
from continuity_core.models.state import SessionIdentity, SessionState, Tally
from continuity_core.sessions.dynamo_projects import (
    handoffs_gone,
    project_record,
    project_record_key,
    session_started,
)

if TYPE_CHECKING:
    from continuity_core.models.handoff import Handoff
    from continuity_core.models.injections import InjectionRecord
    from continuity_core.models.projects import ProjectRecord

# The live transcript's hint (models/state.py; transcripts/append.py).
TRANSCRIPT_END = "transcript_end"
TRANSCRIPT_PREV_END = "transcript_prev_end"
TRANSCRIPT_HEAD_AT = "transcript_head_at"
# Idempotency keys of recent hooks, so a client's replay of a spooled hook never double counts:
# ``hook_keys`` holds each key's digest followed by its body's (``hook_body_digest``), the last
# 16 to 32 hooks (trimmed by 16 at a time, so not every prompt pays for a trim). The client resends
# a hook whose answer it lost before any later hook of that session (its spool keeps their order), so
# a replay arrives within a few hooks; every prompt pays for these bytes (the state item is billed by
# size on each update: 64 to 128 hooks cost ~0.5 write units a prompt).
MAX_HOOK_KEYS = 16
HOOK_KEYS = "hook_keys"
KEY_DIGEST_CHARS = 9
BODY_DIGEST_CHARS = 3
_TIME_FIELDS = (
    "started_at",
    "last_activity_at",
    "last_checkpoint_at",
    "flush_requested_at",
    "last_digest_at",
    "ended_at",
    "nudge_armed_at",
    "transcript_head_at",
)


def state_from_item(item: dict[str, Any]) -> SessionState:
    values = from_attributes(item)
    if values.get("pending_snippets"):
        values["pending_snippets"] = short_texts(values["pending_snippets"])
    for field in _TIME_FIELDS:
        if values.get(field):
            values[field] = parse_timestamp(values[field])
    if values.get("pending_remember_at"):
        values["pending_remember_at"] = [parse_timestamp(at) for at in values["pending_remember_at"]]
    return SessionState.model_validate(values)


class DynamoStateStore:
    def __init__(self, table_name: str, ttl: timedelta, clock: Clock = lambda: datetime.now(UTC)) -> None:
        self._table = table_name
        self._ttl = ttl
        self._clock = clock  # reads ignore a state past its TTL

    # -- writes ------------------------------------------------------------------------------

    def touch(
        self,
        agent_id: str,
        identity: SessionIdentity,
        now: datetime,
        links: SessionLinks | None = None,
        tally: Tally | None = None,
    ) -> SessionState:
        update = self._activity(agent_id, identity, now)
        for name, value in (links.values() if links else {}).items():  # same write, a few bytes more
            update.set(name, value)
        if tally is not None:  # same write: a counter is a few bytes of the item
            update.add(tally.value, 1)
        return self._apply(agent_id, identity, update, now)

    def start_session(
        self,
        agent_id: str,
        identity: SessionIdentity,
        now: datetime,
        links: SessionLinks | None,
        injection: InjectionRecord | None,
        expect: StartExpectation,
        handoff: Handoff | None = None,
    ) -> StartWrite | None:
        """A new session (``NEW``): the state, its project note, the injection and the consumption of
        ``handoff`` (only with ``NEW``) in one transaction.
        Otherwise the state's ``UpdateItem`` (conditioned on ``NO_CHECKPOINTS`` when assumed), then
        the injection (with the note, in one ``BatchWriteItem``, if the update created the state)."""
        update = self._activity(agent_id, identity, now)
        for name, value in (links.values() if links else {}).items():
            update.set(name, value)
        if expect is StartExpectation.NEW:
            return self._start_new(agent_id, identity, now, update, injection, handoff)
        if expect is StartExpectation.NO_CHECKPOINTS:
            written = update.name("checkpoints_written")
            update.conditions.append(f"(attribute_not_exists({written}) OR {written} = {update.value(0)})")
        state = self._update(agent_id, identity.session_key, update, tolerate_condition=True)
        if state is None:
            if expect is StartExpectation.ANY or self.deleted(agent_id, identity.session_key):
                raise SessionDeletedError(identity.session_key)  # ANY's one condition is the tombstone's
            return None
        created = state.started_at == parse_timestamp(timestamp(now))
        note = self._note_item(agent_id, identity, now) if created and identity.project_normalized else None
        entry = self._injection_item(agent_id, injection) if injection is not None else None
        items = [item for item in (note, entry) if item is not None]
        try:
            if len(items) > 1:
                batch_write(self._table, [{"PutRequest": {"Item": item}} for item in items])
            elif items:
                self._call("put_item", TableName=self._table, Item=items[0])
        except Exception:
            if note is None:  # the injection alone failed: the inspector's loss, never the agent's
                return StartWrite(created=created, injection_stored=False)
            self._call("put_item", TableName=self._table, Item=note)  # the note's failure is the hook's
            self._note_project(agent_id, identity, now)
            return StartWrite(created=created, injection_stored=False)
        if note is not None:
            self._note_project(agent_id, identity, now)
        return StartWrite(created=created, injection_stored=entry is not None)

    def _start_new(
        self,
        agent_id: str,
        identity: SessionIdentity,
        now: datetime,
        update: UpdateBuilder,
        injection: InjectionRecord | None,
        handoff: Handoff | None = None,
    ) -> StartWrite | None:
        from botocore.exceptions import ClientError

        from continuity_core.recovery.dynamo_handoffs import consume_update

        update.conditions.append(f"attribute_not_exists({update.name('started_at')})")
        table, key = self._table, _key(agent_id, identity.session_key)
        writes: list[dict[str, Any]] = [{"Update": {"TableName": table, "Key": key, **update.request()}}]
        # The record counts the hand-off as open no more: in its own update when the hand-off is of
        # another project (the path-keyed one read before project ids), else in the new session's.
        same_project = handoff is not None and handoff.project_normalized == identity.project_normalized
        if identity.project_normalized:
            writes.append({"Put": {"TableName": table, "Item": self._note_item(agent_id, identity, now)}})
            record = self._project_record_update(agent_id, identity, now, handoff if same_project else None)
            writes.append({"Update": {"TableName": table, **record}})
        if injection is not None:
            writes.append({"Put": {"TableName": table, "Item": self._injection_item(agent_id, injection)}})
        if handoff is not None and not same_project:
            gone = UpdateBuilder()
            handoffs_gone(gone, [handoff.id])
            key = project_record_key(agent_id, handoff.project_normalized)
            writes.append({"Update": {"TableName": table, "Key": key, **gone.request()}})
        if handoff is not None:  # last: a cancelled transaction's last reason is the hand-off's
            writes.append(consume_update(agent_id, handoff, identity.session_key, now, table))
        try:
            call_dynamodb("transact_write_items", TransactItems=writes)
        except ClientError as error:
            if error.response["Error"]["Code"] != "TransactionCanceledException":
                raise
            if handoff is not None and _failed_last(dict(error.response)):
                raise HandoffTakenError(handoff.id) from error
            if self.deleted(agent_id, identity.session_key):
                raise SessionDeletedError(identity.session_key) from error
            return None  # the state exists: the caller starts it as an existing session
        return StartWrite(created=True, injection_stored=injection is not None)

    def _injection_item(self, agent_id: str, injection: InjectionRecord) -> dict[str, Any]:
        from continuity_core.recovery.dynamo_injections import injection_item

        return injection_item(agent_id, injection, self._ttl)

    def record_prompt(
        self, agent_id: str, identity: SessionIdentity, prompt: PromptRecord, now: datetime
    ) -> SessionState:
        update = self._activity(agent_id, identity, now)
        update.add("prompts_since_checkpoint", 1)
        update.add("total_prompts", 1)
        update.add("version", 1)
        if prompt.compacted:
            update.add(Tally.COMPACTIONS.value, 1)
        _enter_idle_index(update, agent_id, identity.session_key, now)
        if prompt.snippet:
            # Compressed (~125 bytes, not ~200): every prompt rewrites the item and pays by its size.
            update.append("pending_snippets", [compress_short_text(prompt.snippet)])
        if prompt.transcript_chars is not None:
            update.set("transcript_chars", prompt.transcript_chars)
        if prompt.context_tokens is not None:  # a prompt without one keeps the last (compaction nudge)
            update.set("context_tokens", prompt.context_tokens)
        if prompt.flush_token is not None:
            update.set_if_missing("flush_token", prompt.flush_token)
        if prompt.transcript_end is not None:
            # Both operands read the item as it was: the previous end comes back with the new one.
            end, previous = update.name(TRANSCRIPT_END), update.name(TRANSCRIPT_PREV_END)
            update.sets.append(f"{previous} = if_not_exists({end}, {update.value(-1)})")
            update.sets.append(f"{end} = {update.value(prompt.transcript_end)}")
        once = self._once(update, prompt.idempotency_key, prompt.body_fingerprint)
        return self._apply(agent_id, identity, update, now, once)

    def record_remember(
        self,
        agent_id: str,
        identity: SessionIdentity,
        content: str,
        now: datetime,
        idempotency_key: str | None = None,
        body_fingerprint: str | None = None,
    ) -> SessionState:
        update = self._activity(agent_id, identity, now)
        update.append("pending_remembers", [content])
        update.append("pending_remember_at", [timestamp(now)])
        update.add("version", 1)
        _enter_idle_index(update, agent_id, identity.session_key, now)
        once = self._once(update, idempotency_key, body_fingerprint)
        return self._apply(agent_id, identity, update, now, once)

    def record_digest(self, agent_id: str, identity: SessionIdentity, now: datetime) -> SessionState:
        update = self._activity(agent_id, identity, now)
        update.add("checkpoints_written", 1)
        update.set("last_digest_at", timestamp(now))
        return self._apply(agent_id, identity, update, now)

    def end_session(self, agent_id: str, session_key: str, now: datetime) -> None:
        update = UpdateBuilder()
        update.set("prompts_since_checkpoint", 0)
        for name in ("pending_queries", "pending_snippets", "pending_remembers", "pending_remember_at"):
            update.remove(name)  # an absent list reads as empty
        update.set("ended_at", timestamp(now))
        update.remove("flush_token")
        update.remove("flush_requested_at")
        update.remove(IDLE_PK)  # nothing pending is left for the idle sweep
        update.remove(IDLE_SK)
        update.add("version", 1)
        update.conditions.append(f"attribute_exists({update.name('started_at')})")
        self._update(agent_id, session_key, update, tolerate_condition=True)

    def set_nudged(self, agent_id: str, session_key: str, nudged: bool, now: datetime) -> bool:
        update = UpdateBuilder()
        flag = update.name("nudged")
        update.set("nudged", nudged)
        if not nudged:
            update.set("nudge_armed_at", timestamp(now))
        current = update.value(True)
        update.conditions.append(
            f"{flag} = {current}" if not nudged else f"(attribute_not_exists({flag}) OR {flag} <> {current})"
        )
        return self._update(agent_id, session_key, update, tolerate_condition=True) is not None

    def set_transcript_hint(
        self, agent_id: str, session_key: str, end: int, head_written_at: datetime | None
    ) -> None:
        update = UpdateBuilder()
        update.set(TRANSCRIPT_END, end)
        update.set(TRANSCRIPT_PREV_END, end)
        if head_written_at is not None:
            update.set(TRANSCRIPT_HEAD_AT, timestamp(head_written_at))
        update.conditions.append(f"attribute_exists({SK})")  # never creates a state
        write_if("update_item", TableName=self._table, Key=_key(agent_id, session_key), **update.request())

    def claim_flush(
        self, agent_id: str, session_key: str, token: str, now: datetime, stale_before: datetime
    ) -> bool:
        update = UpdateBuilder()
        requested = update.name("flush_requested_at")
        update.set("flush_token", token)
        update.set("flush_requested_at", timestamp(now))
        # An armed token (no request time) is free to claim: its prompt has not come.
        update.conditions.append(
            f"(attribute_not_exists({requested}) OR {requested} < {update.value(timestamp(stale_before))})"
        )
        return self._update(agent_id, session_key, update, tolerate_condition=True) is not None

    def release_flush(self, agent_id: str, session_key: str, token: str) -> None:
        update = UpdateBuilder()
        update.remove("flush_token")
        update.remove("flush_requested_at")
        update.conditions.append(f"{update.name('flush_token')} = {update.value(token)}")
        self._update(agent_id, session_key, update, tolerate_condition=True)

    # -- reads -------------------------------------------------------------------------------

    def get(self, agent_id: str, session_key: str) -> SessionState | None:
        response = self._call(
            "get_item",
            TableName=self._table,
            Key=_key(agent_id, session_key),
            ConsistentRead=True,
        )
        item = response.get("Item")
        return state_from_item(item) if _live_state(item, self._clock()) else None

    def deleted(self, agent_id: str, session_key: str) -> bool:
        response = self._call(
            "get_item",
            TableName=self._table,
            Key=_key(agent_id, session_key),
            ConsistentRead=True,
            ProjectionExpression=DELETED_AT_ATTRIBUTE,
        )
        return DELETED_AT_ATTRIBUTE in response.get("Item", {})

    def in_project(
        self,
        agent_id: str,
        project_normalized: str,
        limit: int,
        token: str | None = None,
        harness: str | None = None,
    ) -> tuple[list[SessionState], str | None]:
        # One index query (the notes, newest start first), one batch read of their states.
        index_pk = project_notes_pk(agent_id, project_normalized)
        scope = {SESSION_INDEX_PK: index_pk, PK: project_pk(agent_id, project_normalized)}
        request: dict[str, Any] = {
            "TableName": self._table,
            "IndexName": SESSION_INDEX,
            "KeyConditionExpression": f"{SESSION_INDEX_PK} = :pk",
            "ExpressionAttributeValues": {":pk": {"S": index_pk}},
            "ProjectionExpression": "session_key",
            "ScanIndexForward": False,
            "Limit": limit,
        }
        if harness is not None:
            request["FilterExpression"] = "harness = :harness"
            request["ExpressionAttributeValues"][":harness"] = {"S": harness}
        if token:
            request["ExclusiveStartKey"] = decode_page_token(
                token, scope, {SK: PROJECT_SESSION_PREFIX, SESSION_INDEX_SK: ""}
            )
        response = self._call("query", **request)
        keys = [item["session_key"]["S"] for item in response.get("Items", [])]
        states = self.get_many(agent_id, keys) if keys else {}
        last = response.get("LastEvaluatedKey")
        return [states[key] for key in keys if key in states], encode_page_token(
            last, scope
        ) if last else None

    def get_many(self, agent_id: str, session_keys: list[str]) -> dict[str, SessionState]:
        items = batch_get(self._table, [_key(agent_id, key) for key in dict.fromkeys(session_keys)])
        now = self._clock()
        return {
            state.session_key: state
            for state in (state_from_item(item) for item in items if _live_state(item, now))
        }

    # -- helpers -----------------------------------------------------------------------------

    def _activity(self, agent_id: str, identity: SessionIdentity, now: datetime) -> UpdateBuilder:
        """Activity moves the state's expiry (and its expiry bucket) to ``now`` + retention."""
        update = UpdateBuilder()
        for name, value in identity.model_dump().items():  # the session's identity, on first sight
            update.set_if_missing(name, value)
        update.set_if_missing("started_at", timestamp(now))
        update.set("last_activity_at", timestamp(now))
        until = expiry(now, self._ttl)
        update.set(TTL_ATTRIBUTE, until.ttl_epoch)
        update.set(EXPIRY_PK, bucket_key(until))
        update.set_if_missing(
            EXPIRY_SK, expiry_sort_key(session_pk(agent_id, identity.session_key), STATE_SK)
        )
        update.conditions.append(f"attribute_not_exists({update.name(DELETED_AT_ATTRIBUTE)})")
        return update

    @staticmethod
    def _once(
        update: UpdateBuilder, idempotency_key: str | None, body_fingerprint: str | None
    ) -> HookDigests | None:
        """The key's digest must be new (the condition matches whole list elements, so the key has an
        element of its own); its body's digest follows it, for the duplicate path to compare."""
        if not idempotency_key:
            return None
        once = HookDigests(
            hook_key_digest(idempotency_key), hook_body_digest(body_fingerprint) if body_fingerprint else None
        )
        keys, legacy = update.name(HOOK_KEYS), update.value(legacy_hook_key_digest(idempotency_key))
        update.conditions.append(f"NOT contains({keys}, {update.value(once.key)})")
        update.conditions.append(f"NOT contains({keys}, {legacy})")
        update.append(HOOK_KEYS, [once.key] if once.body is None else [once.key, once.body])
        return once

    def _apply(
        self,
        agent_id: str,
        identity: SessionIdentity,
        update: UpdateBuilder,
        now: datetime,
        once: HookDigests | None = None,
    ) -> SessionState:
        state = self._update(agent_id, identity.session_key, update, once=once)
        assert state is not None  # only conditional updates that tolerate failure answer None
        if identity.project_normalized and state.started_at == parse_timestamp(timestamp(now)):
            self._note_in_project(agent_id, identity, now)  # this write created the state
        return state

    def _note_in_project(self, agent_id: str, identity: SessionIdentity, now: datetime) -> None:
        self._call("put_item", TableName=self._table, Item=self._note_item(agent_id, identity, now))
        self._note_project(agent_id, identity, now)

    def _note_project(self, agent_id: str, identity: SessionIdentity, now: datetime) -> None:
        record = self._project_record_update(agent_id, identity, now)
        self._call("update_item", TableName=self._table, **record)

    def _project_record_update(
        self, agent_id: str, identity: SessionIdentity, now: datetime, handoff: Handoff | None = None
    ) -> dict[str, Any]:
        """The project's record (the projects page's row): one more session, its harness and machine,
        newest start; with ``handoff``, the hand-off this start consumes is open no more."""
        assert identity.project_normalized is not None
        update = session_started(identity, now, self._ttl)
        if handoff is not None:
            handoffs_gone(update, [handoff.id])
        return {"Key": project_record_key(agent_id, identity.project_normalized), **update.request()}

    def projects(self, agent_id: str, limit: int) -> list[ProjectRecord]:
        request: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": f"{PK} = :pk",
            "ExpressionAttributeValues": {":pk": {"S": projects_pk(agent_id)}},
            "Limit": limit,
        }
        items = self._call("query", **request).get("Items", [])
        now = self._clock()
        records = (project_record(item, now) for item in items if not item_expired(item, now))
        return [record for record in records if record is not None]

    def _note_item(self, agent_id: str, identity: SessionIdentity, now: datetime) -> dict[str, Any]:
        assert identity.project_normalized is not None
        key = item_key(
            project_pk(agent_id, identity.project_normalized), PROJECT_SESSION_PREFIX + identity.session_key
        )
        values = {
            **identity.model_dump(exclude_none=True),
            "created_at": timestamp(now),
            TTL_ATTRIBUTE: expiry(now, self._ttl).ttl_epoch,
            SESSION_INDEX_PK: project_notes_pk(agent_id, identity.project_normalized),
            SESSION_INDEX_SK: f"{timestamp(now)}#{identity.session_key}",
        }
        return key | to_attributes(values)

    def _update(
        self,
        agent_id: str,
        session_key: str,
        update: UpdateBuilder,
        tolerate_condition: bool = False,
        once: HookDigests | None = None,
    ) -> SessionState | None:
        from botocore.exceptions import ClientError

        try:
            response = self._call(
                "update_item",
                TableName=self._table,
                Key=_key(agent_id, session_key),
                ReturnValues="ALL_NEW",
                **update.request(),
            )
        except ClientError as error:
            if error.response["Error"]["Code"] != "ConditionalCheckFailedException":
                raise
            if tolerate_condition:
                return None
            # Which condition failed: one read, only when one did (a replay is rare).
            held = self._call(
                "get_item",
                TableName=self._table,
                Key=_key(agent_id, session_key),
                ConsistentRead=True,
                ProjectionExpression=f"{DELETED_AT_ATTRIBUTE}, {HOOK_KEYS}",
            ).get("Item", {})
            if DELETED_AT_ATTRIBUTE in held:
                raise SessionDeletedError(session_key) from error
            stored = [element["S"] for element in held.get(HOOK_KEYS, {}).get("L", [])]
            raise DuplicateHookError(session_key, same_body(stored, once)) from error
        state = state_from_item(response["Attributes"])
        if len(response["Attributes"].get(HOOK_KEYS, {}).get("L", [])) > 4 * MAX_HOOK_KEYS:
            self._trim_hook_keys(agent_id, session_key, state.version)
        return state

    def _trim_hook_keys(self, agent_id: str, session_key: str, version: int) -> None:
        """The oldest ``MAX_HOOK_KEYS`` hooks' elements go (a key and its body digest each; a state
        written before body digests holds keys alone, and a cut between a key and its body digest
        leaves a body digest no key refers to, which is never read)."""
        update = UpdateBuilder()
        name = update.name(HOOK_KEYS)
        update.removes.extend(f"{name}[{index}]" for index in range(2 * MAX_HOOK_KEYS))
        update.conditions.append(f"{update.name('version')} = {update.value(version)}")
        self._update(agent_id, session_key, update, tolerate_condition=True)

    def _call(self, operation: str, **kwargs: Any) -> Any:
        return call_dynamodb(operation, **kwargs)


def hook_key_digest(idempotency_key: str) -> str:
    """9 characters (54 bits) stand for a client's key (~60): the state item, which every prompt
    rewrites and pays for by size, stays small (a key and its body digest take 14 bytes, one more
    than the 12-character key digest alone took); a collision among 128 keys is ~5e-13."""
    return legacy_hook_key_digest(idempotency_key)[:KEY_DIGEST_CHARS]


def legacy_hook_key_digest(idempotency_key: str) -> str:
    """The 12 characters a key was stored as before body digests: still refused as a replay, so a
    hook spooled across the deploy is not counted twice (a state stops holding them once 128 newer
    hooks came, or when it expires)."""
    digest = hashlib.blake2b(idempotency_key.encode("utf-8"), digest_size=9).digest()
    return base64.urlsafe_b64encode(digest).decode("ascii")


def hook_body_digest(body_fingerprint: str) -> str:
    """3 characters (18 bits) of the body's fingerprint: 4 bytes more per hook in the state item; a
    different body goes unnoticed (taken for a replay, as before) once in 262,144."""
    digest = hashlib.blake2b(body_fingerprint.encode("utf-8"), digest_size=3).digest()
    return base64.urlsafe_b64encode(digest).decode("ascii")[:BODY_DIGEST_CHARS]


@dataclass(frozen=True)
class HookDigests:
    """What a keyed hook stores in ``hook_keys``: its key's digest and its body's (if it has one)."""

    key: str
    body: str | None


def same_body(stored: list[str], once: HookDigests | None) -> bool | None:
    """Whether the key in ``stored`` came with the same body digest; None when that is not known (no
    key given, the key trimmed meanwhile, or stored before body digests)."""
    if once is None or once.body is None or once.key not in stored:
        return None
    after = len(stored) - stored[::-1].index(once.key)
    held = stored[after] if after < len(stored) else None
    if held is None or len(held) != BODY_DIGEST_CHARS:
        return None
    return held == once.body


def _live_state(item: dict[str, Any] | None, now: datetime) -> bool:
    """A state a read answers: present, not past its TTL, not a deleted session's tombstone."""
    if not item:
        return False
    return not item_expired(item, now) and DELETED_AT_ATTRIBUTE not in item


def idle_shard(agent_id: str, session_key: str) -> str:
    """The idle index partition a session sits in: stable, spread over ``IDLE_SHARDS``."""
    digest = hashlib.sha256(session_pk(agent_id, session_key).encode("utf-8")).digest()
    return f"{IDLE_SHARD_PREFIX}{digest[0] % IDLE_SHARDS}"


def idle_sort_key(moment: datetime) -> str:
    """A place in the idle index: epoch seconds, 10 digits (sorts as time; 22 bytes fewer than an
    ISO time on every state item that carries it, which is what a prompt's write is billed by)."""
    return f"{int(moment.timestamp()):010d}"


def parse_idle_sort_key(text: str) -> datetime:
    return datetime.fromtimestamp(int(text), UTC)


def _enter_idle_index(update: UpdateBuilder, agent_id: str, session_key: str, now: datetime) -> None:
    """Something is pending: the idle sweep looks at the session ``idleCloseMinutes`` after this
    first pending write. ``if_not_exists``: a later prompt changes nothing in the index (no GSI
    write per prompt); the sweep moves the key on for a session that is still active."""
    update.set_if_missing(IDLE_PK, idle_shard(agent_id, session_key))
    update.set_if_missing(IDLE_SK, idle_sort_key(now))


def _key(agent_id: str, session_key: str) -> dict[str, Any]:
    return {PK: {"S": session_pk(agent_id, session_key)}, SK: {"S": STATE_SK}}


def _failed_last(response: dict[str, Any]) -> bool:
    """The cancelled transaction's last part (the hand-off's consumption) failed its condition."""
    reasons = response.get("CancellationReasons") or []
    return bool(reasons) and reasons[-1].get("Code") == "ConditionalCheckFailed"
