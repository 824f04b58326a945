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


class PrunerStatus(BaseModel):
    pruned_before: datetime | None = Field(
        None, description="The pruner's cursor: every expiry bucket before it is done (None: never ran)."
    )
    running_until: datetime | None = Field(None, description="Set while a run holds the lease.")


class HealthAnswer(BaseModel):
    checked_at: datetime
    checkpoint_queue: QueueDepth
    dead_letter_queue: QueueDepth
    requests_per_minute: list[RequestMinute] = Field(
        description="Authorized API requests per minute over every token, oldest first (the rate "
        "limiter's shared windows; a warm function adds its count every 20 requests or 5 s)."
    )
    pruner: PrunerStatus
    not_shown: list[str] = Field(
        default_factory=list, description="Figures this route leaves to CloudWatch, and why."
    )
