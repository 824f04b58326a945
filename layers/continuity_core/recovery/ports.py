"""What recovery reads and stores: hand-offs (``dynamo_handoffs.py``), a sub-agent's inheritance
(``inherit.py``) and the injection log (``dynamo_injections.py``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # annotations only: a function loads the models it uses, not every one
    from continuity_core.models.handoff import Handoff
    from continuity_core.models.hooks import Hook
    from continuity_core.models.injections import InjectionRecord


class HandoffStore(Protocol):
    """Hand-offs under their project. Reading the open ones at session start is the project index's
    query (``CheckpointStore.project_snapshot``), consuming one is the start's write
    (``StateStore.start_session``)."""

    def put(self, agent_id: str, handoff: Handoff, close: list[Handoff]) -> None:
        """Store an open hand-off; the ``close`` ones (open, of its project) leave the open list."""
        ...

    def open_for_project(self, agent_id: str, project_normalized: str, limit: int) -> list[Handoff]:
        """The project's open hand-offs, newest first."""
        ...


@dataclass(frozen=True)
class InheritedBlock:
    """The block a sub-agent inherits, and the parent it came from (lineage: how it was found)."""

    text: str
    parent_session_key: str
    found_by: str


class Inheritance(Protocol):
    def inherit(
        self, agent_id: str, hook: Hook, now: datetime, budget: int | None = None
    ) -> InheritedBlock | None:
        """``## Inherited from Parent Session`` for a sub-agent's start, at most ``budget`` characters."""
        ...


class InjectionLog(Protocol):
    """What each session start and sub-agent start was given (the dashboard's injection inspector)."""

    def record(self, agent_id: str, record: InjectionRecord) -> None:
        """Store one injection under its session, with the session's retention."""
        ...

    def for_session(self, agent_id: str, session_key: str, limit: int) -> list[InjectionRecord]:
        """The session's newest ``limit`` injections, newest first (expired ones left out)."""
        ...
