"""Service configuration, read from the environment once per cold start and validated by pydantic.

A bad value fails at start-up with a message that names the variable, e.g.
``CONTINUITY_PROMPT_INTERVAL: Input should be less than or equal to 1000``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from functools import lru_cache

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from continuity_core.kernel.names import CONFIG_ENV_PREFIX as ENV_PREFIX


def environment_variable(field: str) -> str:
    """``prompt_interval`` -> ``CONTINUITY_PROMPT_INTERVAL``: how the functions receive a setting."""
    return f"{ENV_PREFIX}{field.upper()}"


def camel_case(field: str) -> str:
    """``prompt_interval`` -> ``promptInterval``: the setting's key in cdk.json's ``continuity`` context."""
    head, *rest = field.split("_")
    return head + "".join(part.capitalize() for part in rest)


class ConfigError(ValueError):
    """Raised at start-up when an environment value is out of range or malformed."""


class ContinuityConfig(BaseModel):
    """The ``continuity`` settings (environment variable = CONTINUITY_ + upper snake case).

    A plain model read from the environment by ``from_environment``: pydantic-settings did the same
    but cost ~13 ms of every cold start on the hook path.
    """

    model_config = ConfigDict(extra="ignore", frozen=True)

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> ContinuityConfig:
        env = os.environ if environ is None else environ
        names = {name: environment_variable(name) for name in cls.model_fields}
        values = {name: env[variable] for name, variable in names.items() if variable in env}
        return cls.model_validate(values)

    # Each description is the setting's meaning in the README's configuration table
    # (``python -m infra.config_table`` writes it; a test fails when the README differs).
    enabled: bool = Field(True, description="`false` answers every hook `{}` and records nothing")
    prompt_interval: int = Field(10, ge=1, le=1000, description="prompts between periodic checkpoints")
    time_interval_ms: int = Field(
        900_000,
        ge=60_000,
        le=3_600_000,
        description="time after which the next prompt makes a checkpoint due",
    )
    idle_close_minutes: int = Field(
        30,
        ge=5,
        le=1440,
        description="a session with pending prompts and no hook for this long gets its final checkpoint "
        "(trigger `idle`) from the idle sweep, which runs every 5 minutes",
    )
    max_checkpoints_per_session: int = Field(50, ge=1, le=500, description="the oldest beyond this go")
    retention_days: int = Field(
        7,
        ge=1,
        le=90,
        description="checkpoints and idle session state are pruned after this (the newest checkpoint "
        "of a still-active session is kept)",
    )
    recovery_budget_chars: int = Field(
        4000,
        ge=200,
        le=4000,
        description="characters the recovery block may take (the briefing is at most 4,000; 2,500 beside a "
        "harness's compaction summary; never more than the harness's cap)",
    )
    # Our additions (issue silent): the debounce delay and the project recovery window.
    flush_delay_seconds: int = Field(
        3, ge=0, le=900, description="SQS delay of a checkpoint flush (the debounce)"
    )
    recovery_window_hours: float = Field(
        4, gt=0, le=168, description="how far back a new session recovers its project's checkpoint"
    )
    cross_session_recovery: bool = Field(
        True,
        description="a new session recovers the project's previous session (within "
        "`recoveryWindowHours`, marked with its key and age); `false`: no carry-over (a /clear and an "
        "explicit `previous_session_key` still recover)",
    )
    cross_person_recovery: bool = Field(
        False,
        description="a new session also recovers the latest session of another person in the project "
        "(sessions name their person with the client's `continuity config user`); `false`: only its own "
        "person's, or a session naming no person (a hand-off is the way across)",
    )
    context_window_tokens: int = Field(
        200_000,
        ge=8_000,
        le=2_000_000,
        description="the agent's context window (tokens ≈ chars / 4), for the compaction nudge",
    )
    nudge_threshold_percent: int = Field(
        65,
        ge=10,
        le=95,
        description="past this share of the window, the next prompt's answer asks the agent (once) to "
        "write a digest (65: one turn can add 30 to 65k tokens and Claude Code compacts near 155k of 200k)",
    )
    # Live transcripts, sub-agent inheritance and session search.
    inherit_context: bool = Field(
        True,
        description="a sub-agent's start gets `## Inherited from Parent Session` (the issue's "
        "`subagents.inheritContext`); `false` leaves search available",
    )
    tail_chars: int = Field(
        3000,
        ge=0,
        le=6000,
        description="characters of the parent's transcript (since its latest checkpoint) a sub-agent "
        "inherits; also what always stays in DynamoDB when text moves to S3",
    )
    search_max_sessions: int = Field(
        50,
        ge=1,
        le=500,
        description="a project search reads the project's this-many newest sessions (its scope)",
    )
    transcript_chunk_chars: int = Field(
        1_048_576,
        ge=16_384,
        le=8_388_608,
        description="characters per S3 chunk: the appends stay in DynamoDB (compressed, one item each) "
        "until this much has come since the last chunk; then all but the last `tailChars` move to S3 as "
        "one gzip object",
    )
    transcript_retention_days: int = Field(
        7,
        ge=1,
        le=90,
        description="a transcript is deleted this long (+ up to a day) after its last append: its head "
        "and S3 bodies by the pruner, its appends by TTL ([retention](docs/ARCHITECTURE.md#retention))",
    )

    rate_limit_per_minute: int = Field(
        600,
        ge=10,
        le=100_000,
        description="requests per token and minute before 429 with `Retry-After`",
    )

    @property
    def nudge_point_tokens(self) -> int:
        """The context size (tokens) past which a prompt's answer carries the compaction nudge."""
        return self.context_window_tokens * self.nudge_threshold_percent // 100

    def to_environment(self) -> dict[str, str]:
        """The environment that reproduces this config (used by CDK and the local stack)."""
        out: dict[str, str] = {}
        for name, value in self.model_dump().items():
            text = str(value).lower() if isinstance(value, bool) else str(value)
            out[environment_variable(name)] = text
        return out


def describe_errors(error: ValidationError) -> str:
    parts = []
    for item in error.errors():
        field = ".".join(str(p) for p in item["loc"])
        parts.append(f"{environment_variable(field)}: {item['msg']} (got {item.get('input')!r})")
    return "; ".join(parts)


def load_config(values: dict[str, object] | None = None) -> ContinuityConfig:
    """Validate the config from the environment (or from explicit values); raise ConfigError."""
    try:
        if values is None:
            return ContinuityConfig.from_environment()
        return ContinuityConfig.model_validate(values)
    except ValidationError as error:
        raise ConfigError(f"invalid Continuity configuration: {describe_errors(error)}") from error


@lru_cache(maxsize=1)
def get_config() -> ContinuityConfig:
    return load_config()


def load_config_from_camel_case(values: dict[str, object]) -> ContinuityConfig:
    """Validate the config given in the issue's camelCase names (cdk.json context ``continuity``)."""
    snake = {"".join(f"_{c.lower()}" if c.isupper() else c for c in key): v for key, v in values.items()}
    unknown = sorted(set(snake) - set(ContinuityConfig.model_fields))
    if unknown:
        raise ConfigError(f"invalid Continuity configuration: unknown setting(s) {', '.join(unknown)}")
    return load_config(snake)
