"""The TokenStore contract: the in-memory fake and DynamoDB (moto) behave alike."""

from __future__ import annotations

import uuid
from datetime import timedelta

from continuity_core.models.scopes import Scope
from continuity_core.models.tokens import TokenRecord
from tests.contract.conftest import T0, StoreSet


def record(agent: str, scopes: tuple[Scope, ...] = (Scope.HOOKS, Scope.READ)) -> TokenRecord:
    return TokenRecord(
        token_id=uuid.uuid4().hex[:16],
        token_sha256=uuid.uuid4().hex * 2,
        agent_id=agent,
        scopes=list(scopes),
        name="laptop",
        created_at=T0,
        expires_at=T0 + timedelta(days=30),
    )


def test_a_token_is_found_by_its_hash_and_listed_under_its_agent(stores: StoreSet, agent: str) -> None:
    token = record(agent)
    stores.tokens.put(token)
    assert stores.tokens.by_hash(token.token_sha256) == token
    assert stores.tokens.for_agent(agent) == [token]
    assert stores.tokens.by_hash("0" * 64) is None


def test_an_agent_lists_only_its_own_tokens(stores: StoreSet, agent: str) -> None:
    own, other = record(agent), record(agent + "-other")
    stores.tokens.put(own)
    stores.tokens.put(other)
    assert stores.tokens.for_agent(agent) == [own]
    assert stores.tokens.for_agent(agent + "-other") == [other]
    assert stores.tokens.for_agent(agent + "-nobody") == []


def test_a_revoked_token_is_kept_marked_revoked_once(stores: StoreSet, agent: str) -> None:
    token = record(agent)
    stores.tokens.put(token)
    revoked = stores.tokens.revoke(agent, token.token_id, T0 + timedelta(hours=1))
    again = stores.tokens.revoke(agent, token.token_id, T0 + timedelta(hours=2))
    assert revoked is not None and revoked.revoked_at == T0 + timedelta(hours=1)
    assert again == revoked
    assert stores.tokens.by_hash(token.token_sha256) == revoked
    assert stores.tokens.for_agent(agent) == [revoked]


def test_another_agent_cannot_revoke_a_token_it_does_not_own(stores: StoreSet, agent: str) -> None:
    token = record(agent)
    stores.tokens.put(token)

    assert stores.tokens.revoke(agent + "-other", token.token_id, T0) is None
    assert stores.tokens.by_hash(token.token_sha256) == token  # still valid


def test_revoking_an_unknown_token_answers_none(stores: StoreSet, agent: str) -> None:
    assert stores.tokens.revoke(agent, "no-such-token", T0) is None


def test_a_tenant_is_added_once_with_its_first_token(stores: StoreSet, agent: str) -> None:
    first, second = record(agent, tuple(Scope)), record(agent, tuple(Scope))

    assert stores.tokens.add_tenant(first) is True
    assert stores.tokens.add_tenant(second) is False

    assert agent in stores.tokens.tenants()
    assert stores.tokens.for_agent(agent) == [first]  # the refused one wrote nothing
    assert stores.tokens.by_hash(second.token_sha256) is None
