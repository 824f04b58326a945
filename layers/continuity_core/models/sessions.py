"""The session API's bodies: the session list, one transcript, search (kept off the hook path)."""

from __future__ import annotations

from datetime import datetime

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, model_validator

from continuity_core.models.handoff import HandoffView
from continuity_core.models.hooks import MAX_PATH, MAX_SESSION_KEY
from continuity_core.models.transcripts import SessionSummary

MAX_QUERY_CHARS = 1000
MAX_SEARCH_RESULTS = 20


class SessionPage(BaseModel):
    sessions: list[SessionSummary]
    next_token: str | None = Field(None, description="Pass back as `next_token` for the next page.")
    handoffs: list[HandoffView] = Field(
        default_factory=list,
        description="The project's open hand-offs (not yet received), newest first; on the first page only.",
    )


class TranscriptText(BaseModel):
    session_key: str
    harness: str | None = None
    project: str | None = None
    project_normalized: str | None = None
    created_at: datetime
    updated_at: datetime
    length: int = Field(description="Characters stored in all.")
    offset: int = Field(description="Where `text` starts.")
    text: str
    next_offset: int | None = Field(None, description="Where the next page starts, when there is more.")


class SearchRequest(BaseModel):
    """``POST /api/sessions/search``: one session, or a project's most recent sessions."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    session_key: str | None = Field(
        None,
        max_length=MAX_SESSION_KEY,
        validation_alias=AliasChoices("session_key", "sessionKey"),
        description="Search this one session.",
    )
    project: str | None = Field(
        None, max_length=MAX_PATH, description="Search this project's most recent sessions."
    )
    asking_session_key: str | None = Field(
        None,
        max_length=MAX_SESSION_KEY,
        validation_alias=AliasChoices("asking_session_key", "askingSessionKey"),
        description="The session asking: left out of a project search; its project is the default scope.",
    )
    limit: int = Field(10, ge=1, le=MAX_SEARCH_RESULTS, strict=True)

    @model_validator(mode="after")
    def _require_scope(self) -> SearchRequest:
        if not any((v or "").strip() for v in (self.session_key, self.project, self.asking_session_key)):
            raise ValueError("give session_key, project or asking_session_key")
        return self


class SearchResult(BaseModel):
    session_key: str
    project: str | None = None
    snippet: str
    score: float = Field(description="bm25 relevance, higher is better.")
    updated_at: datetime


class SearchResults(BaseModel):
    results: list[SearchResult]
