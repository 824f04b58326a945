"""Hand-offs: a session's work handed to the next session of its project (``continuity handoff``)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from continuity_core.models.ids import TokenName
from continuity_core.models.session_digest import SessionDigest

MAX_UNCOMMITTED = 500  # paths a request may list; the rest are counted by the client
NOTE_CHARS = 2000
# Open hand-offs a project keeps: a newer one closes the oldest beyond this (and the same session's
# earlier one), so the session start's one query reads them all beside its checkpoints.
MAX_OPEN_HANDOFFS = 3
PathText = Annotated[str, StringConstraints(min_length=1, max_length=1024)]


class HandoffRequest(BaseModel):
    """Body of ``POST /api/sessions/{session_key}/handoff``: what the client gathered locally. Paths
    only (``git status --porcelain``), never a file's contents."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    note: str | None = Field(
        None, max_length=NOTE_CHARS, description="What the next session should know first."
    )
    to: TokenName | None = Field(
        None, description="The person (or machine) the hand-off is for; none: the next session of anyone."
    )
    user: TokenName | None = Field(
        None, description="Who hands off (the client's CONTINUITY_USER); else the token's name."
    )
    machine: TokenName | None = Field(None, description="The machine it is handed off from, for display.")
    branch: str | None = Field(None, max_length=256)
    commit: str | None = Field(None, pattern=r"^[0-9a-fA-F]{4,64}$")
    uncommitted: list[PathText] = Field(
        default_factory=list, max_length=MAX_UNCOMMITTED, description="Paths with uncommitted changes."
    )
    uncommitted_total: int | None = Field(
        None,
        strict=True,  # a JSON number: false or "3" is a client bug, not a count
        ge=0,
        le=10**9,
        description="Paths with uncommitted changes in all, when more than listed.",
    )


class HandoffView(BaseModel):
    """A hand-off as listed: who, to whom, where, and whether it was taken; not the story it carries."""

    model_config = ConfigDict(frozen=True)

    id: str
    session_key: str = Field(description="The session that handed off.")
    harness: str
    project: str | None = None
    project_normalized: str
    created_at: datetime
    by: str | None = Field(None, description="The person who handed off (client-set user, else token name).")
    machine: str | None = None
    to: str | None = Field(
        None, description="Addressed to this person or machine; none: anyone's next session."
    )
    note: str | None = None
    branch: str | None = None
    commit: str | None = None
    uncommitted: list[str] = Field(default_factory=list)
    uncommitted_total: int = 0
    checkpoint_id: str = Field(description="The session's `handoff` checkpoint written with it.")
    consumed_by: str | None = Field(None, description="The session that received it; none while open.")
    consumed_at: datetime | None = None

    @property
    def open(self) -> bool:
        return self.consumed_by is None


class Handoff(HandoffView):
    """A hand-off as stored: with the rolling digest of the session that handed off."""

    digest: str = ""  # the checkpoint's rendered text: the block when the session has no digest
    session_digest: SessionDigest | None = None

    def view(self) -> HandoffView:
        return HandoffView.model_validate(self.model_dump(exclude={"digest", "session_digest"}))


class HandoffAnswer(BaseModel):
    handoff: HandoffView


class OpenHandoffs(BaseModel):
    """A project's open hand-offs, newest first."""

    handoffs: list[HandoffView]
