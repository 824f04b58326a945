"""The core's stores in memory: session state, checkpoints, the ledger, the flush queue and tokens.

They share one ``Memory``, as the adapters share one table: a checkpoint commit resets the state it
consumed, a project snapshot carries the ledger's newest decisions. Each follows its DynamoDB
adapter, and ``tests/contract`` runs the same checks against both, so the fakes cannot drift.
Reads leave out what is past its TTL, as the adapters' do.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from continuity_core.checkpoints.dynamo_ledger import HEAD_DECISIONS
from continuity_core.checkpoints.ports import IdleCandidate, ProjectSnapshot, StateChangedError
from continuity_core.hooks.dynamo_state import MAX_HOOK_KEYS, hook_key_digest
from continuity_core.hooks.ports import (
    DuplicateHookError,
    HandoffTakenError,
    PromptRecord,
    SessionLinks,
    StartExpectation,
    StartWrite,
)
from continuity_core.kernel.clock import Clock
from continuity_core.kernel.dynamo_items import checkpoint_sk, ledger_entry_sk
from continuity_core.kernel.dynamo_pages import decode_page_token, encode_page_token
from continuity_core.kernel.errors import InvalidPageTokenError, SessionDeletedError
from continuity_core.kernel.expiry import expiry, is_expired
from continuity_core.kernel.names import LEDGER_ENTRY_PREFIX
from continuity_core.models.checkpoint import Checkpoint
from continuity_core.models.digest import LedgerEntry, LedgerPage
from continuity_core.models.handoff import MAX_OPEN_HANDOFFS, Handoff
from continuity_core.models.injections import InjectionRecord
from continuity_core.models.projects import ProjectRecord
from continuity_core.models.state import SessionIdentity, SessionState, Tally
from continuity_core.models.tokens import TokenRecord
from continuity_core.recovery.dynamo_injections import injection_sk
from continuity_core.sessions.dynamo_projects import machine_label

RETENTION = timedelta(days=7)
TOMBSTONE = "deleted_at"  # a deleted session's state holds it (names.DELETED_AT_ATTRIBUTE)
Key = tuple[str, str]  # (agent, session or project)


def system_clock() -> datetime:
    return datetime.now(UTC)


@dataclass
class _Stored:
    values: dict[str, Any]  # the item's attributes, by SessionState's field names
    ttl_epoch: int | None = None
    hook_keys: dict[str, str | None] = field(default_factory=dict)  # key digest -> body fingerprint
    idle_at: datetime | None = None  # its place in the idle index (names.IDLE_SK), if any


@dataclass
class Memory:
    """What the table holds, for every store built on it."""

    states: dict[Key, _Stored] = field(default_factory=dict)
    checkpoints: dict[Key, dict[str, Checkpoint]] = field(default_factory=dict)  # by sort key
    ledger: dict[Key, dict[str, LedgerEntry]] = field(default_factory=dict)  # by sort key
    ledger_heads: dict[Key, list[LedgerEntry]] = field(default_factory=dict)  # oldest first
    tokens: dict[str, TokenRecord] = field(default_factory=dict)  # by hash
    tenants: set[str] = field(default_factory=set)  # agent ids
    # (agent, project) -> {session: TTL epoch}: the notes written when a session's state is created
    project_sessions: dict[Key, dict[str, int]] = field(default_factory=dict)
    injections: dict[Key, dict[str, tuple[InjectionRecord, int]]] = field(default_factory=dict)  # by sk
    # (agent, project) -> {sort key: hand-off}; ``open_handoffs`` holds the sort keys still open
    handoffs: dict[Key, dict[str, Handoff]] = field(default_factory=dict)
    open_handoffs: set[tuple[str, str, str]] = field(default_factory=set)  # (agent, project, sort key)
    # (agent, project) -> (its record, TTL epoch): the projects page's rows
    projects: dict[Key, tuple[ProjectRecord, int]] = field(default_factory=dict)
    # (agent, project) -> {hand-off id: its TTL epoch}: the open hand-offs its record counts
    project_handoffs: dict[Key, dict[str, int]] = field(default_factory=dict)


class InMemoryStateStore:
    def __init__(self, memory: Memory, ttl: timedelta = RETENTION, clock: Clock = system_clock) -> None:
        self._memory = memory
        self._ttl = ttl
        self._clock = clock
        self.writes = 0  # requests that change the state, as DynamoDB would bill them

    # -- writes ----------------------------------------------------------------------------------

    def touch(
        self,
        agent_id: str,
        identity: SessionIdentity,
        now: datetime,
        links: SessionLinks | None = None,
        tally: Tally | None = None,
    ) -> SessionState:
        def change(values: dict[str, Any]) -> None:
            values.update(links.values() if links else {})
            if tally is not None:
                _add(values, tally.value, 1)

        return self._apply(agent_id, identity, now, change)

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
        stored = self._memory.states.get((agent_id, identity.session_key))
        if stored is not None and TOMBSTONE in stored.values:
            raise SessionDeletedError(identity.session_key)
        exists = stored is not None and "started_at" in stored.values
        claim = (agent_id, handoff.project_normalized, _handoff_sort_key(handoff)) if handoff else None
        if expect is StartExpectation.NEW and claim is not None and claim not in self._memory.open_handoffs:
            raise HandoffTakenError(handoff.id if handoff else "")  # the transaction is cancelled whole
        if expect is StartExpectation.NEW and exists:
            return None
        if expect is StartExpectation.NEW and handoff is not None and claim is not None:
            self._memory.open_handoffs.discard(claim)
            on_record = self._memory.project_handoffs.get((agent_id, handoff.project_normalized), {})
            on_record.pop(handoff.id, None)
            kept = self._memory.handoffs[(agent_id, handoff.project_normalized)]
            kept[claim[2]] = kept[claim[2]].model_copy(
                update={"consumed_by": identity.session_key, "consumed_at": now}
            )
        counted = stored is not None and stored.values.get("checkpoints_written", 0)
        if expect is StartExpectation.NO_CHECKPOINTS and counted:
            return None
        self.touch(agent_id, identity, now, links)
        if injection is not None:  # the adapter's item, with the state's retention
            InMemoryInjectionLog(self._memory, self._ttl, self._clock).record(agent_id, injection)
        return StartWrite(created=not exists, injection_stored=injection is not None)

    def record_prompt(
        self, agent_id: str, identity: SessionIdentity, prompt: PromptRecord, now: datetime
    ) -> SessionState:
        def change(values: dict[str, Any]) -> None:
            _add(values, "prompts_since_checkpoint", 1)
            _add(values, "total_prompts", 1)
            _add(values, "version", 1)
            if prompt.compacted:
                _add(values, Tally.COMPACTIONS.value, 1)
            self._enter_idle_index(agent_id, identity.session_key, now)
            if prompt.snippet:
                values["pending_snippets"] = [*values.get("pending_snippets", []), prompt.snippet]
            if prompt.transcript_chars is not None:
                values["transcript_chars"] = prompt.transcript_chars
            if prompt.context_tokens is not None:
                values["context_tokens"] = prompt.context_tokens
            if prompt.flush_token is not None:
                values.setdefault("flush_token", prompt.flush_token)
            if prompt.transcript_end is not None:
                values["transcript_prev_end"] = values.get("transcript_end", -1)
                values["transcript_end"] = prompt.transcript_end

        return self._apply(agent_id, identity, now, change, prompt.idempotency_key, prompt.body_fingerprint)

    def record_remember(
        self,
        agent_id: str,
        identity: SessionIdentity,
        content: str,
        now: datetime,
        idempotency_key: str | None = None,
        body_fingerprint: str | None = None,
    ) -> SessionState:
        def change(values: dict[str, Any]) -> None:
            values["pending_remembers"] = [*values.get("pending_remembers", []), content]
            values["pending_remember_at"] = [*values.get("pending_remember_at", []), now]
            _add(values, "version", 1)
            self._enter_idle_index(agent_id, identity.session_key, now)

        return self._apply(agent_id, identity, now, change, idempotency_key, body_fingerprint)

    def record_digest(self, agent_id: str, identity: SessionIdentity, now: datetime) -> SessionState:
        def change(values: dict[str, Any]) -> None:
            _add(values, "checkpoints_written", 1)
            values["last_digest_at"] = now

        return self._apply(agent_id, identity, now, change)

    def end_session(self, agent_id: str, session_key: str, now: datetime) -> None:
        stored = self._memory.states.get((agent_id, session_key))
        if stored is None or "started_at" not in stored.values:  # none, or a tombstone
            return
        self.writes += 1
        values = stored.values
        values.update(
            prompts_since_checkpoint=0,
            pending_queries=[],
            pending_snippets=[],
            pending_remembers=[],
            pending_remember_at=[],
        )
        values["ended_at"] = now
        values.pop("flush_token", None)
        values.pop("flush_requested_at", None)
        stored.idle_at = None
        _add(values, "version", 1)

    def set_nudged(self, agent_id: str, session_key: str, nudged: bool, now: datetime) -> bool:
        stored = self._memory.states.get((agent_id, session_key))
        if stored is None or bool(stored.values.get("nudged")) == nudged:
            return False
        self.writes += 1
        stored.values["nudged"] = nudged
        if not nudged:
            stored.values["nudge_armed_at"] = now
        return True

    def claim_flush(
        self, agent_id: str, session_key: str, token: str, now: datetime, stale_before: datetime
    ) -> bool:
        stored = self._memory.states.get((agent_id, session_key))
        if stored is None:
            return False
        values = stored.values
        if "flush_requested_at" in values and values["flush_requested_at"] >= stale_before:
            return False
        self.writes += 1
        values["flush_token"], values["flush_requested_at"] = token, now
        return True

    def release_flush(self, agent_id: str, session_key: str, token: str) -> None:
        stored = self._memory.states.get((agent_id, session_key))
        if stored is not None and stored.values.get("flush_token") == token:
            self.writes += 1
            stored.values.pop("flush_token")
            stored.values.pop("flush_requested_at", None)

    def set_transcript_hint(
        self, agent_id: str, session_key: str, end: int, head_written_at: datetime | None
    ) -> None:
        stored = self._memory.states.get((agent_id, session_key))
        if stored is None:
            return  # never creates a state
        self.writes += 1
        stored.values["transcript_end"] = stored.values["transcript_prev_end"] = end
        if head_written_at is not None:
            stored.values["transcript_head_at"] = head_written_at

    # -- reads -----------------------------------------------------------------------------------

    def get(self, agent_id: str, session_key: str) -> SessionState | None:
        stored = self._memory.states.get((agent_id, session_key))
        if stored is None or is_expired(stored.ttl_epoch, self._clock()) or TOMBSTONE in stored.values:
            return None
        return SessionState.model_validate(stored.values)

    def deleted(self, agent_id: str, session_key: str) -> bool:
        stored = self._memory.states.get((agent_id, session_key))
        return stored is not None and TOMBSTONE in stored.values

    def get_many(self, agent_id: str, session_keys: list[str]) -> dict[str, SessionState]:
        found = {key: self.get(agent_id, key) for key in dict.fromkeys(session_keys)}
        return {key: state for key, state in found.items() if state is not None}

    def in_project(
        self,
        agent_id: str,
        project_normalized: str,
        limit: int,
        token: str | None = None,
        harness: str | None = None,
    ) -> tuple[list[SessionState], str | None]:
        noted = self._memory.project_sessions.get((agent_id, project_normalized), {})
        # The index's order: the note's sort key (when the state was created, then the key); a
        # page looks at ``limit`` notes and keeps those of ``harness`` (a filter, as on DynamoDB).
        placed = []
        for key in noted:
            stored = self._memory.states.get((agent_id, key))
            if stored is not None and "started_at" in stored.values:
                placed.append((f"{stored.values['started_at'].isoformat()}#{key}", key, stored.values))
        placed.sort(key=lambda entry: entry[0], reverse=True)
        if token is not None:
            if not token.startswith(f"{agent_id}|{project_normalized}|"):
                raise InvalidPageTokenError("next_token is not one this API handed out for this list")
            after = token.split("|", 2)[2]
            placed = [entry for entry in placed if entry[0] < after]
        page, more = placed[:limit], len(placed) > limit
        next_token = f"{agent_id}|{project_normalized}|{page[-1][0]}" if more else None
        page = [entry for entry in page if harness is None or entry[2].get("harness") == harness]
        states = self.get_many(agent_id, [key for _, key, _ in page])
        return [states[key] for _, key, _ in page if key in states], next_token

    # -- helpers ---------------------------------------------------------------------------------

    def _enter_idle_index(self, agent_id: str, session_key: str, now: datetime) -> None:
        stored = self._memory.states[(agent_id, session_key)]
        if stored.idle_at is None:  # if_not_exists: a later prompt leaves it where it is
            stored.idle_at = now

    def _apply(
        self,
        agent_id: str,
        identity: SessionIdentity,
        now: datetime,
        change: Callable[[dict[str, Any]], None] | None = None,
        idempotency_key: str | None = None,
        body_fingerprint: str | None = None,
    ) -> SessionState:
        """One atomic update, as the adapter's UpdateItem: activity, then the change; a replayed
        idempotency key changes nothing and raises DuplicateHookError (saying whether its body is the
        one the key was first stored with)."""
        digest = hook_key_digest(idempotency_key) if idempotency_key else None
        created = (agent_id, identity.session_key) not in self._memory.states
        stored = self._memory.states.setdefault((agent_id, identity.session_key), _Stored({}))
        if TOMBSTONE in stored.values:
            raise SessionDeletedError(identity.session_key)  # the update's other condition
        if digest is not None and digest in stored.hook_keys:  # the update's condition: nothing changes
            first = stored.hook_keys[digest]
            same = None if first is None or body_fingerprint is None else first == body_fingerprint
            raise DuplicateHookError(identity.session_key, same)
        self.writes += 1
        values = stored.values
        for name, value in identity.model_dump().items():
            if value is not None:
                values.setdefault(name, value)
        values.setdefault("started_at", now)
        values["last_activity_at"] = now
        stored.ttl_epoch = expiry(now, self._ttl).ttl_epoch
        if change is not None:
            change(values)
        if digest is not None:
            stored.hook_keys[digest] = body_fingerprint
            if len(stored.hook_keys) > 2 * MAX_HOOK_KEYS:  # the oldest go (dicts keep their order)
                for oldest in list(stored.hook_keys)[:MAX_HOOK_KEYS]:
                    del stored.hook_keys[oldest]
        if created and identity.project_normalized:
            noted = self._memory.project_sessions.setdefault((agent_id, identity.project_normalized), {})
            noted[identity.session_key] = stored.ttl_epoch
            self._note_project(agent_id, identity, now, stored.ttl_epoch)
        return SessionState.model_validate(values)

    def _note_project(self, agent_id: str, identity: SessionIdentity, now: datetime, ttl_epoch: int) -> None:
        assert identity.project_normalized is not None
        key = (agent_id, identity.project_normalized)
        before = self._memory.projects.get(key, (None, 0))[0]
        harnesses = set(before.harnesses if before else []) | (
            {identity.harness} if identity.harness else set()
        )
        machine = machine_label(identity)
        machines = set(before.machines if before else []) | ({machine} if machine else set())
        record = ProjectRecord(
            project=identity.project or (before.project if before else None),
            project_normalized=identity.project_normalized,
            sessions=(before.sessions if before else 0) + 1,
            harnesses=sorted(harnesses),
            machines=sorted(machines),
            first_seen=before.first_seen if before else now,
            last_session_at=now,
            last_session_key=identity.session_key,
        )
        self._memory.projects[key] = (record, ttl_epoch)

    def projects(self, agent_id: str, limit: int) -> list[ProjectRecord]:
        now = self._clock()
        found = [
            record.model_copy(
                update={
                    "open_handoffs": sum(
                        1
                        for ttl in self._memory.project_handoffs.get((agent, project), {}).values()
                        if not is_expired(ttl, now)
                    )
                }
            )
            for (agent, project), (record, ttl_epoch) in self._memory.projects.items()
            if agent == agent_id and not is_expired(ttl_epoch, now)
        ]
        return found[:limit]


class InMemoryCheckpointStore:
    def __init__(self, memory: Memory, retention: timedelta = RETENTION, clock: Clock = system_clock) -> None:
        self._memory = memory
        self._retention = retention
        self._clock = clock

    def commit(
        self,
        agent_id: str,
        checkpoint: Checkpoint,
        consumed: SessionState,
        now: datetime,
        evict: list[Checkpoint] | None = None,
        replaces: list[Checkpoint] | None = None,
    ) -> None:
        # As DynamoDB does it: the checkpoint's put and what it replaces, then the reset on the
        # version read (a reset that loses the race withdraws the checkpoint; one that already landed
        # is done), then the evictions over the cap.
        stored = self._memory.states.get((agent_id, checkpoint.session_key))
        version = stored.values.get("version", 0) if stored is not None else 0
        tombstone = stored is not None and TOMBSTONE in stored.values
        self._put(agent_id, checkpoint, replaces)
        landed = stored is not None and stored.values.get("last_checkpoint_at") == now
        if landed and not tombstone and version == consumed.version + 1:
            self._put(agent_id, checkpoint, evict)
            return
        if tombstone or version != consumed.version:
            self._session(agent_id, checkpoint.session_key).pop(_sort_key(checkpoint), None)
            raise StateChangedError(checkpoint.session_key)
        self._put(agent_id, checkpoint, evict)
        if stored is None:
            return
        values = stored.values
        values.update(
            prompts_since_checkpoint=0,
            pending_queries=[],
            pending_snippets=[],
            pending_remembers=[],
            pending_remember_at=[],
        )
        values["last_checkpoint_at"] = now
        values["last_checkpoint_trigger"] = checkpoint.trigger.value
        values.pop("flush_token", None)
        values.pop("flush_requested_at", None)
        _add(values, "version", 1)
        _add(values, "checkpoints_written", 1)

    def put(self, agent_id: str, checkpoint: Checkpoint, now: datetime, evict: list[Checkpoint]) -> None:
        self._put(agent_id, checkpoint, evict)

    def _put(self, agent_id: str, checkpoint: Checkpoint, evict: list[Checkpoint] | None) -> None:
        session = self._session(agent_id, checkpoint.session_key)
        for old in evict or []:
            self._session(agent_id, old.session_key).pop(_sort_key(old), None)
        session[_sort_key(checkpoint)] = checkpoint

    def _session(self, agent_id: str, session_key: str) -> dict[str, Checkpoint]:
        return self._memory.checkpoints.setdefault((agent_id, session_key), {})

    def _live(self, checkpoints: list[Checkpoint]) -> list[Checkpoint]:
        now = self._clock()  # TTL at the prunable instant: DynamoDB's TTL deletes checkpoints
        return [
            c
            for c in checkpoints
            if not is_expired(expiry(c.created_at, self._retention).prunable_epoch, now)
        ]

    def _of_session(self, agent_id: str, session_key: str) -> list[Checkpoint]:
        """Oldest first."""
        session = self._memory.checkpoints.get((agent_id, session_key), {})
        return [session[key] for key in sorted(session)]

    def _of_project(self, agent_id: str, project_normalized: str) -> list[Checkpoint]:
        """Newest first."""
        found = [
            (key, c)
            for (agent, _), session in self._memory.checkpoints.items()
            if agent == agent_id
            for key, c in session.items()
            if c.project_normalized == project_normalized
        ]
        return [c for _, c in sorted(found, key=lambda pair: pair[0], reverse=True)]

    def latest_for_session(self, agent_id: str, session_key: str) -> Checkpoint | None:
        found = self.recent_for_session(agent_id, session_key, 1)
        return found[0] if found else None

    def recent_for_session(self, agent_id: str, session_key: str, limit: int) -> list[Checkpoint]:
        return self._live(list(reversed(self._of_session(agent_id, session_key))))[:limit]

    def list_for_session(self, agent_id: str, session_key: str, limit: int) -> list[Checkpoint]:
        return self._live(self._of_session(agent_id, session_key))[:limit]

    def project_snapshot(
        self, agent_id: str, project_normalized: str, since: datetime, limit: int
    ) -> ProjectSnapshot:
        # As one Query of the project index, newest first, Limit + 1: the ledger's head sorts after
        # every checkpoint, so it comes first; expired checkpoints still take their place in the page.
        # The open hand-offs sort before the head (newest first), and take their place in the page too.
        head = self._memory.ledger_heads.get((agent_id, project_normalized))
        handoffs = InMemoryHandoffStore(self._memory, self._retention, self._clock).open_for_project(
            agent_id, project_normalized, limit + 1 + MAX_OPEN_HANDOFFS, live_only=False
        )
        recent = [c for c in self._of_project(agent_id, project_normalized) if c.created_at >= since]
        page = recent[: limit + 1 + MAX_OPEN_HANDOFFS - len(handoffs) - (1 if head is not None else 0)]
        decisions = list(reversed(head)) if head is not None else []
        now = self._clock()
        live = [h for h in handoffs if not is_expired(expiry(h.created_at, self._retention).ttl_epoch, now)]
        return ProjectSnapshot(self._live(page)[:limit], decisions, live)

    def list_for_project(self, agent_id: str, project_normalized: str, limit: int) -> list[Checkpoint]:
        return self._live(self._of_project(agent_id, project_normalized))[:limit]


class InMemoryHandoffStore:
    def __init__(self, memory: Memory, retention: timedelta = RETENTION, clock: Clock = system_clock) -> None:
        self._memory = memory
        self._retention = retention
        self._clock = clock

    def put(self, agent_id: str, handoff: Handoff, close: list[Handoff]) -> None:
        project = handoff.project_normalized
        for old in close:
            self._memory.open_handoffs.discard((agent_id, project, _handoff_sort_key(old)))
        key = _handoff_sort_key(handoff)
        self._memory.handoffs.setdefault((agent_id, project), {})[key] = handoff
        if handoff.open:
            self._memory.open_handoffs.add((agent_id, project, key))
        # The project's record, in the same transaction: made again from the hand-off when gone.
        until = expiry(handoff.created_at, self._retention).ttl_epoch
        counted = self._memory.project_handoffs.setdefault((agent_id, project), {})
        for old in close:
            counted.pop(old.id, None)
        counted[handoff.id] = until
        record = self._memory.projects.get((agent_id, project), (None, 0))[0] or ProjectRecord(
            project=handoff.project,
            project_normalized=project,
            first_seen=handoff.created_at,
            last_session_at=handoff.created_at,
            last_session_key=handoff.session_key,
        )
        self._memory.projects[(agent_id, project)] = (record, until)

    def open_for_project(
        self, agent_id: str, project_normalized: str, limit: int, live_only: bool = True
    ) -> list[Handoff]:
        kept = self._memory.handoffs.get((agent_id, project_normalized), {})
        keys = sorted(
            (k for k in kept if (agent_id, project_normalized, k) in self._memory.open_handoffs), reverse=True
        )[:limit]
        found = [kept[k] for k in keys]
        if not live_only:
            return found
        now = self._clock()
        return [h for h in found if not is_expired(expiry(h.created_at, self._retention).ttl_epoch, now)]


class InMemoryLedgerStore:
    def __init__(self, memory: Memory) -> None:
        self._memory = memory

    def append(self, agent_id: str, entries: list[LedgerEntry]) -> None:
        for entry in entries:
            ledger = self._memory.ledger.setdefault((agent_id, entry.project_normalized), {})
            ledger[ledger_entry_sk(entry.created_at, entry.id)] = entry
        for project in dict.fromkeys(entry.project_normalized for entry in entries):
            head = self._memory.ledger_heads.setdefault((agent_id, project), [])
            head += [e for e in entries if e.project_normalized == project]
            if len(head) > 2 * HEAD_DECISIONS:
                del head[: len(head) - HEAD_DECISIONS]

    def page(
        self, agent_id: str, project_normalized: str, limit: int, token: str | None = None
    ) -> LedgerPage:
        ledger = self._memory.ledger.get((agent_id, project_normalized), {})
        keys = sorted(ledger, reverse=True)
        scope = {"ledger": f"{agent_id}\n{project_normalized}"}  # the adapter's codec, this fake's scope
        if token:
            after = decode_page_token(token, scope, {"sk": LEDGER_ENTRY_PREFIX})["sk"]["S"]
            keys = [key for key in keys if key < after]
        page = keys[:limit]
        more = len(keys) > limit
        next_token = encode_page_token({"sk": {"S": page[-1]}}, scope) if more else None
        return LedgerPage(entries=[ledger[key] for key in page], next_token=next_token)


@dataclass(frozen=True)
class FlushRequest:
    agent_id: str
    session_key: str
    token: str
    delay_seconds: int


class InMemoryFlushQueue:
    """The debounce's queue: requests recorded, delivered by the test (``take``)."""

    def __init__(self) -> None:
        self.requests: list[FlushRequest] = []
        self.fail_next = False

    def request_flush(self, agent_id: str, session_key: str, token: str, delay_seconds: int) -> None:
        if self.fail_next:
            self.fail_next = False
            raise RuntimeError("the queue is unavailable")
        self.requests.append(FlushRequest(agent_id, session_key, token, delay_seconds))

    def take(self) -> list[FlushRequest]:
        taken, self.requests = self.requests, []
        return taken


class InMemoryTokenStore:
    def __init__(self, memory: Memory) -> None:
        self._memory = memory

    def put(self, record: TokenRecord) -> None:
        if record.token_sha256 in self._memory.tokens or any(
            r.token_id == record.token_id and r.agent_id == record.agent_id
            for r in self._memory.tokens.values()
        ):
            raise ValueError("a token with this hash or id exists")
        self._memory.tokens[record.token_sha256] = record

    def by_hash(self, token_sha256: str) -> TokenRecord | None:
        return self._memory.tokens.get(token_sha256)

    def for_agent(self, agent_id: str) -> list[TokenRecord]:
        # As DynamoDB's query: by token id.
        return sorted(
            (r for r in self._memory.tokens.values() if r.agent_id == agent_id), key=lambda r: r.token_id
        )

    def revoke(self, agent_id: str, token_id: str, now: datetime) -> TokenRecord | None:
        record = next((r for r in self.for_agent(agent_id) if r.token_id == token_id), None)
        if record is None or record.revoked_at is not None:
            return record
        revoked = record.model_copy(update={"revoked_at": now})
        self._memory.tokens[record.token_sha256] = revoked
        return revoked

    def add_tenant(self, record: TokenRecord) -> bool:
        if record.agent_id in self._memory.tenants:
            return False
        self.put(record)
        self._memory.tenants.add(record.agent_id)
        return True

    def tenants(self) -> list[str]:
        return sorted(self._memory.tenants)


class InMemoryIdleIndex:
    """The idle index: the states with a place in it (``_Stored.idle_at``), oldest first."""

    def __init__(self, memory: Memory) -> None:
        self._memory = memory

    def due(self, before: datetime, limit: int) -> list[IdleCandidate]:
        found = [
            IdleCandidate(agent_id, session_key, stored.idle_at)
            for (agent_id, session_key), stored in self._memory.states.items()
            if stored.idle_at is not None and stored.idle_at <= before
        ]
        return sorted(found, key=lambda c: c.active_at)[:limit]

    def recheck(self, candidate: IdleCandidate, active_at: datetime) -> bool:
        stored = self._placed(candidate)
        if stored is None:
            return False
        stored.idle_at = active_at
        return True

    def settle(self, candidate: IdleCandidate, version: int | None) -> bool:
        stored = self._placed(candidate)
        if stored is None or (version is not None and stored.values.get("version", 0) != version):
            return False
        stored.idle_at = None
        return True

    def _placed(self, candidate: IdleCandidate) -> _Stored | None:
        stored = self._memory.states.get((candidate.agent_id, candidate.session_key))
        return stored if stored is not None and stored.idle_at == candidate.active_at else None


class InMemoryInjectionLog:
    """The adapter's: one entry per injection under its session, by sort key, with the retention's TTL."""

    def __init__(self, memory: Memory, retention: timedelta, clock: Clock) -> None:
        self._memory = memory
        self._retention = retention
        self._clock = clock

    def record(self, agent_id: str, record: InjectionRecord) -> None:
        ttl = expiry(record.at, self._retention).prunable_epoch  # TTL deletes it at its instant
        self._memory.injections.setdefault((agent_id, record.session_key), {})[injection_sk(record)] = (
            record,
            ttl,
        )

    def for_session(self, agent_id: str, session_key: str, limit: int) -> list[InjectionRecord]:
        stored = self._memory.injections.get((agent_id, session_key), {})
        now = self._clock()
        newest = [stored[key] for key in sorted(stored, reverse=True)][:limit]
        return [record for record, ttl in newest if not is_expired(ttl, now)]


@dataclass
class Stores:
    """Every in-memory store on one ``Memory``, for building a service in a unit test."""

    memory: Memory
    states: InMemoryStateStore
    checkpoints: InMemoryCheckpointStore
    ledger: InMemoryLedgerStore
    flushes: InMemoryFlushQueue
    tokens: InMemoryTokenStore
    idle: InMemoryIdleIndex

    injections: InMemoryInjectionLog
    handoffs: InMemoryHandoffStore


def in_memory_stores(clock: Clock = system_clock, retention: timedelta = RETENTION) -> Stores:
    memory = Memory()
    return Stores(
        memory=memory,
        states=InMemoryStateStore(memory, retention, clock),
        checkpoints=InMemoryCheckpointStore(memory, retention, clock),
        ledger=InMemoryLedgerStore(memory),
        flushes=InMemoryFlushQueue(),
        tokens=InMemoryTokenStore(memory),
        idle=InMemoryIdleIndex(memory),
        injections=InMemoryInjectionLog(memory, retention, clock),
        handoffs=InMemoryHandoffStore(memory, retention, clock),
    )


def _add(values: dict[str, Any], name: str, amount: int) -> None:
    values[name] = values.get(name, 0) + amount


def _handoff_sort_key(handoff: Handoff) -> str:
    return checkpoint_sk(handoff.created_at, handoff.id)


def _sort_key(checkpoint: Checkpoint) -> str:
    """The adapter's sort key: time order, then id."""
    return checkpoint_sk(checkpoint.created_at, checkpoint.id)
