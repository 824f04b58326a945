"""The hook path's rules, every event's handler behind the dispatcher, on in-memory stores
(tests/fakes; held to DynamoDB's by tests/contract)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from continuity_core.checkpoints.due import STALE_FLUSH_AFTER
from continuity_core.checkpoints.writer import CheckpointWriter
from continuity_core.hooks.ingest import HookDispatcher
from continuity_core.kernel.config import ContinuityConfig, load_config
from continuity_core.kernel.errors import IdempotencyKeyConflictError, TranscriptGapError
from continuity_core.models.checkpoint_trigger import CheckpointTrigger
from continuity_core.models.hooks import Hook, HookEvent, TranscriptDelta
from continuity_core.models.state import FLUSH_WHEN_PENDING
from continuity_core.recovery.recovery import RecoverySource
from continuity_core.transcripts.append import TranscriptAppender
from tests.fakes.hooks import hook_dispatcher
from tests.fakes.stores import Stores, in_memory_stores
from tests.fakes.transcripts import InMemoryTranscriptStorage
from tests.support.clock import Clock

T0 = datetime(2026, 11, 22, 9, 0, tzinfo=UTC)
AGENT = "default"
PROJECT = "/work/app"


@dataclass
class Core:
    """The hook path on in-memory stores, with a clock the test moves."""

    clock: Clock
    stores: Stores
    transcripts: InMemoryTranscriptStorage
    config: ContinuityConfig
    service: HookDispatcher = field(init=False)
    writer: CheckpointWriter = field(init=False)
    appender: TranscriptAppender = field(init=False)

    def __post_init__(self) -> None:
        s = self.stores
        self.writer = CheckpointWriter(s.states, s.checkpoints, self.config, self.clock, sleep=lambda _: None)
        self.appender = TranscriptAppender(self.transcripts, chunk_chars=16_384, keep_chars=3000)
        self.service = hook_dispatcher(s, self.config, self.clock, self.writer, transcripts=self.appender)

    def hook(self, event: HookEvent, session: str = "s1", **fields: Any) -> Any:
        values: dict[str, Any] = {"harness": "claude-code", "project": PROJECT, "project_normalized": PROJECT}
        return self.service.handle(AGENT, Hook(event=event, session_key=session, **(values | fields)))

    def prompt(self, session: str = "s1", n: int = 1, **fields: Any) -> Any:
        return self.hook(HookEvent.USER_PROMPT_SUBMIT, session, prompt=f"step {n}: fix the writer", **fields)

    def remember_with_key(self, key: str, text: str) -> Any:
        return self.hook(HookEvent.REMEMBER, "s1", content=text, idempotency_key=key)

    def prompts(self, session: str, numbers: range) -> None:
        for n in numbers:
            self.prompt(session, n)

    def deliver(self) -> int:
        """The queue's messages reach the writer (the debounce delay has passed)."""
        requests = self.stores.flushes.take()
        for r in requests:
            self.writer.flush(r.agent_id, r.session_key, CheckpointTrigger.PERIODIC, flush_token=r.token)
        return len(requests)

    def ranges(self, session: str = "s1") -> list[tuple[int | None, int | None]]:
        found = self.stores.checkpoints.list_for_session(AGENT, session, 100)
        return [(c.first_prompt, c.last_prompt) for c in found]

    def context(self, answer: Any) -> str:
        return answer.response.additional_context or ""


def build(**config: Any) -> Core:
    clock = Clock(T0)
    return Core(clock, in_memory_stores(clock), InMemoryTranscriptStorage(), load_config(config))


@pytest.fixture
def core() -> Core:
    return build()


# -- the debounce ----------------------------------------------------------------------------------


def test_ten_prompts_request_one_flush_and_it_checkpoints_them(core: Core) -> None:
    core.prompts("s1", range(1, 10))
    assert core.stores.flushes.requests == []
    core.prompt("s1", 10)
    assert core.deliver() == 1
    assert core.ranges() == [(1, 10)]


def test_a_burst_merges_into_the_flush_in_flight_which_takes_the_latest_state(core: Core) -> None:
    outcomes = [core.prompt("s1", n) for n in range(1, 16)]
    assert [o.flush_requested for o in outcomes].count(True) == 1
    assert all(o.flush_merged for o in outcomes[10:])
    assert core.deliver() == 1
    assert core.ranges() == [(1, 15)]


def test_on_another_instance_the_armed_flush_is_sent_the_same(core: Core) -> None:
    # Given nine prompts counted by one instance
    core.prompts("s1", range(1, 10))
    other = hook_dispatcher(core.stores, core.config, core.clock, core.writer, transcripts=core.appender)
    writes = core.stores.states.writes
    values = {"harness": "claude-code", "project": PROJECT, "project_normalized": PROJECT}
    hook = Hook(event=HookEvent.USER_PROMPT_SUBMIT, session_key="s1", prompt="step 10", **values)
    # When the tenth reaches an instance that saw none of them
    outcome = other.handle(AGENT, hook)
    # Then its own count is its one write: the token it sends is the one the state holds
    assert outcome.flush_requested and core.stores.states.writes - writes == 1
    assert core.deliver() == 1
    assert core.ranges() == [(1, 10)]


def test_a_flush_claimed_by_time_stays_the_one_in_flight_at_the_tenth_prompt(core: Core) -> None:
    # Given a flush claimed by time at the fifth prompt and not yet delivered, and four more prompts
    core.prompts("s1", range(1, 5))
    core.clock.now += timedelta(milliseconds=core.config.time_interval_ms)
    core.prompts("s1", range(5, 10))
    state = core.stores.states.get(AGENT, "s1")
    assert state is not None and state.flush_token is not None
    # When the tenth comes
    outcome = core.prompt("s1", 10)
    # Then it merges into the flush in flight, whose claim stays
    after = core.stores.states.get(AGENT, "s1")
    assert outcome.flush_merged and after is not None and after.flush_token == state.flush_token
    assert core.deliver() == 1
    assert core.ranges() == [(1, 10)]


def named(core: Core, session: str = "s1") -> set[int]:
    """The prompt numbers the session's checkpoints name, in their digest's prompt list."""
    found = core.stores.checkpoints.list_for_session(AGENT, session, 100)
    return {int(n) for c in found for n in re.findall(r"^- step (\d+):", c.digest, re.MULTILINE)}


def test_a_burst_of_25_prompts_is_named_whole_by_the_checkpoints(core: Core) -> None:
    # Given a replayed spool: 25 prompts arrive before the queued flush runs
    outcomes = [core.prompt("s1", n) for n in range(1, 26)]
    # When the flush in flight arrives and the session ends
    core.deliver()
    core.hook(HookEvent.SESSION_END)
    # Then the full pending list was checkpointed on the request path, and nothing was dropped
    assert [o.checkpoint_written for o in outcomes].count("periodic") == 1
    assert named(core) == set(range(1, 26))
    assert sum(c.prompt_count for c in core.stores.checkpoints.list_for_session(AGENT, "s1", 100)) == 25


def test_a_flush_is_due_after_the_time_interval_even_below_the_prompt_interval() -> None:
    core = build(time_interval_ms=60_000)
    core.prompt("s1", 1)
    core.clock.now += timedelta(minutes=2)
    assert core.prompt("s1", 2).flush_requested


def test_a_flush_the_queue_refused_is_released_so_the_next_prompt_asks_again(core: Core) -> None:
    core.prompts("s1", range(1, 10))
    core.stores.flushes.fail_next = True
    with pytest.raises(RuntimeError):
        core.prompt("s1", 10)
    assert core.prompt("s1", 11).flush_requested


def test_a_claimed_flush_lost_in_flight_is_requested_again_once_stale() -> None:
    core = build(time_interval_ms=60_000)
    core.prompt("s1", 1)
    core.clock.now += timedelta(minutes=2)
    assert core.prompt("s1", 2).flush_requested  # due by time: claimed
    core.stores.flushes.take()  # its message never arrives (e.g. it went to the DLQ)
    assert core.prompt("s1", 3).flush_merged
    core.clock.now += STALE_FLUSH_AFTER + timedelta(seconds=1)
    assert core.prompt("s1", 4).flush_requested
    assert core.deliver() == 1
    assert core.ranges() == [(1, 4)]


def test_the_prompt_that_makes_the_count_due_sends_the_armed_flush_without_a_claim(core: Core) -> None:
    core.prompts("s1", range(1, 10))
    writes = core.stores.states.writes
    assert core.prompt("s1", 10).flush_requested
    # Then its own count was the only state write: the flush was armed by the session's prompts
    assert core.stores.states.writes == writes + 1
    assert core.deliver() == 1
    assert core.ranges() == [(1, 10)]
    # And the next cycle is armed again by its first prompt
    core.prompts("s1", range(11, 20))
    assert core.prompt("s1", 20).flush_requested
    assert core.deliver() == 1
    assert sorted(core.ranges()) == [(1, 10), (11, 20)]  # both written at the same instant


def test_an_armed_flush_lost_in_flight_is_made_good_a_whole_interval_later() -> None:
    for core, by in ((build(), "the full pending list"), (build(prompt_interval=5), "a claim")):
        interval = core.config.prompt_interval
        core.prompts("s1", range(1, interval + 1))
        core.stores.flushes.take()  # its message never arrives (e.g. it went to the DLQ)
        assert all(core.prompt("s1", n).flush_merged for n in range(interval + 1, 2 * interval)), by
        # Then the prompt a whole interval on checkpoints (the list is full) or asks again
        last = core.prompt("s1", 2 * interval)
        assert last.flush_requested or last.checkpoint_written == "periodic", by
        core.deliver()
        assert core.ranges() == [(1, 2 * interval)], by


def test_a_replayed_hook_counts_once(core: Core) -> None:
    first = core.prompt("s1", 1, idempotency_key="s1:prompt:1")
    again = core.prompt("s1", 1, idempotency_key="s1:prompt:1")
    state = core.stores.states.get(AGENT, "s1")
    assert (first.duplicate, again.duplicate) == (False, True)
    assert state is not None and state.total_prompts == 1


def test_a_key_reused_for_another_prompt_answers_409_naming_it_and_stores_nothing(core: Core) -> None:
    # Given a prompt stored under a key, with its transcript part
    core.prompt("s1", 1, idempotency_key="s1:prompt:1", transcript=delta(0, "0123456789"))
    held = core.stores.states.get(AGENT, "s1")
    # When another prompt comes under the same key
    with pytest.raises(IdempotencyKeyConflictError) as refused:
        core.prompt("s1", 2, idempotency_key="s1:prompt:1", transcript=delta(10, "more text"))
    # Then the answer names the key, and neither the state nor the transcript changed
    assert "idempotency key 's1:prompt:1' was already used for a different request" in str(refused.value)
    assert core.stores.states.get(AGENT, "s1") == held
    assert [a.text for a in core.transcripts.appends(AGENT, "s1", 0, True)] == ["0123456789"]


def test_a_reused_key_is_named_redacted_and_cut(core: Core) -> None:
    key = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8" + "-" * 80
    core.remember_with_key(key, "first note")
    with pytest.raises(IdempotencyKeyConflictError) as refused:
        core.remember_with_key(key, "another note")
    detail = str(refused.value)
    assert "ghp_A1b2" not in detail and "[REDACTED:github_token]" in detail
    assert len(detail.split("'")[1]) == 65  # 64 characters and the ellipsis


def test_a_spooled_prompt_without_its_transcript_part_is_a_replay_not_a_conflict(core: Core) -> None:
    # Given a prompt the service stored with its transcript part and figures
    figures = {"transcript_chars": 10, "context_tokens": 900, "compacted": True}
    core.prompt("s1", 1, idempotency_key="k1", transcript=delta(0, "0123456789"), **figures)
    # When the client replays the record its watchdog spooled before the part was read
    again = core.prompt("s1", 1, idempotency_key="k1")
    # Then it is the same hook: counted once
    state = core.stores.states.get(AGENT, "s1")
    assert again.duplicate and state is not None and state.total_prompts == 1


def test_pending_lists_stay_bounded_by_checkpointing_early_never_by_dropping() -> None:
    # Given no periodic checkpoint for a long while
    core = build(prompt_interval=1000)
    sizes = []
    for n in range(1, 100):
        core.prompt("s1", n)
        state = core.stores.states.get(AGENT, "s1")
        assert state is not None
        sizes.append(len(state.pending_snippets))
    # When the session ends
    core.hook(HookEvent.SESSION_END)
    # Then the state never held more than a full list, and every prompt is in a checkpoint
    assert max(sizes) <= FLUSH_WHEN_PENDING
    assert named(core) == set(range(1, 100))


def test_remembers_past_a_full_list_are_checkpointed_not_dropped(core: Core) -> None:
    for n in range(1, 31):
        core.hook(HookEvent.REMEMBER, content=f"fact {n}")
    core.hook(HookEvent.SESSION_END)
    found = core.stores.checkpoints.list_for_session(AGENT, "s1", 100)
    kept = {r for c in found for r in c.recent_remembers}
    assert kept == {f"fact {n}" for n in range(1, 31)}


def test_a_disabled_service_records_nothing() -> None:
    core = build(enabled=False)
    core.prompts("s1", range(1, 11))
    assert core.stores.states.get(AGENT, "s1") is None
    assert core.stores.flushes.requests == []


# -- recovery at session start: same session → previous session → /clear → same project ----------


def checkpointed(core: Core, session: str, project: str = PROJECT, harness: str = "claude-code") -> None:
    for n in range(1, 11):
        core.hook(
            HookEvent.USER_PROMPT_SUBMIT,
            session,
            prompt=f"{session} step {n}",
            project=project,
            project_normalized=project,
            harness=harness,
        )
    core.deliver()
    core.clock.now += timedelta(minutes=1)


def start(core: Core, session: str, **fields: Any) -> Any:
    return core.hook(HookEvent.SESSION_START, session, **fields)


def test_the_same_session_wins_over_a_newer_checkpoint_of_the_project(core: Core) -> None:
    checkpointed(core, "mine")
    checkpointed(core, "theirs")
    answer = start(core, "mine", source="resume")
    assert answer.recovery.source is RecoverySource.SAME_SESSION
    assert "_Recovered from this session: " in core.context(answer)


def test_a_named_previous_session_comes_next_even_in_another_project(core: Core) -> None:
    checkpointed(core, "old", project="/work/elsewhere")
    checkpointed(core, "theirs")
    answer = start(core, "new", previous_session_key="old")
    assert answer.recovery.source is RecoverySource.PREVIOUS_SESSION
    assert answer.recovery.checkpoint.session_key == "old"


def test_after_a_clear_the_cleared_session_comes_before_a_newer_one_of_the_project(core: Core) -> None:
    checkpointed(core, "cleared")
    core.hook(HookEvent.SESSION_END, "cleared", reason="clear")
    core.clock.now += timedelta(seconds=5)
    checkpointed(core, "busy")  # another session of the project checkpointed since
    answer = start(core, "after-clear", source="clear")
    assert answer.recovery.source is RecoverySource.CLEARED_SESSION
    assert answer.recovery.checkpoint.session_key == "cleared"


def test_a_clear_of_another_harness_is_not_linked(core: Core) -> None:
    checkpointed(core, "cleared", harness="codex")
    core.hook(HookEvent.SESSION_END, "cleared", reason="clear", harness="codex")
    answer = start(core, "after-clear", source="clear")
    assert answer.recovery.source is RecoverySource.SAME_PROJECT


def test_a_new_session_recovers_the_projects_latest_within_the_window(core: Core) -> None:
    checkpointed(core, "s1")
    answer = start(core, "s2", source="startup")
    assert answer.recovery.source is RecoverySource.SAME_PROJECT
    assert "session s1" in core.context(answer)


def test_a_project_checkpoint_older_than_the_window_is_not_recovered(core: Core) -> None:
    checkpointed(core, "stale")
    core.clock.now += timedelta(hours=core.config.recovery_window_hours, minutes=5)
    assert start(core, "fresh", source="startup").recovery is None


def test_a_compacted_session_recovers_however_old_its_checkpoint(core: Core) -> None:
    checkpointed(core, "long")
    core.clock.now += timedelta(days=3)
    assert start(core, "long", source="compact").recovery.source is RecoverySource.SAME_SESSION


def test_another_project_gets_nothing(core: Core) -> None:
    checkpointed(core, "s1")
    answer = start(core, "s3", project="/work/other", project_normalized="/work/other")
    assert (answer.recovery, answer.response.additional_context) == (None, None)


def test_cross_session_recovery_can_be_switched_off() -> None:
    core = build(cross_session_recovery=False)
    checkpointed(core, "s1")
    assert start(core, "s2", source="startup").recovery is None


# -- the transcript delta a hook carries -----------------------------------------------------------


def delta(offset: int, text: str) -> TranscriptDelta:
    return TranscriptDelta(offset=offset, text=text)


def test_a_prompt_after_a_hook_without_a_hint_takes_the_one_put_path_again(core: Core) -> None:
    # Given a transcript started by a pre-compaction hook (no state update with a hint), then a prompt
    core.hook(HookEvent.PRE_COMPACTION, transcript=delta(0, "User: one\n"), trigger="auto")
    core.prompt("s1", 2, transcript=delta(10, "User: two\n"))
    core.transcripts.calls.clear()
    # When the next prompt comes
    core.prompt("s1", 3, transcript=delta(20, "User: three\n"))
    # Then the state's hint was corrected by the service: the append is one put (the tail it is
    # redacted after is the one this instance stored last; another instance reads it first)
    assert core.transcripts.calls == ["put_append"]


def test_a_gap_is_refused_after_the_prompt_counted(core: Core) -> None:
    core.prompt("s1", 1, transcript=delta(0, "0123456789"))
    with pytest.raises(TranscriptGapError) as gap:
        core.prompt("s1", 2, transcript=delta(15, "xyz"))
    assert gap.value.stored_length == 10
    state = core.stores.states.get(AGENT, "s1")
    assert state is not None and state.total_prompts == 2
    assert state.transcript_end == 10  # the state knows where the client must resend from


def test_a_replayed_hook_still_appends_the_delta_it_carries(core: Core) -> None:
    core.prompt("s1", 1, idempotency_key="k1", transcript=delta(0, "0123456789"))
    with pytest.raises(TranscriptGapError):
        core.prompt("s1", 2, idempotency_key="k2", transcript=delta(15, "x"))
    # When the client resends that hook (same key) from the stored length
    answer = core.prompt("s1", 2, idempotency_key="k2", transcript=delta(10, "ABCDEx"))
    # Then the prompt is not counted again, and the transcript is mended
    assert answer.duplicate
    assert [a.text for a in core.transcripts.appends(AGENT, "s1", 0, True)] == ["0123456789", "ABCDEx"]


# -- the compaction nudge --------------------------------------------------------------------------


def nudged(core: Core, tokens: int | None = None, chars: int = 40_000) -> bool:
    answer = core.prompt("s1", 1, context_tokens=tokens, transcript_chars=chars)
    return answer.nudged


def test_the_harness_figure_nudges_at_the_threshold_while_the_transcript_estimate_is_low(core: Core) -> None:
    percent = core.config.nudge_threshold_percent
    threshold = core.config.context_window_tokens * percent // 100
    assert not nudged(core, threshold - 1, chars=40_000)  # ~10,000 tokens by the estimate
    answer = core.prompt("s1", 2, context_tokens=threshold, transcript_chars=40_000)
    assert "`session_digest`" in core.context(answer) and f"about {percent}% full" in core.context(answer)


def test_the_nudge_fires_once_per_crossing_and_re_arms_when_the_context_shrinks(core: Core) -> None:
    threshold = core.config.context_window_tokens * core.config.nudge_threshold_percent // 100
    assert not nudged(core, threshold - 1)
    assert nudged(core, threshold)
    assert not nudged(core, threshold + 20_000)  # the same crossing
    assert not nudged(core, 30_000)  # compacted: re-armed
    assert nudged(core, threshold + 5)


def test_a_prompt_without_a_figure_keeps_the_last_one(core: Core) -> None:
    assert nudged(core, 150_000)
    assert not nudged(core, None, chars=1_000)  # the small estimate neither nudges nor re-arms
    state = core.stores.states.get(AGENT, "s1")
    assert state is not None and (state.context_tokens, state.nudged) == (150_000, True)


def test_without_a_harness_figure_the_transcript_estimate_decides(core: Core) -> None:
    threshold = core.config.context_window_tokens * core.config.nudge_threshold_percent // 100
    assert not nudged(core, None, chars=4 * threshold - 4)
    assert nudged(core, None, chars=4 * threshold)


def test_a_digest_written_since_re_arming_suppresses_the_nudge(core: Core) -> None:
    assert nudged(core, 150_000)
    assert not nudged(core, 10_000)  # re-armed
    core.clock.now += timedelta(minutes=1)
    state = core.stores.states.get(AGENT, "s1")
    assert state is not None
    core.stores.states.record_digest(AGENT, state.identity, core.clock())
    assert not nudged(core, 160_000)


# -- compaction and the end of a session -----------------------------------------------------------


def test_pre_compaction_writes_at_once_and_once_per_compaction(core: Core) -> None:
    core.prompts("s1", range(1, 4))
    first = core.hook(HookEvent.PRE_COMPACTION, trigger="auto")
    again = core.hook(HookEvent.PRE_COMPACTION, trigger="auto")
    assert (first.checkpoint_written, again.checkpoint_written) == ("pre_compaction", None)
    assert core.ranges() == [(1, 3)]


def test_session_end_writes_what_is_pending_and_then_drops_it(core: Core) -> None:
    core.prompts("s1", range(1, 4))
    assert core.hook(HookEvent.SESSION_END, reason="exit").checkpoint_written == "session_end"
    state = core.stores.states.get(AGENT, "s1")
    assert state is not None and (state.prompts_since_checkpoint, state.ended_at) == (0, core.clock())
    assert core.hook(HookEvent.SESSION_END, reason="exit").checkpoint_written is None


def test_a_pre_compaction_sent_with_a_cap_answers_the_recovery_of_what_it_wrote(core: Core) -> None:
    # Given a session with work, and a harness whose compaction prompt takes context (OpenCode)
    core.prompts("s1", range(1, 4))
    # When its compaction starts, the client reporting the cap
    answer = core.hook(HookEvent.PRE_COMPACTION, harness="opencode", injection_cap_chars=2000)
    # Then the checkpoint is written and its recovery block answers, inside the cap
    block = core.context(answer)
    assert answer.checkpoint_written == "pre_compaction" and answer.recovery is not None
    assert block.startswith("## Session Recovery Context") and "step 3: fix the writer" in block
    assert len(block) <= 2000


def test_a_pre_compaction_without_a_cap_answers_nothing(core: Core) -> None:
    core.prompts("s1", range(1, 4))
    assert core.hook(HookEvent.PRE_COMPACTION, trigger="auto").response.additional_context is None


def test_stop_appends_the_turn_and_is_no_prompt(core: Core) -> None:
    # Given a prompt, then many turns that end (OpenCode's session.idle), each with its reply
    core.prompt("s1", 1, transcript=delta(0, "User: one\n"))
    offset = 10
    for n in range(12):  # more than promptInterval: were they prompts, a flush would be due
        text = f"Assistant: reply {n}\n"
        core.hook(HookEvent.STOP, transcript=delta(offset, text))
        offset += len(text)
    # Then every reply is in the transcript, one prompt counted, and no flush was asked for
    stored = "".join(a.text for a in core.transcripts.appends(AGENT, "s1", 0, True))
    assert stored.endswith("Assistant: reply 11\n") and stored.count("Assistant:") == 12
    state = core.stores.states.get(AGENT, "s1")
    assert state is not None and state.total_prompts == 1
    assert core.deliver() == 0


# -- the harnesses' current surfaces: after a compaction, forks, turn ends, sub-agents --------------


def test_post_compaction_writes_the_summary_into_the_digest_once(core: Core) -> None:
    # Given a session, then Claude Code's PostCompact with its compact_summary
    core.prompts("s1", range(1, 3))
    summary = "We decided to use Decimal for all amounts instead of floats."
    first = core.hook(HookEvent.POST_COMPACTION, trigger="auto", compact_summary=summary)
    again = core.hook(HookEvent.POST_COMPACTION, trigger="auto", compact_summary=summary)
    # Then one post_compaction checkpoint, whose digest holds the summary's decision
    assert (first.checkpoint_written, again.checkpoint_written) == ("post_compaction", None)
    latest = core.stores.checkpoints.latest_for_session(AGENT, "s1")
    assert latest is not None and latest.session_digest is not None
    assert any("Decimal" in fact.text for fact in latest.session_digest.facts)


def test_post_compaction_without_a_summary_or_anything_pending_writes_nothing(core: Core) -> None:
    assert core.hook(HookEvent.POST_COMPACTION, "quiet", trigger="manual").checkpoint_written is None


def test_a_prompt_that_saw_a_compaction_checkpoints_and_answers_the_recovery_block(core: Core) -> None:
    # Given a Gemini CLI session (no compact session start) with a rule said early
    core.prompt("g1", 1, harness="gemini")
    core.hook(HookEvent.USER_PROMPT_SUBMIT, "g1", harness="gemini", prompt="we must keep the API stable")
    # When the next prompt's transcript shows a compaction
    answer = core.hook(HookEvent.USER_PROMPT_SUBMIT, "g1", harness="gemini", prompt="go on", compacted=True)
    # Then it checkpoints now and answers this session's recovery, rule included
    assert answer.checkpoint_written == "post_compaction"
    assert answer.recovery.source is RecoverySource.SAME_SESSION
    assert "keep the API stable" in core.context(answer)


def test_a_compacted_prompt_never_recovers_another_sessions_story(core: Core) -> None:
    checkpointed(core, "other")
    answer = core.hook(HookEvent.USER_PROMPT_SUBMIT, "new", harness="gemini", prompt="hi", compacted=True)
    assert answer.recovery.checkpoint.session_key == "new"


def test_a_fork_recovers_its_origin_and_says_so(core: Core) -> None:
    checkpointed(core, "origin")
    checkpointed(core, "newer")
    answer = start(core, "fork", source="fork", previous_session_key="origin")
    assert answer.recovery.source is RecoverySource.FORKED_SESSION
    assert "session origin (the session this one was forked from)" in core.context(answer)


def test_a_turn_end_and_a_subagents_stop_store_their_transcript_and_answer_nothing(core: Core) -> None:
    for event, session in ((HookEvent.STOP, "codex-1"), (HookEvent.SUBAGENT_STOP, "s1:subagent:a1")):
        answer = core.hook(event, session, harness="codex", transcript=delta(0, "Assistant: done\n\n"))
        assert answer.response.additional_context is None
        assert core.stores.states.get(AGENT, session) is not None
        assert [a.text for a in core.transcripts.appends(AGENT, session, 0, True)] == ["Assistant: done\n\n"]


# -- what the sessions page counts -----------------------------------------------------------------


def test_each_compaction_is_counted_once_whichever_hooks_report_it(core: Core) -> None:
    # Given a Claude Code session that compacts (PreCompact, then PostCompact) and a Gemini CLI one
    # whose manual /compress posts PreCompress and whose next prompt reports the compression
    core.prompt("s1", 1)
    core.hook(HookEvent.PRE_COMPACTION, "s1", trigger="auto")
    core.hook(HookEvent.POST_COMPACTION, "s1", trigger="auto", compact_summary="We chose SQS.")
    core.hook(HookEvent.PRE_COMPACTION, "g1", harness="gemini", trigger="manual")
    core.hook(HookEvent.USER_PROMPT_SUBMIT, "g1", harness="gemini", prompt="go on", compacted=True)
    # Then each session counts one compaction
    for key in ("s1", "g1"):
        state = core.stores.states.get(AGENT, key)
        assert state is not None and state.compactions == 1, key


def test_a_sub_agent_start_counts_on_its_parent_in_the_write_that_marks_it_active(core: Core) -> None:
    # Given a parent session
    core.prompt("s1", 1)
    writes = core.stores.states.writes
    # When Claude Code starts two sub-agents under it
    core.hook(HookEvent.SUBAGENT_START, "s1", subagent_id="a1")
    core.clock.now += timedelta(minutes=1)
    core.hook(HookEvent.SUBAGENT_START, "s1", subagent_id="a2")
    # Then the parent counts two, one state write each, and is active as of the second
    state = core.stores.states.get(AGENT, "s1")
    assert state is not None and state.subagents == 2
    assert core.stores.states.writes == writes + 2
    assert state.last_activity_at == core.clock.now


def test_a_sub_agent_start_under_a_deleted_session_stores_nothing(core: Core) -> None:
    from continuity_core.admin.forget import Forgetter
    from tests.fakes.erasure import InMemoryErasureStore

    # Given a session deleted (its tombstone in place), and a hook path that records injections
    s = core.stores
    service = hook_dispatcher(s, core.config, core.clock)
    core.prompt("s1", 1)
    Forgetter(InMemoryErasureStore(s.memory, core.transcripts), core.config, core.clock).forget_session(
        AGENT, "s1"
    )
    # When a sub-agent start of it arrives (a spooled one)
    hook = Hook(
        event=HookEvent.SUBAGENT_START,
        session_key="s1",
        harness="claude-code",
        project=PROJECT,
        project_normalized=PROJECT,
        subagent_id="a1",
    )
    answer = service.handle(AGENT, hook)
    # Then it is answered, and neither a state nor an injection is stored under the deleted session
    assert answer.response.additional_context is None
    assert s.states.get(AGENT, "s1") is None and s.states.deleted(AGENT, "s1")
    assert s.injections.for_session(AGENT, "s1", 10) == []
