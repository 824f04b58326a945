"""Answers of the agent API."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field

from continuity_core.models.checkpoint import Checkpoint
from continuity_core.models.checkpoint_trigger import CheckpointTrigger
from continuity_core.models.injections import InjectionSection


class CheckpointWritten(BaseModel):
    """A checkpoint as its write is answered: which one and what it covers, never what it holds.

    The digest and explicit-checkpoint routes take a ``hooks`` token, which reads nothing else; the
    rolling digest they wrote is read with a ``read`` token (``GET /api/checkpoints/{session_key}``).
    """

    id: str
    session_key: str
    trigger: CheckpointTrigger
    sequence: int = Field(description="Per-session checkpoint number, 1 for the first.")
    created_at: datetime
    project_normalized: str | None = None
    prompt_count: int = Field(description="Prompts this checkpoint covers.")
    first_prompt: int | None = None
    last_prompt: int | None = None
    digest_chars: int = Field(description="Characters of the checkpoint's rendered digest.")

    @classmethod
    def of(cls, checkpoint: Checkpoint) -> CheckpointWritten:
        fields = checkpoint.model_dump(include=set(cls.model_fields) - {"digest_chars"})
        return cls(**fields, digest_chars=len(checkpoint.digest))


class CheckpointAnswer(BaseModel):
    checkpoint: CheckpointWritten


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
