"""Token items of the version before tenant admins, moved under their agents by the operator.

That version kept every agent's token ids under one partition (``TOKENS``) beside the hash items;
``python -m infra.operator migrate-tokens`` moves them (docs/SECURITY.md, migration). The items
below are written exactly as its ``DynamoTokenStore.put`` wrote them (commit ea0e9b1).
"""

from __future__ import annotations

import hashlib
import uuid
from datetime import UTC, datetime
from typing import Any

import boto3
import pytest

from continuity_core.admin.dynamo_tokens import record_values
from continuity_core.kernel.dynamo_items import to_attributes
from continuity_core.kernel.names import DLQ_ENV, QUEUE_ENV, TABLE_ENV
from continuity_core.models.scopes import Scope
from continuity_core.models.tokens import TokenRecord
from infra import operator as operator_cli
from infra.operator import Operator, Target
from tests.support import on_aws
from tests.support.cold_starts import reset_functions

T0 = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)


def put_as_before_tenant_admins(table: str, agent: str, scopes: list[Scope], revoked: bool = False) -> str:
    """A token as the previous version stored it (its hash item and its global index item)."""
    secret = f"ctn_{uuid.uuid4().hex}"
    record = TokenRecord(
        token_id=uuid.uuid4().hex[:16],
        token_sha256=hashlib.sha256(secret.encode()).hexdigest(),
        agent_id=agent,
        scopes=scopes,
        created_at=T0,
        revoked_at=T0 if revoked else None,
    )
    values = record_values(record)
    dynamodb = boto3.client("dynamodb")
    for key in (
        {"pk": "TOKEN#" + record.token_sha256, "sk": "TOKEN"},
        {"pk": "TOKENS", "sk": record.token_id},
    ):
        dynamodb.put_item(TableName=table, Item=to_attributes({**values, **key}))
    return secret


def legacy_items(table: str) -> list[dict[str, Any]]:
    query = boto3.client("dynamodb").query(
        TableName=table, KeyConditionExpression="pk = :pk", ExpressionAttributeValues={":pk": {"S": "TOKENS"}}
    )
    return list(query["Items"])


def test_migrated_tokens_keep_working_and_are_listed_and_revoked_by_their_own_admin_only(
    aws: dict[str, str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Given tokens of two agents stored by the previous version (one of alice's already revoked)
    reset_functions()
    table = aws[TABLE_ENV]
    alice_admin = put_as_before_tenant_admins(table, "alice", list(Scope))
    alice_hooks = put_as_before_tenant_admins(table, "alice", [Scope.HOOKS])
    put_as_before_tenant_admins(table, "alice", [Scope.READ], revoked=True)
    bob = put_as_before_tenant_admins(table, "bob", [Scope.HOOKS, Scope.READ])
    tokens = on_aws.token_service()
    # (they authorize before the migration too: the hash items do not move)
    assert tokens.authorize(alice_hooks) is not None

    # When the operator migrates, twice (a rerun finds nothing left)
    target = ["--table", table, "--queue-url", aws[QUEUE_ENV], "--dlq-url", aws[DLQ_ENV]]
    assert operator_cli.main([*target, "migrate-tokens"]) == 0
    assert operator_cli.main([*target, "migrate-tokens"]) == 0

    # Then the migration said what it moved, and no global token item is left
    assert capsys.readouterr().out.splitlines() == [
        "moved 4 token item(s) under their agents",
        "moved 0 token item(s) under their agents",
    ]
    assert legacy_items(table) == []
    # and every token authorizes as before, as its own agent
    for secret, agent in ((alice_admin, "alice"), (alice_hooks, "alice"), (bob, "bob")):
        record = tokens.authorize(secret)
        assert record is not None and record.agent_id == agent
    # and alice's admin lists alice's three (the revoked one still marked), bob's lists bob's only
    alice_listed = tokens.list("alice")
    assert len(alice_listed) == 3 and sum(t.revoked_at is not None for t in alice_listed) == 1
    assert [t.agent_id for t in tokens.list("bob")] == ["bob"]
    # and only alice's admin can revoke alice's token
    hooks_id = next(t.token_id for t in alice_listed if t.scopes == [Scope.HOOKS])
    assert tokens.revoke("bob", hooks_id) is None and tokens.authorize(alice_hooks) is not None
    assert tokens.revoke("alice", hooks_id) is not None and tokens.authorize(alice_hooks) is None
    # and both agents are tenants, for the operator's list and its fleet health
    operator = Operator(Target(table, aws[QUEUE_ENV], aws[DLQ_ENV]))
    assert operator.tenants.tenants() == ["alice", "bob", "default"]
    # and bob, migrated without an admin token, gets one from the operator, which manages bob's
    assert operator_cli.main([*target, "tenant", "create", "bob"]) == 1
    assert operator_cli.main([*target, "tenant", "admin", "bob"]) == 0
    bob_admin = capsys.readouterr().out.strip().splitlines()[-1]
    record = tokens.authorize(bob_admin)
    assert record is not None and record.agent_id == "bob" and Scope.ADMIN in record.scopes
    assert operator_cli.main([*target, "tenant", "admin", "carol"]) == 1  # no such tenant
