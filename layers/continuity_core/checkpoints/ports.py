"""What the checkpoints feature stores: checkpoints and the project index
(``dynamo_checkpoints.py``), the decisions ledger (``dynamo_ledger.py``) and the idle index
(``dynamo_idle.py``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # annotations only: a function loads the models it uses, not every one
    from continuity_core.checkpoints.rolling import Statement
    from continuity_core.models.checkpoint import Checkpoint
    from continuity_core.models.checkpoint_trigger import CheckpointTrigger
    from continuity_core.models.digest import LedgerEntry, LedgerPage
    from continuity_core.models.handoff import Handoff
    from continuity_core.models.state import SessionState


class StateChangedError(Exception):
    """The session state moved on since it was read; read it again (latest wins)."""


@dataclass(frozen=True)
class IdleCandidate:
    agent_id: str
    session_key: str
    # Where the session sits in the idle index: its first pending write, or its last activity when
    # the sweep last found it active; due once ``idleCloseMinutes`` have passed since.
    active_at: datetime


class IdleIndex(Protocol):
    """Sessions that got pending prompts, by when the idle sweep should look at them (sparse: a
    state enters it with its first pending prompt or remember, ``StateStore.record_*``)."""

    def due(self, before: datetime, limit: int) -> list[IdleCandidate]:
        """At most ``limit`` sessions due at or before ``before``, the longest due first per shard."""
        ...

    def recheck(self, candidate: IdleCandidate, active_at: datetime) -> bool:
        """Move the session to ``active_at``; only if it still sits at ``candidate.active_at``."""
        ...

    def settle(self, candidate: IdleCandidate, version: int | None) -> bool:
        """Out of the index; only if it still sits at ``active_at`` and its state at ``version`` (a
        prompt that came since keeps it in). ``None``: whatever the state (deleted, expired)."""
        ...


@dataclass(frozen=True)
class ProjectSnapshot:
    """What one query of the project index gives: recent checkpoints and the ledger's newest decisions."""

    checkpoints: list[Checkpoint]  # newest first
    recent_decisions: list[LedgerEntry]  # newest first
    handoffs: list[Handoff] = field(default_factory=list)  # the open ones, newest first


class CheckpointStore(Protocol):
    def commit(
        self,
        agent_id: str,
        checkpoint: Checkpoint,
        consumed: SessionState,
        now: datetime,
        evict: list[Checkpoint] | None = None,
        replaces: list[Checkpoint] | None = None,
    ) -> None:
        """Write the checkpoint and reset what it consumed, only if ``consumed`` is still current.

        ``replaces`` (checkpoints an unfinished commit left, which this one holds) are deleted before
        the reset, ``evict`` (over the session's cap) after it. StateChangedError on a race.
        """
        ...

    def put(self, agent_id: str, checkpoint: Checkpoint, now: datetime, evict: list[Checkpoint]) -> None:
        """Write a checkpoint that consumes no pending state (agent digests)."""
        ...

    def latest_for_session(self, agent_id: str, session_key: str) -> Checkpoint | None: ...

    def recent_for_session(self, agent_id: str, session_key: str, limit: int) -> list[Checkpoint]:
        """Newest first."""
        ...

    def project_snapshot(
        self, agent_id: str, project_normalized: str, since: datetime, limit: int
    ) -> ProjectSnapshot:
        """The project's checkpoints newer than ``since`` (newest first) and recent ledger decisions."""
        ...

    def list_for_project(self, agent_id: str, project_normalized: str, limit: int) -> list[Checkpoint]:
        """Newest first."""
        ...

    def list_for_session(self, agent_id: str, session_key: str, limit: int) -> list[Checkpoint]:
        """Oldest first."""
        ...


class FlushOutcome(StrEnum):
    WRITTEN = "written"
    NOTHING_PENDING = "nothing_pending"
    SUPERSEDED = "superseded"  # duplicate delivery, or a newer flush owns the session


@dataclass(frozen=True)
class FlushResult:
    outcome: FlushOutcome
    checkpoint: Checkpoint | None = None
    evicted: int = 0


class Writer(Protocol):
    """The checkpoint writer (``checkpoints/writer.py``) as the hook handlers write through it: a
    checkpoint of what is pending now. A port, so a handler's module does not load the writer's
    rules (the rolling digest, extraction) that most hooks never use: the hooks root builds the
    writer on the first flush."""

    def flush(
        self,
        agent_id: str,
        session_key: str,
        trigger: CheckpointTrigger = ...,
        flush_token: str | None = None,
        render: Callable[[SessionState], str] | None = None,
        worth_writing: Callable[[SessionState], bool] = ...,
        extra: list[Statement] | None = None,
    ) -> FlushResult: ...


class LedgerStore(Protocol):
    def append(self, agent_id: str, entries: list[LedgerEntry]) -> None:
        """Append decisions to their project's ledger; entries are never rewritten."""
        ...

    def page(
        self, agent_id: str, project_normalized: str, limit: int, token: str | None = None
    ) -> LedgerPage:
        """Newest first; ``token`` continues a previous page."""
        ...
