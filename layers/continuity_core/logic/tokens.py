"""Issuing and checking API tokens. Tokens are random, shown once, stored only as sha256 hashes."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import uuid
from datetime import timedelta

from continuity_core.models.tokens import (
    CreateTokenRequest,
    Scope,
    TokenCreated,
    TokenRecord,
    TokenView,
)
from continuity_core.ports import Clock, TokenStore
from continuity_core.redaction import redact

TOKEN_PREFIX = "ctn_"
DEFAULT_AGENT = "default"
# The bootstrap token (its hash in the deployment's configuration) is the admin of the default agent.
BOOTSTRAP_ID = "bootstrap"


def token_sha256(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class TokenService:
    def __init__(self, store: TokenStore, clock: Clock, bootstrap_sha256: str | None = None) -> None:
        self._store = store
        self._clock = clock
        self._bootstrap = (bootstrap_sha256 or "").lower() or None

    def create(self, request: CreateTokenRequest) -> TokenCreated:
        now = self._clock()
        secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
        record = TokenRecord(
            token_id=uuid.uuid4().hex[:16],
            token_sha256=token_sha256(secret),
            agent_id=request.agent_id,
            scopes=list(request.scopes),
            name=request.name,
            created_at=now,
            expires_at=now + timedelta(days=request.expires_in_days) if request.expires_in_days else None,
        )
        self._store.put(record)
        return TokenCreated(token=secret, **view(record).model_dump())

    def list(self) -> list[TokenView]:
        return [view(r) for r in sorted(self._store.all(), key=lambda r: r.created_at)]

    def revoke(self, token_id: str) -> TokenView | None:
        record = self._store.revoke(token_id, self._clock())
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


def view(record: TokenRecord) -> TokenView:
    """A token as listed. Its name redacted: names stored before the name rule may hold a secret,
    and the token routes answer unredacted (a new token's secret is their answer)."""
    shown = TokenView.model_validate(record.model_dump(exclude={"token_sha256"}))
    return shown.model_copy(update={"name": redact(shown.name)}) if shown.name else shown
