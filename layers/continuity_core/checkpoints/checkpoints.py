"""Checkpoint rules: what one holds, and which ones a session keeps (when one is due: ``due.py``)."""

from __future__ import annotations

import uuid
from datetime import datetime

from continuity_core.checkpoints.passive_digest import render_session_digest
from continuity_core.checkpoints.ports import CheckpointStore
from continuity_core.extraction.recent import distinct_recent
from continuity_core.extraction.terms import pending_query_terms
from continuity_core.models.checkpoint import Checkpoint
from continuity_core.models.checkpoint_trigger import CheckpointTrigger
from continuity_core.models.session_digest import SessionDigest
from continuity_core.models.state import (
    MAX_PENDING_QUERIES,
    SessionState,
    origin_values,
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
