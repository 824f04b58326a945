"""The dashboard's read bodies: sessions with their live state, one session's timeline and
transcript by turn, and one checkpoint with its diff against the one before it."""

from __future__ import annotations

from datetime import date, datetime
from enum import StrEnum

from pydantic import BaseModel, Field

from continuity_core.models.checkpoint import Checkpoint
from continuity_core.models.checkpoint_trigger import CheckpointTrigger
from continuity_core.models.handoff import HandoffView
from continuity_core.models.projects import ProjectRecord
from continuity_core.models.session_digest import Fact, SessionDigest
from continuity_core.models.state import SessionOrigin


class SessionStatus(StrEnum):
    ACTIVE = "active"
    IDLE = "idle"  # no hook for a while, never ended
    ENDED = "ended"
    CLEARED = "cleared"  # ended by /clear: a new session id carries on


class SessionRow(SessionOrigin):
    """One row of the sessions page: the session state's counters (and its transcript's summary),
    and where it runs (machine, branch, person, local path: as its client said)."""

    session_key: str
    harness: str | None = None
    project: str | None = None
    status: SessionStatus
    started_at: datetime
    last_activity_at: datetime
    prompts: int = Field(0, description="Prompts the service has counted.")
    checkpoints: int = Field(0, description="Checkpoints written (agent digests included).")
    compactions: int = Field(0, description="Compactions the harness reported (once each).")
    subagents: int = Field(0, description="Sub-agents started under the session (SubagentStart).")
    last_checkpoint_trigger: str | None = None
    transcript_chars: int = Field(0, description="The stored transcript's length (0: none).")


class SessionRows(BaseModel):
    sessions: list[SessionRow]
    next_token: str | None = Field(None, description="Pass back as `next_token` for the next page.")
    handoffs: list[HandoffView] = Field(
        default_factory=list,
        description="The project's open hand-offs (not yet received), newest first; on the first page only.",
    )


class TimelineKind(StrEnum):
    SESSION_START = "session_start"
    PROMPT = "prompt"
    CHECKPOINT = "checkpoint"
    COMPACTION = "compaction"
    AGENT_DIGEST = "agent_digest"
    REMEMBER = "remember"
    SUBAGENT_START = "subagent_start"
    SESSION_END = "session_end"


class TimelineEvent(BaseModel):
    kind: TimelineKind
    at: datetime | None = Field(None, description="When; None when the transcript does not say.")
    text: str = ""
    trigger: CheckpointTrigger | None = None
    sequence: int | None = Field(None, description="The checkpoint's number, for checkpoint events.")
    prompt: int | None = Field(None, description="The session's prompt number, where known.")
    session_key: str | None = Field(
        None, description="For sub-agent starts: the sub-agent's own session key (its transcript)."
    )


class TranscriptBlock(BaseModel):
    label: str = Field(description="User, Assistant, Tool, Result, Summary or Marker.")
    text: str
    at: datetime | None = Field(
        None, description="When the append holding the block was stored (None once moved to S3)."
    )


class Turn(BaseModel):
    """A user prompt and everything after it until the next one (turn 0: what came before any)."""

    number: int
    at: datetime | None = None
    offset: int = Field(description="Where the turn starts in the transcript.")
    blocks: list[TranscriptBlock]


class SessionTimeline(BaseModel):
    session: SessionRow | None = Field(
        None, description="None when the service holds neither the session's state nor its transcript."
    )
    events: list[TimelineEvent] = Field(description="Oldest first.")
    turns: list[Turn]
    transcript_next_offset: int | None = Field(
        None, description="The transcript goes on past what `turns` holds; read it from here."
    )
    digest: SessionDigest | None = Field(None, description="The rolling digest as of the newest checkpoint.")
    digest_sequence: int | None = None


class FactChange(BaseModel):
    fact: Fact
    previous: Fact | None = Field(None, description="For superseded: the fact as it stood before.")


class DigestDiff(BaseModel):
    added: list[Fact] = Field(description="Active now, absent (or not active) before.")
    dropped: list[Fact] = Field(description="Active before, gone now (evicted by the size bound).")
    superseded: list[FactChange] = Field(description="Active before, superseded or closed now.")
    unchanged: int = 0


class CheckpointView(BaseModel):
    checkpoint: Checkpoint
    previous_sequence: int | None = None
    next_sequence: int | None = None
    diff: DigestDiff


class ProjectRow(ProjectRecord):
    last_activity_at: datetime = Field(
        description="The newest session's last hook (its start, once that session is pruned)."
    )


class ProjectRows(BaseModel):
    projects: list[ProjectRow] = Field(description="Newest activity first.")
    next_token: str | None = Field(None, description="Pass back as `next_token` for the next page.")


class DayActivity(BaseModel):
    day: date
    prompts: int = Field(description="Prompts the day's checkpoints covered.")
    checkpoints: int
    compactions: int = Field(description="Once per session and day, told before, after or both.")
    recoveries: int = Field(description="Session starts given a checkpoint.")


class StartSize(BaseModel):
    session_key: str
    at: datetime
    source: str | None = None
    chars: int = Field(description="The injected block's length.")
    cap_chars: int = Field(description="The harness's cap on it.")
    truncated: bool


class SessionCompactions(BaseModel):
    session_key: str
    started_at: datetime
    prompts: int
    compactions: int


class ProjectActivity(BaseModel):
    """What the project's pictures draw: its newest sessions, checkpoints and starts."""

    project: str
    days: list[DayActivity] = Field(description="Oldest first, one per day, empty days included.")
    starts: list[StartSize] = Field(description="Session starts of the newest sessions, oldest first.")
    sessions: list[SessionCompactions] = Field(description="The newest sessions, oldest first.")
