"""Per-session continuity state: what has accumulated since the last checkpoint."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

MAX_PENDING_QUERIES = 20
SNIPPET_CHARS = 200
# A pending list this long is checkpointed on the request path (hooks/ingest.py): the state item
# stays bounded and no prompt or remember is dropped, however many arrive between two flushes.
FLUSH_WHEN_PENDING = 20


class Tally(StrEnum):
    """What a session state counts besides prompts and checkpoints (the dashboard's sessions page),
    each added by the state write the hook makes anyway."""

    COMPACTIONS = "compactions"  # the harness compacted the context (hooks/ingest.py says when)
    SUBAGENTS = "subagents"  # a sub-agent started under the session (SubagentStart)


# Where a session runs, beside its project: shown with what it left ("from ana-laptop, branch
# `fix/refunds`") and used to rank it (recovery/recovery.py). Kept on the state and every checkpoint.
ORIGIN_FIELDS = ("project_path", "branch", "machine_id", "machine_name", "user")


class SessionOrigin(BaseModel):
    """The machine, branch and person of a session (all optional: older clients send none)."""

    model_config = ConfigDict(frozen=True)

    project_path: str | None = Field(None, description="The project's real path on that machine.")
    branch: str | None = None
    machine_id: str | None = None
    machine_name: str | None = None
    user: str | None = None


def origin_values(source: object) -> dict[str, str | None]:
    """The origin fields of a hook, state or checkpoint, to copy onto another."""
    return {name: getattr(source, name, None) for name in ORIGIN_FIELDS}


class SessionIdentity(SessionOrigin):
    """Who a session is: set on first sight, never changed by later hooks."""

    model_config = ConfigDict(frozen=True)

    session_key: str
    harness: str
    project: str | None = None
    project_normalized: str | None = None


class SessionState(SessionOrigin):
    model_config = ConfigDict(frozen=True)

    session_key: str
    harness: str
    project: str | None = None
    project_normalized: str | None = None
    started_at: datetime
    last_activity_at: datetime
    prompts_since_checkpoint: int = 0
    total_prompts: int = 0
    pending_queries: list[str] = Field(default_factory=list)
    pending_remembers: list[str] = Field(default_factory=list)
    # When each pending remember arrived (same order; a state written before this field has none):
    # its fact's time, so the timeline places it when it was said, not when a checkpoint took it in.
    pending_remember_at: list[datetime] = Field(default_factory=list)
    pending_snippets: list[str] = Field(default_factory=list)
    last_checkpoint_at: datetime | None = None
    flush_token: str | None = None
    flush_requested_at: datetime | None = None
    checkpoints_written: int = 0
    compactions: int = 0  # Tally.COMPACTIONS
    subagents: int = 0  # Tally.SUBAGENTS
    last_checkpoint_trigger: str | None = None
    last_digest_at: datetime | None = None
    # Compaction nudge: the context size the client last reported (the harness's own figure in
    # tokens, kept once sent; the readable transcript's characters), and whether this crossing nudged.
    context_tokens: int | None = None
    transcript_chars: int | None = None
    nudged: bool = False
    nudge_armed_at: datetime | None = None
    ended_at: datetime | None = None
    # Live transcript hints (the delta items are the truth): where the transcript ended after the
    # last hook that carried a delta, where it ended before that hook (set by the same update), and
    # when its head item was last written. A prompt whose offset equals ``transcript_prev_end``
    # appends with one request (transcripts/append.py).
    transcript_end: int | None = None
    transcript_prev_end: int | None = None
    transcript_head_at: datetime | None = None
    # Bumped by every change to what a checkpoint consumes; the writer commits only if unchanged.
    version: int = 0
    # Lineage, as the session's (latest) start found it: the session it continued (after a /clear,
    # a fork, a resume under a new id, or a guess) and the parent it inherited from, with how.
    continued_from: str | None = None
    continued_found_by: str | None = None
    parent_session_key: str | None = None
    parent_found_by: str | None = None

    @property
    def identity(self) -> SessionIdentity:
        return SessionIdentity(
            session_key=self.session_key,
            harness=self.harness,
            project=self.project,
            project_normalized=self.project_normalized,
            **origin_values(self),
        )

    @property
    def has_pending(self) -> bool:
        return self.prompts_since_checkpoint > 0 or bool(self.pending_remembers)

    @property
    def is_full(self) -> bool:
        """A pending list reached its length: checkpoint now rather than let the item grow."""
        longest = max(len(self.pending_snippets), len(self.pending_remembers))
        return longest >= FLUSH_WHEN_PENDING
