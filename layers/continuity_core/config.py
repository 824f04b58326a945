"""Service configuration, read from the environment once per cold start and validated by pydantic.

A bad value fails at start-up with a message that names the variable, e.g.
``CONTINUITY_PROMPT_INTERVAL: Input should be less than or equal to 1000``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from functools import lru_cache

from pydantic import BaseModel, ConfigDict, Field, ValidationError

ENV_PREFIX = "CONTINUITY_"


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
        names = {name: f"{ENV_PREFIX}{name.upper()}" for name in cls.model_fields}
        values = {name: env[variable] for name, variable in names.items() if variable in env}
        return cls.model_validate(values)

    enabled: bool = True
    prompt_interval: int = Field(10, ge=1, le=1000, description="Prompts between periodic checkpoints.")
    time_interval_ms: int = Field(
        900_000, ge=60_000, le=3_600_000, description="Time between periodic checkpoints."
    )
    max_checkpoints_per_session: int = Field(50, ge=1, le=500, description="Oldest checkpoints beyond go.")
    retention_days: int = Field(7, ge=1, le=90, description="Checkpoint and session-state retention.")
    recovery_budget_chars: int = Field(
        8000, ge=200, le=10_000, description="Characters reserved for the recovery block."
    )
    # Our additions (issue silent): the debounce delay and the project recovery window.
    flush_delay_seconds: int = Field(3, ge=0, le=900, description="SQS delay of a checkpoint flush.")
    recovery_window_hours: float = Field(
        4, gt=0, le=168, description="How far back a new session recovers its project's checkpoint."
    )
    cross_session_recovery: bool = Field(
        True,
        description="A new session recovers the project's previous session (within the recovery window); "
        "false: no carry-over between sessions (/clear and explicit previous sessions still recover).",
    )
    context_window_tokens: int = Field(
        200_000, ge=8_000, le=2_000_000, description="The agent's context window, for the compaction nudge."
    )
    nudge_threshold_percent: int = Field(
        65, ge=10, le=95, description="Nudge the agent to write a digest past this share of the window."
    )
    # Live transcripts, sub-agent inheritance and session search.
    inherit_context: bool = Field(True, description="Inject the parent's context at a sub-agent's start.")
    tail_chars: int = Field(
        3000, ge=0, le=6000, description="Parent transcript characters (since its checkpoint) inherited."
    )
    search_max_sessions: int = Field(
        50, ge=1, le=500, description="A project's most recent sessions a search reads (its scope)."
    )
    transcript_chunk_chars: int = Field(
        1_048_576,
        ge=16_384,
        le=8_388_608,
        description="Transcript characters per S3 chunk: appends stay in DynamoDB until this much "
        "has come since the last chunk, then move to S3 as one gzip object.",
    )
    transcript_retention_days: int = Field(
        7,
        ge=1,
        le=90,
        description="Transcripts (head item and S3 bodies) go this long after their last append.",
    )

    rate_limit_per_minute: int = Field(
        600, ge=10, le=100_000, description="Requests per token and minute before 429 with Retry-After."
    )

    def to_environment(self) -> dict[str, str]:
        """The environment that reproduces this config (used by CDK and the local stack)."""
        out: dict[str, str] = {}
        for name, value in self.model_dump().items():
            text = str(value).lower() if isinstance(value, bool) else str(value)
            out[f"{ENV_PREFIX}{name.upper()}"] = text
        return out


def describe_errors(error: ValidationError) -> str:
    parts = []
    for item in error.errors():
        field = ".".join(str(p) for p in item["loc"])
        parts.append(f"{ENV_PREFIX}{field.upper()}: {item['msg']} (got {item.get('input')!r})")
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
