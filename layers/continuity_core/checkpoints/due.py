"""When a checkpoint is due, and whether a flush is already on its way: what every prompt asks,
apart from what a checkpoint holds (``checkpoints.py``) so a prompt does not load that."""

from __future__ import annotations

from datetime import datetime, timedelta

from continuity_core.kernel.config import ContinuityConfig
from continuity_core.models.state import SessionState

# A flush marked pending longer than this is presumed lost (e.g. its message went to the DLQ)
# and may be claimed again; the old message, if it ever runs, no longer matches the token.
STALE_FLUSH_AFTER = timedelta(minutes=5)


def is_checkpoint_due(state: SessionState, config: ContinuityConfig, now: datetime) -> bool:
    """Due every ``prompt_interval`` prompts, or ``time_interval_ms`` after the last checkpoint."""
    if state.prompts_since_checkpoint <= 0:
        return False
    if state.prompts_since_checkpoint >= config.prompt_interval:
        return True
    since = state.last_checkpoint_at or state.started_at
    return now - since >= timedelta(milliseconds=config.time_interval_ms)


def is_flush_in_flight(state: SessionState, now: datetime) -> bool:
    return (
        state.flush_token is not None
        and state.flush_requested_at is not None
        and state.flush_requested_at > now - STALE_FLUSH_AFTER
    )
