"""Answers of the agent API."""

from __future__ import annotations

from pydantic import BaseModel, Field

from continuity_core.models.checkpoint import Checkpoint
from continuity_core.models.injections import InjectionSection


class CheckpointAnswer(BaseModel):
    checkpoint: Checkpoint


class RecoveryAnswer(BaseModel):
    level: int
    text: str
    session_key: str | None = None


class PreviewAnswer(BaseModel):
    """What a session starting now in the project would be given (``GET /api/preview``)."""

    project_normalized: str
    text: str | None  # the injected context; None: nothing to inject
    source: str | None = None  # how the recovered checkpoint was found (same_project, ...)
    session_key: str | None = None  # the session whose checkpoint it recovers
    checkpoint_id: str | None = None
    decisions: int = 0  # the ledger's recent decisions it could show
    truncated: bool = False  # something was left out to fit the cap
    chars: int = 0  # the text's size
    cap_chars: int = 0  # the cap it was placed under
    sections: list[InjectionSection] = Field(default_factory=list)
