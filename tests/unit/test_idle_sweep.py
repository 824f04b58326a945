"""The idle sweep's rules on in-memory stores (tests/fakes; held to DynamoDB's by tests/contract)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from continuity_core.checkpoints.idle import IdleSweeper
from continuity_core.checkpoints.writer import CheckpointWriter
from continuity_core.hooks.ingest import HookDispatcher
from continuity_core.kernel.config import load_config
from continuity_core.models.checkpoint_trigger import CheckpointTrigger
from continuity_core.models.hooks import Hook, HookEvent
from tests.fakes.hooks import hook_dispatcher
from tests.fakes.stores import Stores, in_memory_stores
from tests.support.clock import Clock

T0 = datetime(2026, 11, 22, 9, 0, tzinfo=UTC)
AGENT = "default"


@dataclass
class World:
    clock: Clock
    stores: Stores
    service: HookDispatcher
    writer: CheckpointWriter
    sweeper: IdleSweeper

    def hook(self, event: HookEvent, session: str = "s1", **fields: object) -> None:
        values = {"harness": "gemini-cli", "project": "/w", "project_normalized": "/w", **fields}
        self.service.handle(AGENT, Hook(event=event, session_key=session, **values))

    def prompt(self, n: int, session: str = "s1") -> None:
        self.hook(HookEvent.USER_PROMPT_SUBMIT, session, prompt=f"step {n}: tidy the parser")

    def later(self, minutes: float) -> None:
        self.clock.now += timedelta(minutes=minutes)

    def checkpoints(self, session: str = "s1") -> list[tuple[str, int | None, int | None]]:
        found = self.stores.checkpoints.list_for_session(AGENT, session, 100)
        return [(c.trigger.value, c.first_prompt, c.last_prompt) for c in found]


def world(limit: int = 200, **config: object) -> World:
    clock = Clock(T0)
    stores = in_memory_stores(clock)
    settings = load_config(config)
    writer = CheckpointWriter(stores.states, stores.checkpoints, settings, clock, sleep=lambda _: None)
    service = hook_dispatcher(stores, settings, clock, writer)
    sweeper = IdleSweeper(stores.idle, stores.states, writer, settings, clock, limit)
    return World(clock, stores, service, writer, sweeper)


def test_a_session_quiet_for_the_idle_time_gets_its_final_checkpoint_once() -> None:
    # Given three prompts, then no hook at all (the harness never sent its session end)
    w = world()
    for n in (1, 2, 3):
        w.prompt(n)
    # When 31 minutes pass and the sweep runs, twice
    w.later(31)
    first, second = w.sweeper.run(), w.sweeper.run()
    # Then one idle checkpoint holds the three prompts, and the second run finds nothing due
    assert w.checkpoints() == [("idle", 1, 3)]
    assert (first.closed, second.looked_at) == (1, 0)


def test_a_session_still_active_is_left_open_and_closed_once_it_goes_quiet() -> None:
    w = world()
    w.prompt(1)
    w.later(25)
    w.prompt(2)  # the session's first pending prompt was 30+ minutes ago, its last only 6
    w.later(6)
    report = w.sweeper.run()
    assert (report.closed, report.still_active) == (0, 1)
    assert w.checkpoints() == []
    w.later(25)  # 31 minutes after prompt 2
    assert w.sweeper.run().closed == 1
    assert w.checkpoints() == [("idle", 1, 2)]


def test_the_idle_time_is_the_setting() -> None:
    w = world(idle_close_minutes=60)
    w.prompt(1)
    w.later(45)
    assert w.sweeper.run().closed == 0
    w.later(16)
    assert w.sweeper.run().closed == 1


def test_nothing_pending_means_no_checkpoint_and_the_session_leaves_the_index() -> None:
    # Given a session whose prompts were all checkpointed, and one that ended
    w = world(prompt_interval=2)
    w.prompt(1)
    w.prompt(2)
    for request in w.stores.flushes.take():
        w.writer.flush(request.agent_id, request.session_key, flush_token=request.token)
    w.prompt(1, "ended")
    w.hook(HookEvent.SESSION_END, "ended", reason="logout")
    w.later(31)
    # When the sweep runs
    report = w.sweeper.run()
    # Then it writes nothing new; the checkpointed session is settled, the ended one never indexed
    assert w.checkpoints() == [("periodic", 1, 2)]
    assert w.checkpoints("ended") == [("session_end", 1, 1)]
    assert (report.closed, report.settled, w.sweeper.run().looked_at) == (0, 1, 0)


def test_a_prompt_after_an_idle_close_is_closed_by_a_later_sweep() -> None:
    w = world()
    w.prompt(1)
    w.later(31)
    w.sweeper.run()
    w.later(5)
    w.prompt(2)  # the user came back
    w.later(31)
    w.sweeper.run()
    assert w.checkpoints() == [("idle", 1, 1), ("idle", 2, 2)]


def test_a_remember_alone_is_pending_and_closed_too() -> None:
    w = world()
    w.hook(HookEvent.REMEMBER, content="the API key lives in vault, never in .env")
    w.later(31)
    w.sweeper.run()
    found = w.stores.checkpoints.list_for_session(AGENT, "s1", 10)
    assert [c.trigger for c in found] == [CheckpointTrigger.IDLE]
    assert found[0].recent_remembers == ["the API key lives in vault, never in .env"]


def test_a_run_reads_in_bounded_rounds_and_what_time_does_not_allow_waits_for_the_next_run() -> None:
    # Given five quiet sessions and rounds of three
    w = world(limit=3)
    for n in range(5):
        w.prompt(1, f"s{n}")
    w.later(31)
    # When a run's time runs out after three sessions, and the next run has time
    looked = iter(range(100))
    first = w.sweeper.run(should_stop=lambda: next(looked) >= 3)
    second = w.sweeper.run()
    # Then the first closed three, the second the other two, and every session has its checkpoint
    assert (first.closed, second.closed) == (3, 2)
    assert all(w.checkpoints(f"s{n}") == [("idle", 1, 1)] for n in range(5))


def test_one_run_goes_on_round_after_round_while_rounds_come_back_full() -> None:
    w = world(limit=2)
    for n in range(5):
        w.prompt(1, f"s{n}")
    w.later(31)
    assert w.sweeper.run().closed == 5


def test_a_deleted_session_leaves_the_index_without_a_checkpoint() -> None:
    w = world()
    w.prompt(1)
    w.stores.memory.states[(AGENT, "s1")].values["deleted_at"] = T0  # forget's tombstone
    w.later(31)
    report = w.sweeper.run()
    assert (report.closed, report.settled) == (0, 1)
    assert w.checkpoints() == []


def test_the_next_session_of_the_project_recovers_what_the_idle_checkpoint_kept() -> None:
    # Given a session closed by the sweep (its harness never sent the end)
    w = world()
    for n in (1, 2, 3):
        w.prompt(n)
    w.later(31)
    w.sweeper.run()
    # When a new session of the project starts
    answer = w.service.handle(
        AGENT,
        Hook(
            event=HookEvent.SESSION_START,
            session_key="s2",
            harness="gemini-cli",
            project="/w",
            project_normalized="/w",
            source="startup",
        ),
    )
    # Then its recovery block carries the last prompt
    assert "step 3: tidy the parser" in (answer.response.additional_context or "")
