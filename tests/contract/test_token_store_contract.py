"""The TokenStore contract: the in-memory fake and DynamoDB (moto) behave alike."""

from __future__ import annotations

import uuid
from datetime import timedelta

from continuity_core.models.tokens import Scope, TokenRecord
from tests.contract.conftest import T0, StoreSet


def record(agent: str) -> TokenRecord:
    return TokenRecord(
        token_id=uuid.uuid4().hex[:16],
        token_sha256=uuid.uuid4().hex * 2,
        agent_id=agent,
        scopes=[Scope.HOOKS, Scope.READ],
        name="laptop",
        created_at=T0,
        expires_at=T0 + timedelta(days=30),
    )


def test_a_token_is_found_by_its_hash_and_listed(stores: StoreSet, agent: str) -> None:
    token = record(agent)
    stores.tokens.put(token)
    assert stores.tokens.by_hash(token.token_sha256) == token
    assert token in stores.tokens.all()
    assert stores.tokens.by_hash("0" * 64) is None


def test_a_revoked_token_is_kept_marked_revoked_once(stores: StoreSet, agent: str) -> None:
    token = record(agent)
    stores.tokens.put(token)
    revoked = stores.tokens.revoke(token.token_id, T0 + timedelta(hours=1))
    again = stores.tokens.revoke(token.token_id, T0 + timedelta(hours=2))
    assert revoked is not None and revoked.revoked_at == T0 + timedelta(hours=1)
    assert again == revoked
    assert stores.tokens.by_hash(token.token_sha256) == revoked
    assert revoked in stores.tokens.all()


def test_revoking_an_unknown_token_answers_none(stores: StoreSet) -> None:
    assert stores.tokens.revoke("no-such-token", T0) is None
