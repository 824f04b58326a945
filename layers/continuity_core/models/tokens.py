"""API tokens: who may call, as which agent, with which scopes."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field, field_validator

from continuity_core.models.ids import AgentId, TokenName
from continuity_core.models.scopes import Scope


class WhoAmI(BaseModel):
    """The caller as the authorizer decided: its agent and scopes (never the token or its secret)."""

    agent_id: str
    scopes: list[Scope] = Field(description="What the token may do: hooks, read, admin.")


class TokenRecord(BaseModel):
    """A token as stored: never the secret, only its sha256."""

    model_config = ConfigDict(frozen=True)

    token_id: str
    token_sha256: str
    agent_id: str
    scopes: list[Scope]
    name: str | None = None
    created_at: datetime
    expires_at: datetime | None = None
    revoked_at: datetime | None = None

    def valid_at(self, now: datetime) -> bool:
        return self.revoked_at is None and (self.expires_at is None or now < self.expires_at)


class TokenView(BaseModel):
    """A token as listed: no hash, no secret."""

    token_id: str
    agent_id: str
    scopes: list[Scope]
    name: str | None = None
    created_at: datetime
    expires_at: datetime | None = None
    revoked_at: datetime | None = None


class CreateTokenRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    agent_id: AgentId | None = Field(
        None, description="The caller's own agent (the default); an admin cannot name another."
    )
    scopes: list[Scope] = Field(min_length=1, max_length=3)
    expires_in_days: int | None = Field(None, ge=1, le=3650, strict=True)
    name: TokenName | None = None

    @field_validator("scopes")
    @classmethod
    def _distinct(cls, scopes: list[Scope]) -> list[Scope]:
        return sorted(set(scopes))


class TokenCreated(TokenView):
    token: str = Field(description="The secret. Shown once; only its hash is stored.")


class TokenList(BaseModel):
    tokens: list[TokenView]
