"""The project's pictures without storage: per day, the injected blocks against their caps, and
compactions per session."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from continuity_core.models.checkpoint import Checkpoint
from continuity_core.models.checkpoint_trigger import CheckpointTrigger
from continuity_core.models.injections import InjectionRecord
from continuity_core.sessions.activity import per_day, start_sizes

TODAY = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)


def cp(session: str, at: datetime, trigger: CheckpointTrigger, prompts: int = 0) -> Checkpoint:
    return Checkpoint(
        id=f"{session}-{at.isoformat()}-{trigger}",
        session_key=session,
        harness="claude-code",
        trigger=trigger,
        digest="d",
        prompt_count=prompts,
        sequence=1,
        created_at=at,
    )


def start(
    session: str, at: datetime, chars: int, recovered: bool, truncated: bool = False
) -> InjectionRecord:
    return InjectionRecord(
        session_key=session,
        event="session_start",
        at=at,
        chars=chars,
        cap_chars=9000,
        truncated=truncated,
        recovered_checkpoint_id="cp1" if recovered else None,
    )


def test_each_day_counts_prompts_checkpoints_one_compaction_told_twice_and_recoveries() -> None:
    # Given, yesterday, ten prompts checkpointed and one compaction the harness told us about both
    # before and after; today another session's compaction told only after, and a recovered start
    yesterday = TODAY - timedelta(days=1)
    checkpoints = [
        cp("a", yesterday, CheckpointTrigger.PERIODIC, prompts=10),
        cp("a", yesterday + timedelta(minutes=1), CheckpointTrigger.PRE_COMPACTION, prompts=2),
        cp("a", yesterday + timedelta(minutes=2), CheckpointTrigger.POST_COMPACTION),
        cp("b", TODAY, CheckpointTrigger.POST_COMPACTION, prompts=1),
    ]
    injections = [start("b", TODAY, 500, recovered=True), start("c", TODAY, 0, recovered=False)]

    # When three days are drawn
    days = per_day(checkpoints, injections, 3, TODAY.date())

    # Then every day shows, oldest first, an empty one too, and a compaction told twice counts once
    assert [d.day for d in days] == [TODAY.date() - timedelta(days=n) for n in (2, 1, 0)]
    assert [(d.prompts, d.checkpoints, d.compactions, d.recoveries) for d in days] == [
        (0, 0, 0, 0),
        (12, 3, 1, 0),
        (1, 1, 1, 1),
    ]


def test_session_starts_are_drawn_oldest_first_with_their_cap_and_whether_they_were_cut() -> None:
    sub = start("a", TODAY, 300, recovered=False).model_copy(update={"event": "subagent_start"})
    later = start("b", TODAY + timedelta(minutes=5), 9000, recovered=True, truncated=True)

    sizes = start_sizes([later, sub, start("a", TODAY, 1200, recovered=True)])

    assert [(s.session_key, s.chars, s.cap_chars, s.truncated) for s in sizes] == [
        ("a", 1200, 9000, False),
        ("b", 9000, 9000, True),
    ]
