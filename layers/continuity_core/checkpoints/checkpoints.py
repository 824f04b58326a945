"""Checkpoint rules: when one is due, and what it holds."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

from continuity_core.checkpoints.passive_digest import render_session_digest
from continuity_core.checkpoints.ports import CheckpointStore
from continuity_core.extraction.recent import distinct_recent
from continuity_core.extraction.terms import pending_query_terms
from continuity_core.kernel.config import ContinuityConfig
from continuity_core.models.checkpoint import Checkpoint, CheckpointTrigger
from continuity_core.models.session_digest import SessionDigest
from continuity_core.models.state import (
    MAX_PENDING_QUERIES,
    SessionState,
    origin_values,
)

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
    """A claimed flush, until it is presumed lost; an armed one (``sends_armed_flush``) once its
    prompt has passed, until a whole interval more came without a checkpoint."""
    if state.flush_token is None:
        return False
    if state.flush_requested_at is not None:
        return state.flush_requested_at > now - STALE_FLUSH_AFTER
    return config.prompt_interval < state.prompts_since_checkpoint < 2 * config.prompt_interval


def sends_armed_flush(state: SessionState, config: ContinuityConfig) -> bool:
    """Whether this prompt sends the session's armed flush without claiming it: the session's prompts
    set a flush token when none is set (the first after a checkpoint), and the one prompt whose count
    reaches the interval (counts are atomic: exactly one) sends it. A claim (a conditional write)
    is left for the rarer triggers: time, a lost flush, a session's first checkpoint before arming."""
    return (
        state.flush_token is not None
        and state.flush_requested_at is None
        and state.prompts_since_checkpoint == config.prompt_interval
    )


def build_checkpoint(
    state: SessionState,
    trigger: CheckpointTrigger,
    now: datetime,
    digest: str | None = None,
    session_digest: SessionDigest | None = None,
) -> Checkpoint:
    """A checkpoint of everything pending in ``state`` (the writer consumes exactly this)."""
    covered = state.prompts_since_checkpoint
    return Checkpoint(
        id=str(uuid.uuid4()),
        session_key=state.session_key,
        harness=state.harness,
        project=state.project,
        project_normalized=state.project_normalized,
        trigger=trigger,
        digest=digest if digest is not None else render_session_digest(state, now),
        prompt_count=covered,
        first_prompt=state.total_prompts - covered + 1 if covered else None,
        last_prompt=state.total_prompts if covered else None,
        sequence=state.checkpoints_written + 1,
        memory_queries=distinct_recent(pending_query_terms(state), MAX_PENDING_QUERIES),
        recent_remembers=list(state.pending_remembers),
        summary=state.pending_snippets[-1] if state.pending_snippets else None,
        created_at=now,
        session_digest=session_digest,
        **origin_values(state),
    )


def evictions(candidates: list[Checkpoint], new_sequence: int, max_per_session: int) -> list[Checkpoint]:
    """Of the session's oldest checkpoints, those the cap pushes out once ``new_sequence`` lands."""
    oldest_kept = new_sequence - max_per_session + 1
    return [checkpoint for checkpoint in candidates if checkpoint.sequence < oldest_kept]


def cap_evictions(
    store: CheckpointStore, agent_id: str, checkpoint: Checkpoint, cap: int
) -> list[Checkpoint]:
    """What must go for ``checkpoint`` to land within the per-session cap (one small query, if any)."""
    if checkpoint.sequence <= cap:
        return []
    # Only the handful that fall out of the window: normally exactly one.
    oldest = store.list_for_session(agent_id, checkpoint.session_key, limit=5)
    return evictions(oldest, checkpoint.sequence, cap)
