"""When a checkpoint is due, and whether a flush is already on its way: what every prompt asks,
apart from what a checkpoint holds (``checkpoints.py``) so a prompt does not load that."""

from __future__ import annotations

from datetime import datetime, timedelta

from continuity_core.kernel.config import ContinuityConfig
from continuity_core.models.state import SessionState

# A flush marked pending longer than this is presumed lost (e.g. its message went to the DLQ)
# and may be claimed again; the old message, if it ever runs, no longer matches the token.
STALE_FLUSH_AFTER = timedelta(minutes=5)
# An armed flush's token: unique within its session, and short, since the state carries it on every
# prompt (DynamoDB bills the state's update by its size).
ARMED_TOKEN_CHARS = 12


def is_checkpoint_due(state: SessionState, config: ContinuityConfig, now: datetime) -> bool:
    """Due every ``prompt_interval`` prompts, or ``time_interval_ms`` after the last checkpoint."""
    if state.prompts_since_checkpoint <= 0:
        return False
    if state.prompts_since_checkpoint >= config.prompt_interval:
        return True
    since = state.last_checkpoint_at or state.started_at
    return now - since >= timedelta(milliseconds=config.time_interval_ms)


def is_flush_in_flight(state: SessionState, config: ContinuityConfig, now: datetime) -> bool:
    """A claimed flush, until it is presumed lost; an armed one (``armed_flush_to_send``) once its
    prompt has passed, until a whole interval more came without a checkpoint."""
    if state.flush_token is None:
        return False
    if state.flush_requested_at is not None:
        return state.flush_requested_at > now - STALE_FLUSH_AFTER
    return config.prompt_interval < state.prompts_since_checkpoint < 2 * config.prompt_interval


def armed_flush_to_send(state: SessionState, config: ContinuityConfig) -> str | None:
    """The token this prompt sends the session's armed flush with, without claiming it, if it is the
    one to: the session's prompts set a flush token when none is set (the first after a checkpoint),
    and the one prompt whose count reaches the interval (counts are atomic: exactly one) sends it. A
    claim (a conditional write) is left for the rarer triggers: time, a lost flush."""
    if state.flush_requested_at is None and state.prompts_since_checkpoint == config.prompt_interval:
        return state.flush_token
    return None
