"""Session start: the recovery block (own checkpoints, a cleared or resumed session's, an open
hand-off, or a parent's for a sub-agent session), and one state write that marks the session seen.

The inspector's record of what was injected rides on the state write (``StateStore.start_session``,
one request with the state), so this handler needs no ``InjectionLog``; every deployment keeps the
inspector's records."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from continuity_core.checkpoints.ports import CheckpointStore, ProjectSnapshot
from continuity_core.hooks.events.shared import HookOutcome, identity, origin
from continuity_core.hooks.ports import HandoffTakenError, StartExpectation, StateStore
from continuity_core.kernel.clock import Clock
from continuity_core.kernel.config import ContinuityConfig
from continuity_core.kernel.observability import count, logger
from continuity_core.models.checkpoint import Checkpoint
from continuity_core.models.hooks import Hook, HookResponse
from continuity_core.models.injections import InjectionRecord
from continuity_core.recovery.fit import injection_limit
from continuity_core.recovery.lineage import session_links
from continuity_core.recovery.ports import Inheritance
from continuity_core.recovery.recovery import (
    CLEAR_SOURCES,
    RECENT,
    Receiver,
    choose_start,
    own_from_snapshot,
    read_project,
)
from continuity_core.recovery.start import COMPACT_SOURCE, StartInjection, compose_start, injection_record

# Session starts of a session that ran before (Claude Code's SessionStart sources): when the project
# index lists none of its checkpoints, its state is still expected (any other start: a new session).
EXISTING_SESSION_SOURCES = frozenset({"compact", "resume"})


@dataclass(frozen=True)
class SessionStart:
    states: StateStore
    checkpoints: CheckpointStore
    inheritance: Inheritance
    config: ContinuityConfig
    clock: Clock

    def handle(self, agent_id: str, hook: Hook) -> HookOutcome:
        # Reads first, then one write marks the session seen, keeps the links it followed (lineage)
        # and stores the injection for the inspector; a deleted session is refused there (410).
        # The project index's one query answers the session's own latest checkpoint whenever it
        # lists one; when it lists none, the session is taken to have none (a new session, the
        # usual case), and the write holds only if its state agrees: else it is read and composed
        # again. So a start costs the query and one or two writes, however much is stored.
        now = self.clock()
        snapshot = read_project(
            self.checkpoints, agent_id, hook.project_normalized, self.config, now, origin(hook)
        )
        own = own_from_snapshot(snapshot, hook.session_key)
        expect = StartExpectation.ANY
        if own is None and (snapshot is None or _listed(snapshot, hook.session_key)):
            own = self.checkpoints.recent_for_session(agent_id, hook.session_key, RECENT)
        elif own is None:
            own = []  # assumed: the write checks it against the state
            new = (hook.source or "").lower() not in EXISTING_SESSION_SOURCES
            expect = StartExpectation.NEW if new else StartExpectation.NO_CHECKPOINTS
        while True:
            # Only a new session receives an open hand-off: its write consumes it, or fails whole.
            receiver = _receiver(hook) if expect is StartExpectation.NEW else None
            composed, record = self._compose(agent_id, hook, own, snapshot, now, receiver)
            links = session_links(record)
            try:
                written = self.states.start_session(
                    agent_id, identity(hook), now, links, record, expect, handoff=composed.handoff
                )
            except HandoffTakenError:
                # Another session took it a moment ago: compose again without it (a rare extra write).
                taken = composed.handoff
                assert snapshot is not None and taken is not None
                snapshot = replace(snapshot, handoffs=[h for h in snapshot.handoffs if h.id != taken.id])
                continue
            if written is not None:
                break
            # The session ran before (its state exists, or counts checkpoints the listing did not
            # show): read its checkpoints, compose again.
            own = self.checkpoints.recent_for_session(agent_id, hook.session_key, RECENT)
            expect = StartExpectation.ANY
        if not written.injection_stored:
            logger.warning("could not store the injection", extra={"session": record.session_key})
            count("InjectionRecordFailures")
        return HookOutcome(
            HookResponse(event=hook.event, additional_context=composed.text),
            recovery=composed.recovery,
            inherited=composed.inherited,
            truncated=composed.truncated,
        )

    def _compose(
        self,
        agent_id: str,
        hook: Hook,
        own: list[Checkpoint],
        snapshot: ProjectSnapshot | None,
        now: datetime,
        receiver: Receiver | None,
    ) -> tuple[StartInjection, InjectionRecord]:
        start = choose_start(
            self.checkpoints,
            agent_id,
            hook.session_key,
            own,
            hook.previous_session_key,
            snapshot,
            self.config,
            now,
            start_source=hook.source,
            harness=hook.harness,
            origin=origin(hook),
            receiver=receiver,
        )
        limit = injection_limit(hook)
        composed = compose_start(
            start,
            self.config,
            now,
            limit,
            lambda budget: self.inheritance.inherit(agent_id, hook, self.clock(), budget),
            beside_summary=(hook.source or "").lower() == COMPACT_SOURCE,
        )
        return composed, injection_record(hook, "session_start", composed, limit, now)


def _listed(snapshot: ProjectSnapshot | None, session_key: str) -> bool:
    """The listing holds the session's checkpoints but cannot answer for them (an agent digest
    whose passive checkpoint behind it is older than the listing): they are read."""
    return snapshot is not None and any(c.session_key == session_key for c in snapshot.checkpoints)


def _receiver(hook: Hook) -> Receiver | None:
    """Who may receive an open hand-off at this start: a session of its own (not a sub-agent's, nor
    one continuing the session it was cleared, forked or resumed from)."""
    if hook.parent_session_key or hook.subagent_id or hook.previous_session_key:
        return None
    if (hook.source or "").lower() in CLEAR_SOURCES:
        return None
    return Receiver(person=hook.person)
