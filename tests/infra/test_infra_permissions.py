"""Each function's role grants exactly what its ``resources`` declare (least privilege)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from infra import wiring
from infra.wiring import Access

if TYPE_CHECKING:
    from tests.infra.synth import Synthesized

SPECS = {spec.key: spec for spec in wiring.FUNCTIONS}
TABLE_KEYS = {table.key for table in wiring.TABLES}
QUEUE_KEYS = {queue.key for queue in wiring.QUEUES}
TABLE_WRITES = {"dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:BatchWriteItem"}
TABLE_READS = {"dynamodb:GetItem", "dynamodb:Query"}
QUEUE_CONSUME = {"sqs:ReceiveMessage", "sqs:DeleteMessage"}


def _actions(synthesized: Synthesized, key: str) -> set[str]:
    """All actions of the policies attached to the function's role."""
    role = synthesized.stack.functions.functions[key].role
    assert role is not None
    role_id = synthesized.logical_id(role)
    actions: set[str] = set()
    for policy in synthesized.resources("AWS::IAM::Policy").values():
        if {"Ref": role_id} not in policy["Properties"]["Roles"]:
            continue
        for statement in policy["Properties"]["PolicyDocument"]["Statement"]:
            assert statement["Effect"] == "Allow"
            found = statement["Action"]
            actions.update([found] if isinstance(found, str) else found)
    return actions


def _tables_with(spec: wiring.FunctionSpec, *accesses: Access) -> bool:
    return any(key in TABLE_KEYS and access in accesses for key, access in spec.resources.items())


@pytest.mark.parametrize("key", SPECS)
def test_a_function_writes_the_table_only_if_it_declares_write_access(
    synthesized: Synthesized, key: str
) -> None:
    # Given the function's declared resources / When its role's actions are collected
    spec, actions = SPECS[key], _actions(synthesized, key)
    # Then table writes and reads are present exactly when declared
    may_write = _tables_with(spec, Access.WRITE, Access.READ_WRITE)
    may_read = _tables_with(spec, Access.READ, Access.READ_WRITE)
    assert (actions >= TABLE_WRITES) == may_write
    assert actions.isdisjoint(TABLE_WRITES) == (not may_write)
    assert (actions >= TABLE_READS) == may_read


@pytest.mark.parametrize("key", SPECS)
def test_a_function_sends_or_consumes_messages_only_if_it_declares_so(
    synthesized: Synthesized, key: str
) -> None:
    # Given the function's declared queue access and trigger
    spec, actions = SPECS[key], _actions(synthesized, key)
    sends = any(k in QUEUE_KEYS and a is Access.SEND for k, a in spec.resources.items())
    consumes = spec.queue_trigger is not None
    # Then SendMessage / ReceiveMessage+DeleteMessage follow the declaration
    assert ("sqs:SendMessage" in actions) == sends
    assert (actions >= QUEUE_CONSUME) == consumes
    assert actions.isdisjoint(QUEUE_CONSUME) == (not consumes)


@pytest.mark.parametrize("key", SPECS)
def test_a_function_may_only_write_to_its_own_log_group_beyond_its_resources(
    synthesized: Synthesized, key: str
) -> None:
    # When the actions outside DynamoDB, SQS and S3 are collected
    others = {a for a in _actions(synthesized, key) if not a.startswith(("dynamodb:", "sqs:", "s3:"))}
    # Then only log writing remains, and no action is a wildcard
    assert others == {"logs:CreateLogStream", "logs:PutLogEvents"}
    assert not any("*" in action for action in _actions(synthesized, key))


def test_read_api_cannot_put_hooks_can_send_and_the_writer_cannot_send(synthesized: Synthesized) -> None:
    # Then read_api cannot put, hooks can send, the writer cannot send, the authorizer only reads
    assert "dynamodb:PutItem" not in _actions(synthesized, wiring.READ_API.key)
    assert "sqs:SendMessage" in _actions(synthesized, wiring.HOOKS.key)
    assert "sqs:SendMessage" not in _actions(synthesized, wiring.CHECKPOINT_WRITER.key)
    authorizer = _actions(synthesized, wiring.AUTHORIZER.key)
    assert "dynamodb:GetItem" in authorizer
    assert not any(a.startswith("sqs:") or a in WRITES for a in authorizer)


WRITES = {"dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:BatchWriteItem"}
