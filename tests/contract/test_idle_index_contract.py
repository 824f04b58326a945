"""IdleIndex: where a session with pending prompts sits for the idle sweep, on the fake and on moto."""

from __future__ import annotations

from datetime import datetime, timedelta

from continuity_core.checkpoints.ports import IdleCandidate
from continuity_core.hooks.ports import PromptRecord
from continuity_core.models.state import SessionIdentity
from tests.contract.conftest import T0, StoreSet

LATER = T0 + timedelta(minutes=5)
MUCH_LATER = T0 + timedelta(hours=1)


def me(session: str = "s1") -> SessionIdentity:
    return SessionIdentity(session_key=session, harness="claude-code", project="/w", project_normalized="/w")


def placed(stores: StoreSet, agent: str, before: datetime = MUCH_LATER) -> list[IdleCandidate]:
    """This test's sessions in the index (tests share the table)."""
    return [c for c in stores.idle.due(before, 1000) if c.agent_id == agent]


def test_the_first_pending_prompt_places_the_session_and_later_ones_do_not_move_it(
    stores: StoreSet, agent: str
) -> None:
    stores.states.touch(agent, me(), T0)  # a session start: nothing pending, not placed
    assert placed(stores, agent) == []
    stores.states.record_prompt(agent, me(), PromptRecord("p1"), T0)
    stores.states.record_prompt(agent, me(), PromptRecord("p2"), LATER)
    assert placed(stores, agent) == [IdleCandidate(agent, "s1", T0)]
    assert placed(stores, agent, before=T0 - timedelta(seconds=1)) == []


def test_a_remember_places_the_session_too(stores: StoreSet, agent: str) -> None:
    stores.states.record_remember(agent, me(), "use uv", T0)
    assert placed(stores, agent) == [IdleCandidate(agent, "s1", T0)]


def test_recheck_moves_the_session_only_from_where_the_sweep_read_it(stores: StoreSet, agent: str) -> None:
    stores.states.record_prompt(agent, me(), PromptRecord("p1"), T0)
    [read] = placed(stores, agent)
    assert stores.idle.recheck(read, LATER)
    assert not stores.idle.recheck(read, MUCH_LATER)  # stale: it sits at LATER now
    assert placed(stores, agent) == [IdleCandidate(agent, "s1", LATER)]


def test_settle_takes_the_session_out_unless_a_prompt_came_since(stores: StoreSet, agent: str) -> None:
    state = stores.states.record_prompt(agent, me(), PromptRecord("p1"), T0)
    [read] = placed(stores, agent)
    stores.states.record_prompt(agent, me(), PromptRecord("p2"), LATER)
    assert not stores.idle.settle(read, state.version)  # the state moved on: it stays
    current = stores.states.get(agent, "s1")
    assert current is not None and stores.idle.settle(read, current.version)
    assert placed(stores, agent) == []
    stores.states.record_prompt(agent, me(), PromptRecord("p3"), MUCH_LATER)  # placed again, at its time
    assert placed(stores, agent, MUCH_LATER) == [IdleCandidate(agent, "s1", MUCH_LATER)]


def test_settle_of_a_session_that_is_gone_needs_no_version(stores: StoreSet, agent: str) -> None:
    stores.states.record_prompt(agent, me(), PromptRecord("p1"), T0)
    [read] = placed(stores, agent)
    assert stores.idle.settle(read, None)
    assert not stores.idle.settle(IdleCandidate(agent, "never", T0), None)  # writes no item
    assert stores.states.get(agent, "never") is None


def test_a_session_end_takes_the_session_out(stores: StoreSet, agent: str) -> None:
    stores.states.record_prompt(agent, me(), PromptRecord("p1"), T0)
    stores.states.end_session(agent, "s1", LATER)
    assert placed(stores, agent) == []
