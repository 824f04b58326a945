"""What an agent was given at a session start or a sub-agent start (the injection inspector), and
how the session it continues or inherits from was found (lineage)."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field


class InjectionSection(BaseModel):
    name: str = Field(description="recovery, ledger or inherited.")
    chars: int = Field(description="Its size in the injected block.")
    truncated: bool = Field(False, description="The section was cut or left something out.")


class InjectionRecord(BaseModel):
    """One injection, as the agent got it (redacted)."""

    session_key: str
    event: str = Field(description="session_start or subagent_start.")
    at: datetime
    harness: str | None = None
    source: str | None = Field(
        None, description="The harness's start source: startup, resume, compact, clear…"
    )
    subagent_id: str | None = Field(None, description="The harness's sub-agent id (sub-agent starts).")
    text: str | None = Field(None, description="The block given, redacted; None when nothing was injected.")
    chars: int = 0
    cap_chars: int = Field(description="The harness's cap on injected context.")
    truncated: bool = False
    sections: list[InjectionSection] = Field(default_factory=list)
    recovery_source: str | None = Field(
        None,
        description="How the recovered session was found: same_session, previous_session, "
        "forked_session, cleared_session (a /clear's predecessor) or same_project (a recency guess).",
    )
    recovered_session_key: str | None = None
    recovered_checkpoint_id: str | None = None
    parent_session_key: str | None = Field(None, description="The parent a sub-agent inherited from.")
    parent_found_by: str | None = Field(
        None,
        description="explicit parent_session_key, OpenClaw session key, Claude Code session id, "
        "Codex session id, or most recent session of the project (a guess).",
    )


class InjectionList(BaseModel):
    injections: list[InjectionRecord] = Field(description="Newest first.")


class LineageLink(BaseModel):
    """One edge: ``from_session`` → ``to_session``, and how the service found it."""

    kind: str = Field(description="subagent (a parent and its sub-agent) or continued (the next session).")
    from_session: str
    to_session: str
    found_by: str
    guess: bool = Field(False, description="Found by recency, not by a key the harness sent.")
    at: datetime


class Lineage(BaseModel):
    session_key: str
    links: list[LineageLink] = Field(
        description="Its own start's links and its sub-agents, the sessions that continued it or "
        "inherited from it (among the project's 100 newest), then up to its origin."
    )
