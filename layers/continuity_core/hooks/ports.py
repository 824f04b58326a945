"""What the hooks store: the session state (``dynamo_state.py``) and the flush queue
(``sqs_flush_queue.py``) a due checkpoint is sent to."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # annotations only: a function loads the models it uses, not every one
    from continuity_core.models.handoff import Handoff
    from continuity_core.models.injections import InjectionRecord
    from continuity_core.models.projects import ProjectRecord
    from continuity_core.models.state import SessionIdentity, SessionState, Tally


@dataclass(frozen=True)
class SessionLinks:
    """What a session start found: the session it continued and the parent it inherited from, each
    with how (the state keeps them, so a project's sessions show their lineage with their rows)."""

    continued_from: str | None = None
    continued_found_by: str | None = None
    parent_session_key: str | None = None
    parent_found_by: str | None = None

    def values(self) -> dict[str, str]:
        return {name: value for name, value in vars(self).items() if value is not None}


class StartExpectation(StrEnum):
    """What a session start assumed of its session's state when it chose what to inject without
    reading it; ``StateStore.start_session`` writes only if it holds."""

    ANY = "any"  # nothing assumed (the session's own checkpoints were read)
    NO_CHECKPOINTS = "no_checkpoints"  # the session has no checkpoint (none counted on its state)
    NEW = "new"  # the session has no state yet (so no checkpoint either)


@dataclass(frozen=True)
class StartWrite:
    """What ``StateStore.start_session`` did."""

    created: bool  # the write created the state (and noted the session under its project)
    injection_stored: bool  # the injection record is stored (its failure costs only the inspector)


class HandoffTakenError(Exception):
    """The hand-off a session start meant to consume is no longer open (another session took it)."""


class DuplicateHookError(Exception):
    """A hook with this idempotency key was already applied. ``same_body``: whether it came with the
    body fingerprint this one has (False: the key is reused for another request; None: unknown, the
    key was stored without one)."""

    def __init__(self, session_key: str, same_body: bool | None = None) -> None:
        super().__init__(session_key)
        self.same_body = same_body


@dataclass(frozen=True)
class PromptRecord:
    snippet: str | None  # the prompt, cut; its key terms are derived from it when a checkpoint is due
    idempotency_key: str | None = None
    body_fingerprint: str | None = None  # what "the same request" means (hooks/idempotency.py)
    transcript_chars: int | None = None
    transcript_end: int | None = None  # where the transcript delta this hook carries ends
    context_tokens: int | None = None  # the context size the harness recorded, when the client sent it
    compacted: bool = False  # the harness compacted since the last prompt: counted (Tally.COMPACTIONS)
    # The token of the session's next flush, set only if none is (checkpoints/checkpoints.py: the
    # prompt that makes the count due sends that flush without a claim of its own).
    flush_token: str | None = None


class StateStore(Protocol):
    def touch(
        self,
        agent_id: str,
        identity: SessionIdentity,
        now: datetime,
        links: SessionLinks | None = None,
        tally: Tally | None = None,
    ) -> SessionState:
        """Create the session's state if missing and mark activity (and add one to ``tally``, in the
        same write); returns the state after.

        Every write that marks activity (this, ``record_prompt``, ``record_remember``,
        ``record_digest``) raises SessionDeletedError for a deleted session and writes nothing. The
        write that creates a state also notes the session under its project (``ErasureStore.
        project_sessions`` finds it before it has a checkpoint or a transcript)."""
        ...

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
        """A session start's writes, in as few requests as the store can: ``touch`` (with the links it
        followed; the project note when it creates the state) and the injection record (the
        ``InjectionLog``'s item, with the state's retention). None, writing nothing, when ``expect``
        does not hold; SessionDeletedError for a deleted session. With ``handoff`` (only with
        ``NEW``): that open hand-off is consumed by this session in the same write, all or nothing;
        HandoffTakenError, writing nothing, when another session consumed it first."""
        ...

    def record_prompt(
        self, agent_id: str, identity: SessionIdentity, prompt: PromptRecord, now: datetime
    ) -> SessionState:
        """Atomically count one prompt and append its terms and snippet. A key already held changes
        nothing and raises DuplicateHookError, saying whether it came with the same fingerprint."""
        ...

    def record_remember(
        self,
        agent_id: str,
        identity: SessionIdentity,
        content: str,
        now: datetime,
        idempotency_key: str | None = None,
        body_fingerprint: str | None = None,
    ) -> SessionState: ...

    def claim_flush(
        self, agent_id: str, session_key: str, token: str, now: datetime, stale_before: datetime
    ) -> bool:
        """Mark one flush pending unless another (newer than ``stale_before``) already is."""
        ...

    def release_flush(self, agent_id: str, session_key: str, token: str) -> None: ...

    def get(self, agent_id: str, session_key: str) -> SessionState | None:
        """The live state; None when there is none, it is past its TTL, or the session was deleted."""
        ...

    def deleted(self, agent_id: str, session_key: str) -> bool:
        """Whether the session was deleted (its tombstone is there): one small read."""
        ...

    def get_many(self, agent_id: str, session_keys: list[str]) -> dict[str, SessionState]:
        """The live states of these sessions, keyed by session (eventually consistent)."""
        ...

    def projects(self, agent_id: str, limit: int) -> list[ProjectRecord]:
        """The agent's projects (at most ``limit``, in no order): each noted as its sessions'
        states were created, with how many started, their harnesses and the newest."""
        ...

    def in_project(
        self,
        agent_id: str,
        project_normalized: str,
        limit: int,
        token: str | None = None,
        harness: str | None = None,
    ) -> tuple[list[SessionState], str | None]:
        """A page of the project's sessions (noted when their state was created; a transcript or
        not), newest start first, as their live states, and the token of the next page. A page looks
        at ``limit`` sessions (of ``harness``, given one): one whose state is gone is left out, so a
        page may hold fewer. InvalidPageTokenError for a token of another listing."""
        ...

    def set_transcript_hint(
        self, agent_id: str, session_key: str, end: int, head_written_at: datetime | None
    ) -> None:
        """Say the transcript ends at ``end`` (and its head was written at ``head_written_at``, when
        given), if the session has a state: never creates one."""
        ...

    def record_digest(self, agent_id: str, identity: SessionIdentity, now: datetime) -> SessionState:
        """Count one more checkpoint (an agent digest) and note when; creates the state if unseen."""
        ...

    def end_session(self, agent_id: str, session_key: str, now: datetime) -> None:
        """Drop what is pending (a session-end checkpoint already took what it keeps)."""
        ...

    def set_nudged(self, agent_id: str, session_key: str, nudged: bool, now: datetime) -> bool:
        """Flip the compaction-nudge flag (re-arming notes when); False if it already had that value."""
        ...


class FlushQueue(Protocol):
    def request_flush(self, agent_id: str, session_key: str, token: str, delay_seconds: int) -> None: ...
