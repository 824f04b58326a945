"""The checkpoint writer's rules on in-memory stores: latest state wins, races retry, then give up."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from continuity_core.checkpoints.ports import FlushOutcome
from continuity_core.checkpoints.writer import MAX_ATTEMPTS, CheckpointWriter
from continuity_core.hooks.ports import PromptRecord
from continuity_core.kernel.config import load_config
from continuity_core.kernel.errors import FlushConflictError
from continuity_core.models.checkpoint_trigger import CheckpointTrigger
from continuity_core.models.state import SessionIdentity, SessionState
from tests.fakes.stores import InMemoryStateStore, Stores
from tests.support.clock import Clock

AGENT = "default"
ME = SessionIdentity(
    session_key="s1", harness="claude-code", project="/work/app", project_normalized="/work/app"
)


def writer_on(
    stores: Stores, clock: Clock, sleeps: list[float] | None = None, **config: Any
) -> CheckpointWriter:
    naps = sleeps if sleeps is not None else []
    return CheckpointWriter(stores.states, stores.checkpoints, load_config(config), clock, sleep=naps.append)


def prompts(stores: Stores, clock: Clock, numbers: range) -> None:
    for n in numbers:
        clock.now += timedelta(seconds=1)
        stores.states.record_prompt(AGENT, ME, PromptRecord(f"step {n}: tune the retry window"), clock())


class RacedStates(InMemoryStateStore):
    """A prompt lands between each of the writer's reads and its commit, ``races`` times."""

    def __init__(self, stores: Stores, clock: Clock, races: int) -> None:
        super().__init__(stores.memory, clock=clock)
        self.races = races
        self.clock = clock

    def get(self, agent_id: str, session_key: str) -> SessionState | None:
        state = super().get(agent_id, session_key)
        if self.races > 0:
            self.races -= 1
            self.record_prompt(agent_id, ME, PromptRecord("raced in"), self.clock())
        return state


def test_a_prompt_arriving_during_the_flush_lands_in_the_checkpoint_written_after_it(
    stores: Stores, clock: Clock
) -> None:
    prompts(stores, clock, range(1, 11))
    states = RacedStates(stores, clock, races=1)
    sleeps: list[float] = []
    writer = CheckpointWriter(states, stores.checkpoints, load_config({}), clock, sleep=sleeps.append)
    # When the writer's first commit finds the state moved on
    result = writer.flush(AGENT, "s1")
    # Then it read again and took the latest state: nothing counted twice, nothing lost
    assert result.outcome is FlushOutcome.WRITTEN
    assert result.checkpoint is not None and (
        result.checkpoint.first_prompt,
        result.checkpoint.last_prompt,
    ) == (1, 11)
    assert len(sleeps) == 1
    state = stores.states.get(AGENT, "s1")
    assert state is not None and state.prompts_since_checkpoint == 0


def test_a_session_that_keeps_changing_gives_up_after_backing_off_more_each_time(
    stores: Stores, clock: Clock
) -> None:
    prompts(stores, clock, range(1, 11))
    states = RacedStates(stores, clock, races=MAX_ATTEMPTS)
    sleeps: list[float] = []
    writer = CheckpointWriter(states, stores.checkpoints, load_config({}), clock, sleep=sleeps.append)
    # Then the message goes back to the queue (SQS retries it) and nothing was written
    with pytest.raises(FlushConflictError):
        writer.flush(AGENT, "s1")
    assert stores.checkpoints.list_for_session(AGENT, "s1", 10) == []
    assert len(sleeps) == MAX_ATTEMPTS
    assert sleeps[-1] > sleeps[0]  # each wait is drawn from a window that grows with the attempt


class CutShort:
    """A checkpoint store whose first commit stops after the checkpoint's put: the writer's process
    ended before the state's reset (a Lambda timeout, an out-of-memory kill)."""

    def __init__(self, stores: Stores) -> None:
        self.inner = stores.checkpoints
        self.cut = True

    def commit(
        self, agent_id: str, checkpoint: Any, consumed: Any, now: Any, evict: Any = None, replaces: Any = None
    ) -> None:
        if self.cut:
            self.cut = False
            self.inner.put(agent_id, checkpoint, now, evict=[])
            raise RuntimeError("process ended")
        self.inner.commit(agent_id, checkpoint, consumed, now, evict, replaces)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def test_a_commit_cut_short_after_its_checkpoint_is_taken_over_by_the_retry(
    stores: Stores, clock: Clock
) -> None:
    prompts(stores, clock, range(1, 6))
    store = CutShort(stores)
    with pytest.raises(RuntimeError):
        CheckpointWriter(stores.states, store, load_config({}), clock).flush(AGENT, "s1")
    prompts(stores, clock, range(6, 8))
    # When the queue hands the flush over again (a fresh process)
    result = CheckpointWriter(stores.states, store, load_config({}), clock).flush(AGENT, "s1")
    # Then one checkpoint holds every prompt, none is in two, and the state is reset
    kept = stores.checkpoints.list_for_session(AGENT, "s1", 10)
    assert result.checkpoint is not None and [c.id for c in kept] == [result.checkpoint.id]
    assert (kept[0].first_prompt, kept[0].last_prompt, kept[0].sequence) == (1, 7, 1)
    assert kept[0].session_digest is not None and kept[0].session_digest.prompts == 7
    state = stores.states.get(AGENT, "s1")
    assert state is not None and (state.prompts_since_checkpoint, state.checkpoints_written) == (0, 1)


def test_a_warm_writer_whose_reset_failed_takes_its_own_unfinished_checkpoint_over(
    stores: Stores, clock: Clock
) -> None:
    store = CutShort(stores)
    store.cut = False
    writer = CheckpointWriter(stores.states, store, load_config({}), clock)  # one warm process
    prompts(stores, clock, range(1, 4))
    first = writer.flush(AGENT, "s1").checkpoint
    prompts(stores, clock, range(4, 7))
    store.cut = True  # the next reset fails after its checkpoint is stored (throttled, 5xx)
    with pytest.raises(RuntimeError):
        writer.flush(AGENT, "s1")
    # When the flush is handed over again to the same process
    second = writer.flush(AGENT, "s1").checkpoint
    # Then the unfinished checkpoint is gone: every prompt is in exactly one checkpoint
    kept = stores.checkpoints.list_for_session(AGENT, "s1", 10)
    assert first is not None and second is not None and [c.id for c in kept] == [first.id, second.id]
    assert [(c.first_prompt, c.last_prompt) for c in kept] == [(1, 3), (4, 6)]


def test_a_flush_whose_token_is_no_longer_the_sessions_writes_nothing(stores: Stores, clock: Clock) -> None:
    prompts(stores, clock, range(1, 11))
    stores.states.claim_flush(AGENT, "s1", "newer", clock(), stale_before=clock())
    result = writer_on(stores, clock).flush(AGENT, "s1", flush_token="older")
    assert result.outcome is FlushOutcome.SUPERSEDED
    assert stores.checkpoints.list_for_session(AGENT, "s1", 10) == []


def test_a_flush_with_nothing_pending_releases_its_claim(stores: Stores, clock: Clock) -> None:
    stores.states.touch(AGENT, ME, clock())
    stores.states.claim_flush(AGENT, "s1", "t1", clock(), stale_before=clock())
    result = writer_on(stores, clock).flush(AGENT, "s1", flush_token="t1")
    assert result.outcome is FlushOutcome.NOTHING_PENDING
    state = stores.states.get(AGENT, "s1")
    assert state is not None and state.flush_token is None


def test_only_the_newest_checkpoints_are_kept_per_session(stores: Stores, clock: Clock) -> None:
    writer = writer_on(stores, clock, max_checkpoints_per_session=3)
    for batch in range(5):
        prompts(stores, clock, range(batch * 2 + 1, batch * 2 + 3))
        writer.flush(AGENT, "s1")
    kept = stores.checkpoints.list_for_session(AGENT, "s1", 10)
    assert [c.sequence for c in kept] == [3, 4, 5]
    assert (kept[0].first_prompt, kept[0].last_prompt) == (5, 6)


def test_every_checkpoint_carries_the_whole_session_so_far(stores: Stores, clock: Clock) -> None:
    writer = writer_on(stores, clock)
    stores.states.record_remember(AGENT, ME, "never touch the prod database", clock())
    prompts(stores, clock, range(1, 4))
    writer.flush(AGENT, "s1")
    prompts(stores, clock, range(4, 6))
    second = writer.flush(AGENT, "s1").checkpoint
    # Then the second checkpoint's digest still holds what only the first one saw
    assert second is not None and second.session_digest is not None
    assert second.session_digest.prompts == 5
    assert any("prod database" in fact.text for fact in second.session_digest.facts)


def test_the_writer_reads_no_checkpoint_back_while_it_wrote_the_newest(
    stores: Stores, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer = writer_on(stores, clock)
    prompts(stores, clock, range(1, 4))
    writer.flush(AGENT, "s1")
    reads: list[str] = []
    real = stores.checkpoints.recent_for_session

    def recent_counted(*args: Any) -> Any:
        reads.append("recent")
        return real(*args)

    monkeypatch.setattr(stores.checkpoints, "recent_for_session", recent_counted)
    prompts(stores, clock, range(4, 6))
    writer.flush(AGENT, "s1")
    assert reads == []  # the digest it last wrote is still the newest: kept warm
    # but a checkpoint written elsewhere since (e.g. an agent digest) sends it to the store
    stores.states.record_digest(AGENT, ME, clock())
    prompts(stores, clock, range(6, 7))
    writer.flush(AGENT, "s1")
    assert reads == ["recent"]


def test_a_pre_compaction_flush_writes_when_asked_even_with_nothing_pending(
    stores: Stores, clock: Clock
) -> None:
    stores.states.touch(AGENT, ME, clock())
    result = writer_on(stores, clock).flush(
        AGENT, "s1", CheckpointTrigger.PRE_COMPACTION, worth_writing=lambda state: True
    )
    assert result.outcome is FlushOutcome.WRITTEN
    assert result.checkpoint is not None and result.checkpoint.trigger is CheckpointTrigger.PRE_COMPACTION
