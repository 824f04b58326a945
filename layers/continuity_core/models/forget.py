"""Answers of ``DELETE /api/sessions/{key}`` and ``DELETE /api/projects``: what went."""

from __future__ import annotations

from pydantic import BaseModel, Field


class DeletedCounts(BaseModel):
    """How many of each were deleted by this call (a repeated delete answers zeros)."""

    states: int = 0
    checkpoints: int = 0
    transcripts: int = 0  # transcript heads, one per session with a transcript
    transcript_parts: int = Field(0, description="stored appends of those transcripts")
    transcript_bodies: int = Field(0, description="S3 objects of those transcripts")
    ledger_entries: int = 0
    index_entries: int = Field(0, description="notes that a session belongs to the project")

    @property
    def total(self) -> int:
        return sum(self.model_dump().values())


class ForgetAnswer(BaseModel):
    sessions: list[str] = Field(description="the sessions deleted; each keeps a tombstone until retention")
    project_normalized: str | None = None
    deleted: DeletedCounts
    tombstone_until: str = Field(description="until when a late hook of these sessions is refused (410)")
