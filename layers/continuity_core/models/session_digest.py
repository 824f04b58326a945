"""The rolling session digest: the session's sticky facts, carried from checkpoint to checkpoint.

Kept by the checkpoint writer (never on the prompt's path) and stored inside every checkpoint, so the
newest checkpoint of a session always holds the whole story: constraints, decisions (and what they
superseded), open questions (and how they were closed), findings, files in play, remembered facts
verbatim, next steps and the last instruction verbatim. Built by code from what the session said;
see ``extraction/sticky.py`` (extraction) and ``checkpoints/rolling.py`` (merge, rank, bound).
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, field_validator


class FactKind(StrEnum):
    CONSTRAINT = "constraint"
    DECISION = "decision"
    QUESTION = "question"  # open questions and blockers
    FINDING = "finding"  # what was found out: a root cause, an answer
    REMEMBERED = "remembered"
    FILE = "file"  # files, paths and symbols in play
    NEXT_STEP = "next_step"
    SAID = "said"  # a sentence of the user's own no label fits: kept verbatim, ranked by what it says


class FactSource(StrEnum):
    PROMPT = "prompt"  # the user's prompt
    REMEMBER = "remember"  # the remember hook
    AGENT = "agent"  # the agent's own words or tool calls in the live transcript
    AGENT_DIGEST = "agent_digest"  # the agent's session_digest
    COMPACTION_SUMMARY = "compaction_summary"  # the harness's own compaction summary


class FactStatus(StrEnum):
    ACTIVE = "active"
    SUPERSEDED = "superseded"  # a decision a later one on the same subject replaced
    CLOSED = "closed"  # a question answered, a blocker resolved


class Fact(BaseModel):
    """One sticky fact with its provenance."""

    model_config = ConfigDict(frozen=True)

    kind: FactKind
    text: str = Field(max_length=2000)
    source: FactSource
    prompt: int | None = Field(None, description="The session's prompt number when it was first stated.")
    at: datetime
    seen: int = Field(1, ge=1, description="How many times it was stated (repetition ranks it up).")
    last_prompt: int | None = Field(
        None, description="The prompt number when it was last stated, when later than ``prompt``."
    )
    status: FactStatus = FactStatus.ACTIVE
    ended_by: str | None = Field(None, description="What superseded or closed it.")
    ended_prompt: int | None = None
    detail: str | None = Field(
        None, description="For files: what was done to it (edited, written, read, mentioned, deleted)."
    )
    accepted_prompt: int | None = Field(
        None, description="A decision the agent proposed: the prompt whose short reply accepted it."
    )
    answer: str | None = Field(
        None, description="An open question: a later sentence on its subject that may answer it."
    )
    answer_prompt: int | None = None
    answers_prompt: int | None = Field(
        None, description="A sentence that closed a question: the prompt the question was asked at."
    )
    in_summary: bool = Field(
        False, description="The harness's latest compaction summary already says it (its rare terms)."
    )

    @field_validator("at")
    @classmethod
    def _to_the_second(cls, value: datetime) -> datetime:
        """Seconds are provenance enough; every checkpoint stores every fact, billed by size."""
        return value.replace(microsecond=0)


class PromptNote(BaseModel):
    model_config = ConfigDict(frozen=True)

    prompt: int
    text: str


class PlanItem(BaseModel):
    """One item of the agent's own task list (Claude Code's TodoWrite, Codex's plan, ...)."""

    model_config = ConfigDict(frozen=True)

    text: str = Field(max_length=400)
    status: str = Field(description="done, doing or todo")


class FailingTest(BaseModel):
    """A test a runner's output reported failing, and no later run has reported passing."""

    model_config = ConfigDict(frozen=True)

    test: str = Field(max_length=400)
    runner: str
    prompt: int | None = Field(None, description="The prompt of the run that first showed it failing.")


class CheckVerdict(BaseModel):
    """The latest verdict of one check the session ran (a test, lint, type, format or build command)."""

    model_config = ConfigDict(frozen=True)

    target: str = Field(max_length=200, description="The command, as a person would type it again.")
    verdict: str = Field(max_length=200, description="The runner's own words: `138 passed`, `0 errors`.")
    passed: bool
    prompt: int | None = None
    runs: int = Field(1, ge=1)
    in_summary: bool = False


class ProjectCommand(BaseModel):
    """How the project runs a tool, as the session ran it (or a hook the project set up ran it)."""

    model_config = ConfigDict(frozen=True)

    command: str = Field(max_length=200)
    runs: int = Field(1, ge=1)
    hook: str | None = Field(None, description="The hook event that runs it (`PostToolUse:Edit`, `Stop`).")
    in_summary: bool = False


class SessionDigest(BaseModel):
    """What a session has established so far; never reset by a checkpoint."""

    model_config = ConfigDict(frozen=True)

    facts: list[Fact] = Field(default_factory=list)
    last_instruction: Fact | None = None
    summary: Fact | None = Field(None, description="The agent's latest own summary (session_digest).")
    recent_prompts: list[PromptNote] = Field(default_factory=list, description="Newest last.")
    prompts: int = Field(0, ge=0, description="Prompts the digest has seen.")
    transcript_end: int = Field(0, ge=0, description="How far into the live transcript it has read.")
    evicted: int = Field(
        0, ge=0, description="Evictions by the size bound so far (a fact said again may be evicted again)."
    )
    plan: list[PlanItem] = Field(default_factory=list, description="The agent's task list, latest state.")
    plan_prompt: int | None = None
    commits: list[str] = Field(default_factory=list, description="Commits made in the session, newest last.")
    failing: list[FailingTest] = Field(default_factory=list)
    checks: list[CheckVerdict] = Field(
        default_factory=list, description="Latest verdict per check, oldest first."
    )
    commands: list[ProjectCommand] = Field(
        default_factory=list, description="The project's commands, first use first."
    )
    steps: int = Field(0, ge=0, description="Statements rolled in so far: the order of edits and checks.")
    edited_step: int | None = Field(None, description="The step of the latest edit of a file.")
    checked_step: int | None = Field(
        None, description="The step of the latest test, lint, type or build run."
    )
    report: Fact | None = Field(None, description="What the agent's latest final message reported.")
    proposal: Fact | None = Field(
        None, description="What the agent's latest final message proposed, awaiting the user's reply."
    )
    compacted_prompt: int | None = Field(
        None, description="When the harness's latest compaction summary was taken in."
    )
    updated_at: datetime | None = None

    def of(self, kind: FactKind, status: FactStatus | None = FactStatus.ACTIVE) -> list[Fact]:
        return [f for f in self.facts if f.kind is kind and (status is None or f.status is status)]

    @property
    def empty(self) -> bool:
        return (
            not self.facts
            and self.last_instruction is None
            and self.summary is None
            and not self.recent_prompts
            and not self.plan
            and not self.failing
            and self.report is None
        )
