"""The health route's answer (admin scope): what the service already keeps, read, never counted anew."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field


class QueueDepth(BaseModel):
    visible: int = Field(description="Messages waiting (ApproximateNumberOfMessages).")
    in_flight: int = Field(description="Being handled (ApproximateNumberOfMessagesNotVisible).")
    delayed: int = Field(
        description="Waiting out their delay (the debounce): ApproximateNumberOfMessagesDelayed."
    )


class RequestMinute(BaseModel):
    minute: datetime
    requests: int
    client_errors: int = Field(0, description="Answers 400-499 (429s included) the functions gave.")
    server_errors: int = Field(0, description="Answers 500 and over the functions gave.")


class LastHook(BaseModel):
    harness: str
    event: str
    at: datetime = Field(
        description="When a hook of this harness and event was last received: to the minute within "
        "the last 15 minutes, else to the hour (each instance refreshes the long-lived mark hourly)."
    )


class PrunerStatus(BaseModel):
    pruned_before: datetime | None = Field(
        None, description="The pruner's cursor: every expiry bucket before it is done (None: never ran)."
    )
    running_until: datetime | None = Field(None, description="Set while a run holds the lease.")


class HealthAnswer(BaseModel):
    checked_at: datetime
    agent_id: str | None = Field(
        None,
        description="Whose requests and hooks these are: the calling admin's agent (its tokens only); "
        "null for the operator's answer, every tenant's.",
    )
    checkpoint_queue: QueueDepth
    dead_letter_queue: QueueDepth
    requests_per_minute: list[RequestMinute] = Field(
        description="Authorized API requests per minute over the agent's tokens, oldest first, with the "
        "4xx and 5xx answers among them (the rate limiter's shared windows; a warm function adds "
        "its counts every 20 requests or 5 s)."
    )
    last_hooks: list[LastHook] = Field(
        default_factory=list, description="Each harness and event, when a hook of it was last received."
    )
    pruner: PrunerStatus
    not_shown: list[str] = Field(
        default_factory=list, description="Figures this route leaves to CloudWatch, and why."
    )
