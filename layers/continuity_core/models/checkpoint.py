"""Checkpoints: what the service keeps of a session at a point in time."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from continuity_core.models.checkpoint_trigger import CheckpointTrigger
from continuity_core.models.session_digest import SessionDigest
from continuity_core.models.state import SessionOrigin


class Checkpoint(SessionOrigin):
    """What a session had at one moment; its origin (machine, branch, person) is its session's."""

    model_config = ConfigDict(frozen=True)

    id: str
    session_key: str
    harness: str
    project: str | None = None
    project_normalized: str | None = None
    trigger: CheckpointTrigger
    digest: str
    prompt_count: int = Field(ge=0, description="Prompts this checkpoint covers.")
    first_prompt: int | None = Field(None, description="Session prompt number of the first covered prompt.")
    last_prompt: int | None = Field(None, description="Session prompt number of the last covered prompt.")
    sequence: int = Field(ge=1, description="Per-session checkpoint number, 1 for the first.")
    memory_queries: list[str] = Field(default_factory=list)
    recent_remembers: list[str] = Field(default_factory=list)
    # Reasoning state, for level-1 recovery: the agent's summary and next steps (agent digests),
    # or the latest prompt snippet (passive checkpoints).
    summary: str | None = None
    next_steps: list[str] = Field(default_factory=list)
    created_at: datetime
    session_digest: SessionDigest | None = Field(
        None, description="The rolling session digest as of this checkpoint: the session's whole story."
    )


class CheckpointList(BaseModel):
    checkpoints: list[Checkpoint]
