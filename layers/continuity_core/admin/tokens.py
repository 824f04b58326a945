"""Issuing and checking API tokens. Tokens are random, shown once, stored only as sha256 hashes."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import uuid
from datetime import datetime, timedelta

from continuity_core.admin.ports import TokenStore
from continuity_core.kernel.clock import Clock
from continuity_core.models.scopes import Scope
from continuity_core.models.tokens import CreateTokenRequest, TokenCreated, TokenRecord, TokenView
from continuity_core.redaction import redact

TOKEN_PREFIX = "ctn_"
DEFAULT_AGENT = "default"
# The bootstrap token (its hash in the deployment's configuration) is the admin of the default agent.
BOOTSTRAP_ID = "bootstrap"


def token_sha256(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class ForeignAgentError(Exception):
    """An admin asked to manage another agent's tokens: a tenant admin manages its own agent only."""


class TenantExistsError(Exception):
    """The operator asked to create a tenant that exists."""


class UnknownTenantError(Exception):
    """The operator named an agent that is no tenant."""


class TokenService:
    """A tenant admin's tokens (``/api/tokens``): every call names the caller's agent, and reaches
    nothing of any other (another agent's token id is not found)."""

    def __init__(self, store: TokenStore, clock: Clock, bootstrap_sha256: str | None = None) -> None:
        self._store = store
        self._clock = clock
        self._bootstrap = (bootstrap_sha256 or "").lower() or None

    def create(self, agent_id: str, request: CreateTokenRequest) -> TokenCreated:
        """A token of the caller's own agent; naming another agent is refused (the operator creates
        tenants, ``infra/operator.py``)."""
        if request.agent_id not in (None, agent_id):
            raise ForeignAgentError(
                "an admin token manages its own agent's tokens only; a new agent (a tenant) is "
                "created by the operator (`continuity operator tenant create`)"
            )
        secret, record = new_token(self._clock(), agent_id, request)
        self._store.put(record)
        return created(secret, record)

    def list(self, agent_id: str) -> list[TokenView]:
        return [view(r) for r in sorted(self._store.for_agent(agent_id), key=lambda r: r.created_at)]

    def revoke(self, agent_id: str, token_id: str) -> TokenView | None:
        record = self._store.revoke(agent_id, token_id, self._clock())
        return view(record) if record else None

    def authorize(self, token: str) -> TokenRecord | None:
        """The token's record if it is valid now; the bootstrap token is the default agent's admin."""
        digest = token_sha256(token)
        if self._bootstrap and hmac.compare_digest(digest, self._bootstrap):
            return TokenRecord(
                token_id=BOOTSTRAP_ID,
                token_sha256=digest,
                agent_id=DEFAULT_AGENT,
                scopes=list(Scope),
                created_at=self._clock(),
            )
        record = self._store.by_hash(digest)
        return record if record and record.valid_at(self._clock()) else None


class TenantService:
    """The operator's: tenants and every agent's tokens. Reached only with the deployment's AWS
    credentials (``python -m infra.operator``), never through the API, so no tenant's token can."""

    def __init__(self, store: TokenStore, clock: Clock) -> None:
        self._store = store
        self._clock = clock

    def create_tenant(
        self, agent_id: str, name: str | None = None, expires_in_days: int | None = None
    ) -> TokenCreated:
        """A new agent and its first admin token, which then creates the agent's other tokens."""
        request = CreateTokenRequest(
            agent_id=agent_id, scopes=list(Scope), name=name, expires_in_days=expires_in_days
        )
        secret, record = new_token(self._clock(), agent_id, request)
        if not self._store.add_tenant(record):
            raise TenantExistsError(f"agent {agent_id!r} is a tenant already; its admins create its tokens")
        return created(secret, record)

    def add_admin(
        self, agent_id: str, name: str | None = None, expires_in_days: int | None = None
    ) -> TokenCreated:
        """Another admin token of an existing tenant (its admins lost theirs, or the migration made it
        a tenant with none)."""
        if agent_id not in self.tenants():
            raise UnknownTenantError(f"agent {agent_id!r} is no tenant; create it: tenant create")
        request = CreateTokenRequest(
            agent_id=agent_id, scopes=list(Scope), name=name, expires_in_days=expires_in_days
        )
        secret, record = new_token(self._clock(), agent_id, request)
        self._store.put(record)
        return created(secret, record)

    def tenants(self) -> list[str]:
        """Every tenant, the bootstrap token's agent included."""
        return sorted({DEFAULT_AGENT, *self._store.tenants()})

    def tokens(self) -> list[TokenView]:
        """Every tenant's tokens, by agent, oldest first."""
        records = [r for agent in self.tenants() for r in self._store.for_agent(agent)]
        return [view(r) for r in sorted(records, key=lambda r: (r.agent_id, r.created_at))]


def new_token(now: datetime, agent_id: str, request: CreateTokenRequest) -> tuple[str, TokenRecord]:
    secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
    record = TokenRecord(
        token_id=uuid.uuid4().hex[:16],
        token_sha256=token_sha256(secret),
        agent_id=agent_id,
        scopes=list(request.scopes),
        name=request.name,
        created_at=now,
        expires_at=now + timedelta(days=request.expires_in_days) if request.expires_in_days else None,
    )
    return secret, record


def created(secret: str, record: TokenRecord) -> TokenCreated:
    return TokenCreated(token=secret, **view(record).model_dump())


def view(record: TokenRecord) -> TokenView:
    """A token as listed. Its name redacted: names stored before the name rule may hold a secret,
    and the token routes answer unredacted (a new token's secret is their answer)."""
    shown = TokenView.model_validate(record.model_dump(exclude={"token_sha256"}))
    return shown.model_copy(update={"name": redact(shown.name)}) if shown.name else shown
