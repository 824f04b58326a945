"""The agent's own digest (session_digest) and the decision ledger it feeds."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from continuity_core.models import MAX_SAFE_INTEGER

MAX_ITEMS = 20
ITEM_CHARS = 1000


class Evidence(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    path: str = Field(min_length=1, max_length=1024)
    line: int | None = Field(None, ge=0, le=MAX_SAFE_INTEGER, strict=True)
    quote: str | None = Field(None, max_length=ITEM_CHARS)


class Decision(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    decision: str = Field(min_length=1, max_length=ITEM_CHARS)
    rationale: str | None = Field(None, max_length=ITEM_CHARS * 2)
    evidence: list[Evidence] = Field(default_factory=list, max_length=10)


class DigestRequest(BaseModel):
    """Body of ``POST /api/sessions/{session_key}/digest`` (the MCP tool ``session_digest``)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    summary: str = Field(min_length=1, max_length=20_000)
    decisions: list[Decision] = Field(default_factory=list, max_length=MAX_ITEMS)
    next_steps: list[str] = Field(default_factory=list, max_length=MAX_ITEMS)
    blockers: list[str] = Field(default_factory=list, max_length=MAX_ITEMS)
    questions: list[str] = Field(default_factory=list, max_length=MAX_ITEMS)
    project: str | None = Field(None, max_length=4096, description="For a session the service has not seen.")
    project_normalized: str | None = Field(None, max_length=4096)
    harness: str | None = Field(None, max_length=64)
    idempotency_key: str | None = Field(
        None,
        max_length=512,
        description="The same digest sent again with this key (a retry after a cut answer, the agent "
        "calling again) is stored once: the answer is the checkpoint the first one wrote.",
    )


class LedgerEntry(BaseModel):
    """One decision in a project's append-only ledger."""

    model_config = ConfigDict(frozen=True)

    id: str
    project_normalized: str
    session_key: str
    decision: str
    rationale: str | None = None
    evidence: list[Evidence] = Field(default_factory=list)
    created_at: datetime


class LedgerPage(BaseModel):
    entries: list[LedgerEntry]
    next_token: str | None = None
    forks: dict[str, list[str]] = Field(
        default_factory=dict,
        description="Sessions whose decisions interleave with another session's in this page (parallel "
        "branches: a fork, a second terminal): session → the sessions it ran alongside.",
    )
