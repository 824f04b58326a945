"""Answers of the agent API."""

from __future__ import annotations

from pydantic import BaseModel

from continuity_core.models.checkpoint import Checkpoint


class CheckpointAnswer(BaseModel):
    checkpoint: Checkpoint


class RecoveryAnswer(BaseModel):
    level: int
    text: str
    session_key: str | None = None
