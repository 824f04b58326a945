"""Live transcripts: what the service keeps of a session's readable transcript, and the session API.

Offsets and lengths count characters as Python counts them (Unicode code points), on the client and
here alike; a lone surrogate is stored as U+FFFD so positions never move.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field


class SessionSummary(BaseModel):
    """One session with a transcript, as the project's session index holds it."""

    model_config = ConfigDict(frozen=True)

    session_key: str
    harness: str | None = None
    project: str | None = None
    project_normalized: str | None = None
    created_at: datetime
    updated_at: datetime
    length: int = Field(ge=0, description="Characters of transcript stored.")


class TranscriptHead(SessionSummary):
    """A transcript as stored: the summary, where the body lives, and the text not yet in S3.

    The body is ``chunks`` (S3 objects, in order, ending at ``chunk_ends``) followed by ``inline``
    (characters ``flushed`` to ``length``, the appends still in DynamoDB); ``inline`` holds at least
    the last ``tailChars`` once there is that much.
    """

    flushed: int = Field(0, ge=0, description="Characters moved to S3 chunks.")
    chunk_ids: list[str] = Field(default_factory=list)
    chunk_ends: list[int] = Field(default_factory=list)
    inline: str = ""
    # (epoch milliseconds, length after that append), oldest first: where the transcript stood when.
    marks: list[tuple[int, int]] = Field(default_factory=list)

    def summary(self) -> SessionSummary:
        return SessionSummary.model_validate(self.model_dump(include=set(SessionSummary.model_fields)))

    def length_at(self, moment: datetime) -> int:
        """The stored length at ``moment``: after the last append not later than it (0 when every
        mark kept is later: the text we can still tell apart all came after ``moment``)."""
        limit = int(moment.timestamp() * 1000)
        found = 0
        for at, length in self.marks:
            if at > limit:
                break
            found = length
        return found
