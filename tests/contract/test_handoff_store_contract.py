"""The hand-off store, the project snapshot's open hand-offs and their consumption at session start:
the fake and DynamoDB agree."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest

from continuity_core.models.handoff import Handoff
from continuity_core.models.session_digest import SessionDigest
from continuity_core.models.state import SessionIdentity
from continuity_core.ports import HandoffTakenError, StartExpectation
from tests.contract.conftest import T0, StoreSet
from tests.support.clock import Clock

PROJECT = "/work/app"


def handoff(session: str, minutes: int = 0, to: str | None = None) -> Handoff:
    return Handoff(
        id=str(uuid.uuid4()),
        session_key=session,
        harness="claude-code",
        project=PROJECT,
        project_normalized=PROJECT,
        created_at=T0 + timedelta(minutes=minutes),
        to=to,
        note=f"from {session}",
        branch="main",
        uncommitted=["src/a.py"],
        uncommitted_total=1,
        checkpoint_id="cp-1",
        digest="## Session Checkpoint",
        session_digest=SessionDigest(prompts=3),
    )


def identity(session: str) -> SessionIdentity:
    return SessionIdentity(session_key=session, harness="codex", project=PROJECT, project_normalized=PROJECT)


def test_an_open_handoff_reads_back_whole_newest_first(stores: StoreSet, agent: str) -> None:
    older, newer = handoff("A"), handoff("B", minutes=1, to="bob")
    stores.handoffs.put(agent, older, close=[])
    stores.handoffs.put(agent, newer, close=[])
    assert stores.handoffs.open_for_project(agent, PROJECT, 10) == [newer, older]


def test_the_project_snapshot_carries_the_open_handoffs_beside_its_checkpoints(
    stores: StoreSet, agent: str
) -> None:
    stores.handoffs.put(agent, handoff("A"), close=[])
    snapshot = stores.checkpoints.project_snapshot(agent, PROJECT, T0 - timedelta(hours=1), 4)
    assert [h.session_key for h in snapshot.handoffs] == ["A"]
    assert snapshot.checkpoints == []


def test_closed_handoffs_leave_the_open_list(stores: StoreSet, agent: str) -> None:
    first, second = handoff("A"), handoff("B", minutes=1)
    stores.handoffs.put(agent, first, close=[])
    stores.handoffs.put(agent, second, close=[first])
    assert stores.handoffs.open_for_project(agent, PROJECT, 10) == [second]


def test_a_new_sessions_start_consumes_it_once(stores: StoreSet, agent: str) -> None:
    given = handoff("A")
    stores.handoffs.put(agent, given, close=[])
    written = stores.states.start_session(agent, identity("B"), T0, None, None, StartExpectation.NEW, given)
    assert written is not None and written.created
    assert stores.handoffs.open_for_project(agent, PROJECT, 10) == []
    snapshot = stores.checkpoints.project_snapshot(agent, PROJECT, T0 - timedelta(hours=1), 4)
    assert snapshot.handoffs == []
    # A second start that composed with it is refused whole: no state written
    with pytest.raises(HandoffTakenError):
        stores.states.start_session(agent, identity("C"), T0, None, None, StartExpectation.NEW, given)
    assert stores.states.get(agent, "C") is None


def test_another_agent_sees_none(stores: StoreSet, agent: str) -> None:
    stores.handoffs.put(agent, handoff("A"), close=[])
    other = f"{agent}-other"
    assert stores.handoffs.open_for_project(other, PROJECT, 10) == []
    assert stores.checkpoints.project_snapshot(other, PROJECT, T0 - timedelta(hours=1), 4).handoffs == []


def test_an_expired_handoff_is_not_read(stores: StoreSet, agent: str, clock: Clock) -> None:
    stores.handoffs.put(agent, handoff("A"), close=[])
    clock.now = T0 + timedelta(days=30)
    assert stores.handoffs.open_for_project(agent, PROJECT, 10) == []
