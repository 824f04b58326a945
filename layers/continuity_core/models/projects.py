"""What the service keeps per project of an agent (the project record, ``dynamo_state`` writes it
as each session starts); apart from the dashboard's read bodies, so the hook path that writes it
does not build those."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field


class ProjectRecord(BaseModel):
    """What the service keeps per project of an agent, updated as each session of it starts."""

    project: str | None = Field(None, description="The project as its newest session named it.")
    project_normalized: str
    sessions: int = Field(0, description="Sessions started in it (a forgotten session still counts).")
    harnesses: list[str] = Field(default_factory=list)
    machines: list[str] = Field(
        default_factory=list,
        description="Its sessions' machines: the name the user set, else the machine's id (none "
        "for sessions started before machines were kept).",
    )
    open_handoffs: int = Field(0, description="Hand-offs written and not yet taken by a session.")
    first_seen: datetime
    last_session_at: datetime = Field(description="When its newest session started.")
    last_session_key: str
