"""Hand-off rules on in-memory stores (tests/fakes; the adapter's side: tests/contract).

What a hand-off carries, who receives it, and that it is received once."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from continuity_core.checkpoints.writer import CheckpointWriter
from continuity_core.hooks.ports import HandoffTakenError, StartExpectation
from continuity_core.kernel.config import load_config
from continuity_core.models.checkpoint_trigger import CheckpointTrigger
from continuity_core.models.handoff import MAX_OPEN_HANDOFFS, Handoff, HandoffRequest
from continuity_core.models.hooks import Hook, HookEvent
from continuity_core.models.state import SessionIdentity
from continuity_core.recovery.handoff import (
    HandoffService,
    NoProjectError,
    SessionNotFoundError,
    choose_handoff,
    render_handoff,
)
from tests.fakes.hooks import hook_dispatcher
from tests.fakes.stores import Stores, in_memory_stores
from tests.support.clock import Clock

T0 = datetime(2026, 11, 22, 9, 0, tzinfo=UTC)
AGENT = "default"
PROJECT = "/work/app"


class Core:
    def __init__(self) -> None:
        self.clock = Clock(T0)
        self.stores: Stores = in_memory_stores(self.clock)
        config = load_config(values={})
        s = self.stores
        writer = CheckpointWriter(s.states, s.checkpoints, config, self.clock, sleep=lambda _: None)
        self.hooks = hook_dispatcher(s, config, self.clock, writer)
        self.handoffs = HandoffService(writer, s.handoffs, self.clock)

    def hook(self, event: HookEvent, session: str, **fields: Any) -> Any:
        values: dict[str, Any] = {"harness": "claude-code", "project": PROJECT, "project_normalized": PROJECT}
        return self.hooks.handle(AGENT, Hook(event=event, session_key=session, **(values | fields)))

    def start(self, session: str, **fields: Any) -> str:
        outcome = self.hook(HookEvent.SESSION_START, session, source="startup", **fields)
        return outcome.response.additional_context or ""

    def say(self, session: str, text: str) -> None:
        self.hook(HookEvent.USER_PROMPT_SUBMIT, session, prompt=text)
        self.clock.now += timedelta(seconds=30)

    def hand_off(self, session: str, token_name: str | None = None, **fields: Any) -> Handoff:
        return self.handoffs.write(AGENT, session, HandoffRequest(**fields), token_name)

    def open(self) -> list[Handoff]:
        return self.stores.handoffs.open_for_project(AGENT, PROJECT, 10)


@pytest.fixture
def core() -> Core:
    return Core()


def test_the_handoff_carries_the_rolling_digest_note_git_state_and_a_handoff_checkpoint(core: Core) -> None:
    # Given a session that worked: an instruction, a constraint, a question still open
    core.start("A")
    core.say("A", "we must keep the refund API backwards compatible")
    core.say("A", "should the retry use exponential backoff?")
    core.say("A", "now wire the retry into src/refunds.py")
    # When it hands off (the pending prompts are not yet in any checkpoint)
    handoff = core.hand_off(
        "A",
        token_name="ana",
        note="finish the retry",
        branch="fix/refunds",
        commit="ABCDEF12",
        uncommitted=["src/refunds.py"],
        uncommitted_total=3,
    )
    # Then the session's newest checkpoint is a `handoff` one, and the hand-off holds its digest
    latest = core.stores.checkpoints.latest_for_session(AGENT, "A")
    assert latest is not None and latest.trigger is CheckpointTrigger.HANDOFF
    assert handoff.checkpoint_id == latest.id and handoff.session_digest == latest.session_digest
    assert (handoff.by, handoff.note, handoff.branch, handoff.commit) == (
        "ana",
        "finish the retry",
        "fix/refunds",
        "abcdef12",
    )
    text, cut = render_handoff(handoff, T0 + timedelta(hours=1), 9000)
    assert not cut
    assert text.startswith("## Hand-off from ana: finish the retry")
    assert "now wire the retry into src/refunds.py" in text  # the last instruction
    assert "backwards compatible" in text  # the constraint
    assert "exponential backoff" in text  # the open question
    assert "Uncommitted changes (3 paths): `src/refunds.py` and 2 more" in text


def test_the_note_and_paths_are_redacted_before_they_are_stored(core: Core) -> None:
    core.start("A")
    secret = "ghp_" + "a1B2" * 9
    handoff = core.hand_off("A", note=f"token is {secret}", uncommitted=[f"keys/{secret}.txt"])
    assert secret not in (handoff.note or "") and secret not in handoff.uncommitted[0]


def test_an_unknown_session_or_one_without_a_project_cannot_hand_off(core: Core) -> None:
    with pytest.raises(SessionNotFoundError):
        core.hand_off("nobody")
    core.hooks.handle(
        AGENT,
        Hook(
            event=HookEvent.SESSION_START,
            session_key="loose",
            harness="codex",
            project=None,
            project_normalized=None,
        ),
    )
    with pytest.raises(NoProjectError):
        core.hand_off("loose")


def test_the_next_new_session_gets_it_first_and_a_second_does_not(core: Core) -> None:
    core.start("A")
    core.say("A", "the ledger must stay append-only")
    core.hand_off("A", note="over to you")
    first = core.start("B")
    assert first.startswith("## Hand-off from session A: over to you")
    assert core.open() == []
    second = core.start("C")
    assert "## Hand-off from" not in second
    consumed = core.stores.memory.handoffs[(AGENT, PROJECT)]
    assert [h.consumed_by for h in consumed.values()] == ["B"]


def test_a_consumed_handoff_cannot_be_claimed_again(core: Core) -> None:
    # The store's side of "once": a start that composed with a hand-off another start took is refused
    core.start("A")
    handoff = core.hand_off("A")
    core.start("B")
    identity = SessionIdentity(
        session_key="C", harness="claude-code", project=PROJECT, project_normalized=PROJECT
    )
    with pytest.raises(HandoffTakenError):
        core.stores.states.start_session(
            AGENT, identity, T0, None, None, StartExpectation.NEW, handoff=handoff
        )
    assert core.stores.states.get(AGENT, "C") is None  # nothing written


def test_a_handoff_by_name_waits_for_that_person_and_is_preferred(core: Core) -> None:
    core.start("A")
    core.hand_off("A", to="Bob", note="for bob")
    core.clock.now += timedelta(minutes=1)
    core.start("Z")
    core.hand_off("Z", note="for anyone")
    # Ana's session gets the one for anyone; Bob's the one with his name
    assert core.start("ana-1", person="ana").startswith("## Hand-off from session Z: for anyone")
    assert core.start("bob-1", person="bob").startswith("## Hand-off from session A: for bob")
    assert core.open() == []


def test_a_newer_handoff_of_the_same_session_replaces_the_older_and_at_most_three_stay_open(
    core: Core,
) -> None:
    for n in range(5):  # all started before any hands off (a new session would take it)
        core.start(f"S{n}")
    for n in range(5):
        core.hand_off(f"S{n}", note=f"first of S{n}")
        core.clock.now += timedelta(minutes=1)
    core.hand_off("S4", note="second of S4")
    assert [h.note for h in core.open()] == ["second of S4", "first of S3", "first of S2"][:MAX_OPEN_HANDOFFS]


def test_choose_skips_the_sessions_own_and_those_addressed_elsewhere() -> None:
    def made(session: str, to: str | None = None) -> Handoff:
        return Handoff(
            id=session,
            session_key=session,
            harness="codex",
            project_normalized=PROJECT,
            created_at=T0,
            checkpoint_id="cp",
            to=to,
        )

    handoffs = [made("A"), made("B", to="bob")]
    assert choose_handoff(handoffs, "A", None) is None  # its own, and one for bob
    assert choose_handoff(handoffs, "C", "BOB") == handoffs[1]
    assert choose_handoff(handoffs, "C", None, machine="bob") == handoffs[1]
    assert choose_handoff(handoffs, "C", "ana") == handoffs[0]


def test_the_handoff_fits_a_small_harness_cap_with_its_head_whole(core: Core) -> None:
    core.start("A")
    for n in range(40):
        core.say("A", f"decision {n}: we use the queue-{n} consumer for refunds, never the cron job")
    core.hand_off("A", note="keep going", branch="main")
    outcome = core.hook(HookEvent.SESSION_START, "B", source="startup", injection_cap_chars=2000)
    text = outcome.response.additional_context
    assert text is not None and len(text) <= 2000
    assert text.startswith("## Hand-off from session A: keep going") and "- Git: branch `main`" in text


def test_a_start_that_loses_the_race_for_a_handoff_starts_without_it(
    core: Core, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given an open hand-off, and another session's start that takes it between this start's read
    # and its write
    core.start("A")
    core.hand_off("A", note="only one of you")
    states = core.stores.states
    write = states.start_session

    def taken_first(*args: Any, **kwargs: Any) -> Any:
        if kwargs.get("handoff") is not None:
            other = SessionIdentity(
                session_key="quick", harness="codex", project=PROJECT, project_normalized=PROJECT
            )
            write(AGENT, other, T0, None, None, StartExpectation.NEW, kwargs["handoff"])
            monkeypatch.setattr(states, "start_session", write)
        return write(*args, **kwargs)

    monkeypatch.setattr(states, "start_session", taken_first)
    # When this start writes: refused for the hand-off, composed again without it
    text = core.start("late")
    # Then it starts (its state written) with the project's guess, not the hand-off
    assert "## Hand-off from" not in text and text  # the guess at A's work, unmarked
    assert core.stores.states.get(AGENT, "late") is not None
    taken = list(core.stores.memory.handoffs[(AGENT, PROJECT)].values())
    assert [h.consumed_by for h in taken] == ["quick"]
