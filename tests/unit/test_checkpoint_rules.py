from datetime import UTC, datetime, timedelta

from continuity_core.checkpoints.checkpoints import build_checkpoint, evictions
from continuity_core.checkpoints.due import (
    STALE_FLUSH_AFTER,
    armed_flush_to_send,
    is_checkpoint_due,
    is_flush_in_flight,
)
from continuity_core.kernel.config import load_config
from continuity_core.models.checkpoint_trigger import CheckpointTrigger
from continuity_core.models.state import SessionState

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
CONFIG = load_config({"prompt_interval": 10, "time_interval_ms": 900_000})


def state(**changes: object) -> SessionState:
    values: dict[str, object] = {
        "session_key": "s",
        "harness": "claude-code",
        "started_at": NOW - timedelta(minutes=1),
        "last_activity_at": NOW,
    }
    values.update(changes)
    return SessionState.model_validate(values)


def test_a_checkpoint_is_due_every_prompt_interval_prompts() -> None:
    assert not is_checkpoint_due(state(prompts_since_checkpoint=9), CONFIG, NOW)
    assert is_checkpoint_due(state(prompts_since_checkpoint=10), CONFIG, NOW)


def test_a_checkpoint_is_due_after_the_time_interval_if_anything_happened() -> None:
    long_ago = NOW - timedelta(minutes=15)

    assert is_checkpoint_due(state(prompts_since_checkpoint=1, last_checkpoint_at=long_ago), CONFIG, NOW)
    assert not is_checkpoint_due(state(prompts_since_checkpoint=0, last_checkpoint_at=long_ago), CONFIG, NOW)
    assert not is_checkpoint_due(
        state(prompts_since_checkpoint=1, last_checkpoint_at=NOW - timedelta(minutes=14)), CONFIG, NOW
    )


def test_a_flush_pending_for_too_long_no_longer_counts_as_in_flight() -> None:
    fresh = state(flush_token="t", flush_requested_at=NOW - timedelta(seconds=5))
    stale = state(flush_token="t", flush_requested_at=NOW - STALE_FLUSH_AFTER - timedelta(seconds=1))

    assert is_flush_in_flight(fresh, CONFIG, NOW)
    assert not is_flush_in_flight(stale, CONFIG, NOW)
    assert not is_flush_in_flight(state(), CONFIG, NOW)


def test_an_armed_flush_is_sent_by_the_prompt_that_makes_the_count_due_and_no_other() -> None:
    def armed(count: int) -> SessionState:
        return state(flush_token="t", prompts_since_checkpoint=count)

    assert [n for n in range(1, 25) if armed_flush_to_send(armed(n), CONFIG) == "t"] == [10]
    # Then it is in flight until a whole interval more came without a checkpoint (presumed lost)
    assert [n for n in range(1, 25) if is_flush_in_flight(armed(n), CONFIG, NOW)] == list(range(11, 20))
    # A claimed flush is not armed: its own request time rules
    claimed = state(flush_token="t", flush_requested_at=NOW, prompts_since_checkpoint=10)
    assert armed_flush_to_send(claimed, CONFIG) is None
    assert armed_flush_to_send(state(prompts_since_checkpoint=10), CONFIG) is None


def test_a_checkpoint_covers_exactly_the_prompts_since_the_last_one() -> None:
    current = state(
        total_prompts=20,
        prompts_since_checkpoint=10,
        checkpoints_written=1,
        pending_queries=["a", "b", "a"],
    )

    checkpoint = build_checkpoint(current, CheckpointTrigger.PERIODIC, NOW)

    assert (checkpoint.first_prompt, checkpoint.last_prompt, checkpoint.prompt_count) == (11, 20, 10)
    assert checkpoint.sequence == 2
    assert checkpoint.memory_queries == ["b", "a"]
    assert checkpoint.digest.startswith("## Session Checkpoint")


def test_the_cap_evicts_only_checkpoints_beyond_the_newest_max() -> None:
    current = state(total_prompts=1, prompts_since_checkpoint=1)
    oldest = [
        build_checkpoint(
            current.model_copy(update={"checkpoints_written": n}), CheckpointTrigger.PERIODIC, NOW
        )
        for n in range(3)
    ]  # sequences 1, 2, 3

    assert [c.sequence for c in evictions(oldest, new_sequence=4, max_per_session=3)] == [1]
    assert evictions(oldest, new_sequence=3, max_per_session=3) == []
    assert [c.sequence for c in evictions(oldest, new_sequence=5, max_per_session=2)] == [1, 2, 3]
