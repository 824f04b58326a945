"""The checkpoint queue's message."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class FlushRequest(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    agent_id: str = Field(min_length=1, max_length=128)
    session_key: str = Field(min_length=1, max_length=256)
    flush_token: str = Field(min_length=1, max_length=64)
