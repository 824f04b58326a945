"""The hand-off store, the project snapshot's open hand-offs and their consumption at session start:
the fake and DynamoDB agree."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest

from continuity_core.hooks.ports import HandoffTakenError, StartExpectation
from continuity_core.models.handoff import Handoff
from continuity_core.models.session_digest import SessionDigest
from continuity_core.models.state import SessionIdentity
from tests.contract.conftest import T0, StoreSet
from tests.support.clock import Clock

PROJECT = "/work/app"
LATER = T0 + timedelta(minutes=5)


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


def open_on_page(stores: StoreSet, agent: str) -> dict[str, int]:
    return {p.project_normalized: p.open_handoffs for p in stores.states.projects(agent, 10)}


def test_the_projects_page_counts_open_handoffs_until_a_session_takes_one(
    stores: StoreSet, agent: str
) -> None:
    # Given a project with a session, and two hand-offs of it, the second replacing the first
    stores.states.touch(agent, identity("A"), T0)
    first, second = handoff("A"), handoff("A", minutes=1)
    stores.handoffs.put(agent, first, close=[])
    assert open_on_page(stores, agent) == {PROJECT: 1}
    stores.handoffs.put(agent, second, close=[first])
    assert open_on_page(stores, agent) == {PROJECT: 1}
    stores.handoffs.put(agent, handoff("B", minutes=2), close=[])
    assert open_on_page(stores, agent) == {PROJECT: 2}

    # When a new session's start takes one
    stores.states.start_session(agent, identity("C"), LATER, None, None, StartExpectation.NEW, second)

    # Then the page counts the one left, beside the record's sessions; another agent sees none
    [record] = stores.states.projects(agent, 10)
    assert (record.open_handoffs, record.sessions, record.last_session_key) == (1, 2, "C")
    assert stores.states.projects(f"{agent}-other", 10) == []


def test_a_handoff_in_a_project_without_its_record_makes_one(stores: StoreSet, agent: str) -> None:
    stores.handoffs.put(agent, handoff("A"), close=[])
    [record] = stores.states.projects(agent, 10)
    assert (record.project_normalized, record.sessions, record.open_handoffs) == (PROJECT, 0, 1)
    assert record.last_session_key == "A"


def test_an_expired_handoff_is_not_counted_on_the_projects_page(
    stores: StoreSet, agent: str, clock: Clock
) -> None:
    stores.handoffs.put(agent, handoff("A"), close=[])
    clock.now = T0 + timedelta(days=29)
    stores.states.touch(agent, identity("B"), clock.now)  # keeps the project listed
    clock.now = T0 + timedelta(days=30)
    assert open_on_page(stores, agent) == {PROJECT: 0}


def test_a_handoff_of_the_path_keyed_project_taken_from_the_new_id_is_counted_open_no_more(
    stores: StoreSet, agent: str
) -> None:
    # Given a hand-off under the folder's path (written before the project had an id)
    stores.handoffs.put(agent, handoff("A"), close=[])
    [given] = stores.handoffs.open_for_project(agent, PROJECT, 10)
    # When a session of the repository's id takes it (recovery reads the old key as its alias)
    renamed = SessionIdentity(
        session_key="B", harness="codex", project=PROJECT, project_normalized="github.com/acme/app"
    )
    stores.states.start_session(agent, renamed, LATER, None, None, StartExpectation.NEW, given)
    # Then neither project's row counts it open
    assert open_on_page(stores, agent) == {PROJECT: 0, "github.com/acme/app": 0}
