"""Hook payloads: Claude Code's own hook JSON and Signet's field names, normalised into one model."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, model_validator

from continuity_core.models import MAX_SAFE_INTEGER
from continuity_core.models.ids import SESSION_ID_MAX, OptionalSessionId, TokenName

MAX_SESSION_KEY = SESSION_ID_MAX
MAX_PATH = 4096
MAX_LABEL = 256  # a branch, a machine's or a person's name
MACHINE_ID_PATTERN = r"^[0-9a-f]{32}$"


class HookEvent(StrEnum):
    SESSION_START = "session-start"
    USER_PROMPT_SUBMIT = "user-prompt-submit"
    REMEMBER = "remember"
    PRE_COMPACTION = "pre-compaction"
    SESSION_END = "session-end"
    SUBAGENT_START = "subagent-start"
    # The agent finished its turn (OpenCode's session.idle, Codex's Stop): the last reply's transcript
    # lands now, not with the next prompt (which may never come).
    STOP = "stop"
    POST_COMPACTION = "post-compaction"  # the harness compacted (Claude Code's and Codex's PostCompact)
    SUBAGENT_STOP = "subagent-stop"  # a sub-agent finished: its own transcript, under its own key

    @property
    def claude_code_name(self) -> str:
        """The hook event name Claude Code expects back in hookSpecificOutput."""
        return _CLAUDE_CODE_NAMES[self]


_CLAUDE_CODE_NAMES = {
    HookEvent.SESSION_START: "SessionStart",
    HookEvent.USER_PROMPT_SUBMIT: "UserPromptSubmit",
    HookEvent.REMEMBER: "UserPromptSubmit",
    HookEvent.PRE_COMPACTION: "PreCompact",
    HookEvent.SESSION_END: "SessionEnd",
    HookEvent.SUBAGENT_START: "SubagentStart",
    HookEvent.POST_COMPACTION: "PostCompact",
    HookEvent.SUBAGENT_STOP: "SubagentStop",
    HookEvent.STOP: "Stop",
}


class TranscriptDelta(BaseModel):
    """The new part of the session's transcript, as readable text, and where it starts."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    offset: int = Field(
        strict=True,
        ge=0,
        le=MAX_SAFE_INTEGER,
        description="Characters of readable transcript before this text.",
    )
    text: str = Field(description="The readable text from ``offset`` on.")


def _choices(*names: str) -> AliasChoices:
    return AliasChoices(*names)


class HookRequest(BaseModel):
    """The body of ``POST /api/hooks/{event}`` as harnesses send it (unknown fields are ignored)."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    # Ids are keys: checked at the door against the one rule (models/ids.py), 422 naming it.
    session_key: OptionalSessionId = Field(
        None, validation_alias=_choices("session_id", "sessionKey", "sessionId", "session_key")
    )
    harness: str | None = Field(None, max_length=64)
    project: str | None = Field(None, max_length=MAX_PATH, validation_alias=_choices("cwd", "project"))
    project_normalized: str | None = Field(
        None, max_length=MAX_PATH, validation_alias=_choices("project_normalized", "projectNormalized")
    )
    transcript_path: str | None = Field(
        None, max_length=MAX_PATH, validation_alias=_choices("transcript_path", "transcriptPath")
    )
    # Where the session runs (client hook/project_id.py, hook/machine.py): for display and ranking.
    project_path: str | None = Field(
        None,
        max_length=MAX_PATH,
        validation_alias=_choices("project_path", "projectPath"),
        description="The project's real path on the agent's machine when ``project_normalized`` is a "
        "project id (a repository's remote): what the project was keyed by before, still read.",
    )
    branch: str | None = Field(None, max_length=MAX_LABEL, description="The checked-out git branch.")
    machine_id: str | None = Field(
        None,
        pattern=MACHINE_ID_PATTERN,
        validation_alias=_choices("machine_id", "machineId"),
        description="A random id the client made once for its machine (32 hex digits).",
    )
    machine_name: str | None = Field(
        None,
        max_length=MAX_LABEL,
        validation_alias=_choices("machine_name", "machineName"),
        description="The machine's name as the user set it (or its host name).",
    )
    hook_event_name: str | None = Field(None, max_length=64)
    prompt: str | None = Field(None, validation_alias=_choices("prompt", "userPrompt", "user_prompt"))
    source: str | None = Field(None, max_length=64)
    trigger: str | None = Field(None, max_length=64)
    custom_instructions: str | None = Field(
        None, validation_alias=_choices("custom_instructions", "customInstructions")
    )
    session_context: str | None = Field(None, validation_alias=_choices("sessionContext", "session_context"))
    reason: str | None = Field(None, max_length=256)
    content: str | None = None
    compact_summary: str | None = Field(
        None,
        validation_alias=_choices("compact_summary", "compactSummary"),
        description="The harness's own compaction summary (Claude Code's PostCompact); it feeds the "
        "rolling digest.",
    )
    last_assistant_message: str | None = Field(
        None,
        validation_alias=_choices("last_assistant_message", "lastAssistantMessage"),
        description="The final reply of the turn or sub-agent (Stop, SubagentStop).",
    )
    compacted: bool = Field(
        False,
        strict=True,
        description="The transcript delta shows a compaction since the last hook, and the harness has no "
        "session start for it (Gemini CLI): the answer to this prompt carries the recovery block.",
    )
    # The harness's sub-agent id (Claude Code's and Codex's agent_id), not the tenant.
    subagent_id: OptionalSessionId = Field(None, validation_alias=_choices("agent_id", "agentId"))
    subagent_type: str | None = Field(
        None, max_length=256, validation_alias=_choices("agent_type", "agentType")
    )
    previous_session_key: OptionalSessionId = Field(
        None, validation_alias=_choices("previous_session_key", "previousSessionKey")
    )
    user: TokenName | None = Field(
        None,
        description="The person the session runs for, as the client names them (``continuity config "
        "user`` or CONTINUITY_USER): automatic recovery across sessions stays with one person, and a "
        "hand-off addressed by name finds them; without it the token's name counts for hand-offs.",
    )
    idempotency_key: str | None = Field(
        None, max_length=512, validation_alias=_choices("idempotency_key", "idempotencyKey")
    )
    parent_session_key: OptionalSessionId = Field(
        None, validation_alias=_choices("parent_session_key", "parentSessionKey", "parentID", "parent_id")
    )
    transcript: TranscriptDelta | None = Field(
        None,
        description="Client-sent transcript delta (user-prompt-submit, pre-compaction, post-compaction, "
        "session-end, stop, subagent-stop).",
    )
    transcript_chars: int | None = Field(
        None,
        strict=True,  # a JSON number: "12" is a client bug, not a figure
        ge=0,
        le=MAX_SAFE_INTEGER,
        validation_alias=_choices("transcript_chars", "transcriptChars"),
        description="Size of the readable transcript on the agent's machine (for the compaction nudge).",
    )
    context_tokens: int | None = Field(
        None,
        strict=True,  # a JSON number: "12" is a client bug, not a figure
        ge=0,
        le=100_000_000,
        validation_alias=_choices("context_tokens", "contextTokens"),
        description="The context size the harness itself recorded, in tokens (Claude Code: the last "
        "assistant entry's input plus cache tokens). The compaction nudge prefers it to transcript_chars.",
    )
    injection_cap_chars: int | None = Field(
        None,
        strict=True,  # a JSON number: "12" is a client bug, not a figure
        ge=200,
        le=100_000,
        validation_alias=_choices("injection_cap_chars", "injectionCapChars"),
        description="The most characters of context the harness injects (Claude Code 10,000; Codex about "
        "2,500 tokens). The whole answer fits it; a cut says so. Sent with pre-compaction by a harness that "
        "puts context into its compaction prompt (OpenCode): the answer is then the recovery block.",
    )

    @model_validator(mode="before")
    @classmethod
    def _require_object(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            raise ValueError("the hook body must be a JSON object")
        return data

    @model_validator(mode="after")
    def _require_session(self) -> HookRequest:
        if not (self.session_key or "").strip():
            raise ValueError("session_id (or sessionKey / sessionId) is required")
        return self


class Hook(BaseModel):
    """One normalised hook, whatever harness sent it."""

    model_config = ConfigDict(frozen=True)

    event: HookEvent
    session_key: str
    harness: str
    project: str | None
    project_normalized: str | None
    project_path: str | None = None
    branch: str | None = None
    machine_id: str | None = None
    machine_name: str | None = None
    user: str | None = None
    transcript_path: str | None = None
    prompt: str | None = None
    source: str | None = None
    trigger: str | None = None
    custom_instructions: str | None = None
    session_context: str | None = None
    reason: str | None = None
    content: str | None = None
    compact_summary: str | None = None
    last_assistant_message: str | None = None
    compacted: bool = False
    subagent_id: str | None = None
    subagent_type: str | None = None
    previous_session_key: str | None = None
    idempotency_key: str | None = None
    parent_session_key: str | None = None
    transcript: TranscriptDelta | None = None
    transcript_chars: int | None = None
    context_tokens: int | None = None
    injection_cap_chars: int | None = None
    redactions: int = 0  # secrets replaced in this hook's text before anything was stored
    # Who the session is, for a hand-off addressed by name: the client-set ``user``, else the name
    # of the token the hook came with (set by the hooks handler; recovery/handoff.py).
    person: str | None = None


class HookResponse(BaseModel):
    """What the service answers; rendered as valid Claude Code hook output."""

    event: HookEvent
    additional_context: str | None = None

    def to_claude_code(self) -> dict[str, Any]:
        if not self.additional_context:
            return {}
        return {
            "hookSpecificOutput": {
                "hookEventName": self.event.claude_code_name,
                "additionalContext": self.additional_context,
            }
        }
