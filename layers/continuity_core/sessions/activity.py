"""A project over time, for the dashboard's pictures: what happened per day, how full each session
start's injected block was against the harness's cap, and how often each session compacted.

Pure: built from what the reader already holds (the project's newest checkpoints, its newest
sessions' states and their injections), so the pictures cost a fixed number of reads.
"""

from __future__ import annotations

from collections import Counter
from datetime import date, datetime, timedelta

from continuity_core.models.checkpoint import Checkpoint
from continuity_core.models.checkpoint_trigger import CheckpointTrigger
from continuity_core.models.dashboard import DayActivity, ProjectActivity, SessionCompactions, StartSize
from continuity_core.models.injections import InjectionRecord
from continuity_core.models.state import SessionState

SESSION_START = "session_start"


def per_day(
    checkpoints: list[Checkpoint], injections: list[InjectionRecord], days: int, today: date
) -> list[DayActivity]:
    """The last ``days`` days, oldest first. Prompts are those the day's checkpoints covered (a
    prompt counts once it is checkpointed); a compaction is counted once per session and day
    whether the harness told us before it, after it or both; a recovery is a session start that
    was given a checkpoint."""
    first = today - timedelta(days=days - 1)
    prompts: Counter[date] = Counter()
    written: Counter[date] = Counter()
    before: Counter[tuple[date, str]] = Counter()
    after: Counter[tuple[date, str]] = Counter()
    for cp in checkpoints:
        day = cp.created_at.date()
        prompts[day] += cp.prompt_count
        written[day] += 1
        if cp.trigger is CheckpointTrigger.PRE_COMPACTION:
            before[(day, cp.session_key)] += 1
        elif cp.trigger is CheckpointTrigger.POST_COMPACTION:
            after[(day, cp.session_key)] += 1
    compactions: Counter[date] = Counter()
    for day, session in set(before) | set(after):
        compactions[day] += max(before[(day, session)], after[(day, session)])
    recoveries = Counter(
        r.at.date() for r in injections if r.event == SESSION_START and r.recovered_checkpoint_id
    )
    return [
        DayActivity(
            day=day,
            prompts=prompts[day],
            checkpoints=written[day],
            compactions=compactions[day],
            recoveries=recoveries[day],
        )
        for day in (first + timedelta(days=n) for n in range(days))
    ]


def start_sizes(injections: list[InjectionRecord]) -> list[StartSize]:
    """Each session start's block against its cap, oldest first (sub-agent starts left out)."""
    starts = sorted((r for r in injections if r.event == SESSION_START), key=lambda r: r.at)
    return [
        StartSize(
            session_key=r.session_key,
            at=r.at,
            source=r.source,
            chars=r.chars,
            cap_chars=r.cap_chars,
            truncated=r.truncated,
        )
        for r in starts
    ]


def project_activity(
    project: str,
    states: list[SessionState],
    checkpoints: list[Checkpoint],
    injections: list[InjectionRecord],
    days: int,
    now: datetime,
) -> ProjectActivity:
    return ProjectActivity(
        project=project,
        days=per_day(checkpoints, injections, days, now.date()),
        starts=start_sizes(injections),
        sessions=[
            SessionCompactions(
                session_key=s.session_key,
                started_at=s.started_at,
                prompts=s.total_prompts,
                compactions=s.compactions,
            )
            for s in sorted(states, key=lambda s: s.started_at)
        ],
    )
