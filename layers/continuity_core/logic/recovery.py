"""Recovery at session start: find the checkpoint to hand back and render the block."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from continuity_core.config import ContinuityConfig
from continuity_core.logic.digest import format_duration
from continuity_core.logic.injection import Section
from continuity_core.models.checkpoint import Checkpoint
from continuity_core.ports import CheckpointStore

RECOVERY_HEADING = "## Session Recovery Context"


class RecoverySource(StrEnum):
    SAME_SESSION = "same_session"
    PREVIOUS_SESSION = "previous_session"
    SAME_PROJECT = "same_project"


@dataclass(frozen=True)
class Recovery:
    checkpoint: Checkpoint
    source: RecoverySource


def find_recovery(
    store: CheckpointStore,
    agent_id: str,
    session_key: str,
    previous_session_key: str | None,
    project_normalized: str | None,
    config: ContinuityConfig,
    now: datetime,
) -> Recovery | None:
    """Same session (no time limit) → explicit previous session → same project within the window.

    At most three single-item queries, however many checkpoints are stored.
    """
    latest = store.latest_for_session(agent_id, session_key)
    if latest:
        return Recovery(latest, RecoverySource.SAME_SESSION)
    if previous_session_key and previous_session_key != session_key:
        latest = store.latest_for_session(agent_id, previous_session_key)
        if latest:
            return Recovery(latest, RecoverySource.PREVIOUS_SESSION)
    if project_normalized:
        since = now - timedelta(hours=config.recovery_window_hours)
        latest = store.latest_for_project(agent_id, project_normalized, since)
        if latest:
            return Recovery(latest, RecoverySource.SAME_PROJECT)
    return None


def render_recovery(recovery: Recovery, now: datetime) -> str:
    checkpoint = recovery.checkpoint
    origin = (
        "this session"
        if recovery.source is RecoverySource.SAME_SESSION
        else f"session {checkpoint.session_key}"
    )
    age = format_duration(now - checkpoint.created_at)
    return (
        f"{RECOVERY_HEADING}\n"
        f"_Recovered from the {checkpoint.trigger.value} checkpoint of {origin}, "
        f"written {age} ago ({checkpoint.created_at.isoformat(timespec='seconds')})._\n\n"
        f"{checkpoint.digest}"
    )


def recovery_section(recovery: Recovery | None, config: ContinuityConfig, now: datetime) -> Section | None:
    if recovery is None:
        return None
    return Section(text=render_recovery(recovery, now), reserved_chars=config.recovery_budget_chars)
