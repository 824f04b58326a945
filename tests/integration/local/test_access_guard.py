"""The access guard's reading of IAM: which requests a botocore call makes, and which a policy allows.

A small hand-made policy stands in for the synthesized one here (the synthesized policies are
checked in tests/infra/test_infra_permissions.py and enforced across the integration suite).
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from infra.local.access_guard import AccessGuard, Request
from infra.local.access_policies import BUCKET, QUEUE, TABLE, FunctionAccess, StackAccess, Statement
from infra.local.events import ACCOUNT_ID, REGION
from tests.integration.local.conftest import FAKE_AWS

TABLE_ARN = f"arn:aws:dynamodb:{REGION}:{ACCOUNT_ID}:table/t"
QUEUE_URL = f"https://sqs.{REGION}.amazonaws.com/{ACCOUNT_ID}/q"


def guard(*statements: Statement) -> AccessGuard:
    access = StackAccess(
        functions={"f": FunctionAccess(statements=statements, environment=())},
        resources={"table": TABLE, "queue": QUEUE, "bucket": BUCKET},
        partition_keys={"table": "pk"},
    )
    return AccessGuard(access, {"table": "t", "queue": "q", "bucket": "b"})


Conditions = dict[str, dict[str, tuple[str, ...]]]
LEADING_RATE: Conditions = {"ForAllValues:StringLike": {"dynamodb:LeadingKeys": ("RATE#*",)}}


def allow(
    *actions: str, resources: tuple[str, ...] = ("${table}",), conditions: Conditions | None = None
) -> Statement:
    return Statement("Allow", actions, resources, conditions or {})


READ = allow("dynamodb:GetItem", "dynamodb:Query", resources=("${table}", "${table}/index/*"))
RATE = allow("dynamodb:UpdateItem", conditions=LEADING_RATE)


def denied(g: AccessGuard, service: str, operation: str, **params: Any) -> Request | None:
    denial = g.denied("f", service, operation, params)
    return denial.request if denial else None


def test_an_update_is_allowed_only_on_items_whose_partition_key_has_the_granted_prefix() -> None:
    g = guard(READ, RATE)
    counter = {"pk": {"S": "RATE#token"}, "sk": {"S": "1"}}
    state = {"pk": {"S": "A#alice#S#s1"}, "sk": {"S": "STATE"}}

    assert denied(g, "dynamodb", "UpdateItem", TableName="t", Key=counter) is None
    assert denied(g, "dynamodb", "UpdateItem", TableName="t", Key=state) == Request(
        "dynamodb:UpdateItem", TABLE_ARN, ("A#alice#S#s1",)
    )
    assert denied(g, "dynamodb", "PutItem", TableName="t", Item=counter) is not None


def test_a_query_on_an_index_needs_the_index_arn_and_reads_its_partition_key() -> None:
    table_only = guard(allow("dynamodb:Query"))
    with_indexes = guard(READ)
    query = {"TableName": "t", "IndexName": "by_project", "KeyConditionExpression": "gsi1pk = :p"}

    assert denied(table_only, "dynamodb", "Query", **query) == Request(
        "dynamodb:Query", f"{TABLE_ARN}/index/by_project", None
    )
    assert denied(with_indexes, "dynamodb", "Query", **query) is None


def test_a_transaction_is_authorized_item_by_item_as_its_own_operations() -> None:
    g = guard(allow("dynamodb:PutItem", "dynamodb:ConditionCheckItem"))
    put = {"Put": {"TableName": "t", "Item": {"pk": {"S": "a"}}}}
    check = {"ConditionCheck": {"TableName": "t", "Key": {"pk": {"S": "a"}}, "ConditionExpression": "x"}}
    update = {"Update": {"TableName": "t", "Key": {"pk": {"S": "b"}}, "UpdateExpression": "SET y = :y"}}

    assert denied(g, "dynamodb", "TransactWriteItems", TransactItems=[put, check]) is None
    assert denied(g, "dynamodb", "TransactWriteItems", TransactItems=[put, update]) == Request(
        "dynamodb:UpdateItem", TABLE_ARN, ("b",)
    )


def test_a_batch_write_needs_batch_write_item_and_all_its_keys_within_a_key_condition() -> None:
    prefixed = allow("dynamodb:BatchWriteItem", conditions=LEADING_RATE)
    writes = [
        {"PutRequest": {"Item": {"pk": {"S": "RATE#a"}}}},
        {"DeleteRequest": {"Key": {"pk": {"S": "A#b"}}}},
    ]

    assert denied(guard(prefixed), "dynamodb", "BatchWriteItem", RequestItems={"t": writes[:1]}) is None
    assert denied(guard(prefixed), "dynamodb", "BatchWriteItem", RequestItems={"t": writes}) is not None
    assert denied(guard(READ), "dynamodb", "BatchWriteItem", RequestItems={"t": writes[:1]}) is not None


def test_queue_calls_are_authorized_on_the_queue_arn_and_batches_as_single_calls() -> None:
    g = guard(allow("sqs:SendMessage", "sqs:GetQueueUrl", resources=("${queue}",)))
    queue_arn = f"arn:aws:sqs:{REGION}:{ACCOUNT_ID}:q"

    assert denied(g, "sqs", "SendMessage", QueueUrl=QUEUE_URL, MessageBody="{}") is None
    assert denied(g, "sqs", "SendMessageBatch", QueueUrl=QUEUE_URL, Entries=[]) is None
    assert denied(g, "sqs", "GetQueueUrl", QueueName="q") is None
    assert denied(g, "sqs", "ReceiveMessage", QueueUrl=QUEUE_URL) == Request("sqs:ReceiveMessage", queue_arn)


def test_object_calls_are_authorized_per_object_and_a_batch_delete_per_key() -> None:
    g = guard(allow("s3:GetObject", "s3:DeleteObject", resources=("${bucket}/transcripts/*",)))

    assert denied(g, "s3", "GetObject", Bucket="b", Key="transcripts/a/1.gz") is None
    assert denied(g, "s3", "HeadObject", Bucket="b", Key="transcripts/a/1.gz") is None
    assert denied(g, "s3", "PutObject", Bucket="b", Key="transcripts/a/2.gz") is not None
    objects = [{"Key": "transcripts/a/1.gz"}, {"Key": "elsewhere/x"}]
    assert denied(g, "s3", "DeleteObjects", Bucket="b", Delete={"Objects": objects}) == Request(
        "s3:DeleteObject", "arn:aws:s3:::b/elsewhere/x"
    )
    assert denied(g, "s3", "ListObjectsV2", Bucket="b") == Request("s3:ListBucket", "arn:aws:s3:::b")


def test_an_explicit_deny_wins_over_an_allow() -> None:
    g = guard(allow("dynamodb:*"), Statement("Deny", ("dynamodb:DeleteItem",), ("${table}",)))

    assert denied(g, "dynamodb", "GetItem", TableName="t", Key={"pk": {"S": "a"}}) is None
    assert denied(g, "dynamodb", "DeleteItem", TableName="t", Key={"pk": {"S": "a"}}) is not None


def test_actions_match_in_any_case_and_resources_only_exactly() -> None:
    g = guard(allow("DynamoDB:getitem"))

    assert denied(g, "dynamodb", "GetItem", TableName="t", Key={"pk": {"S": "a"}}) is None
    assert denied(g, "dynamodb", "GetItem", TableName="T", Key={"pk": {"S": "a"}}) is not None


def test_a_call_of_a_service_the_guard_does_not_know_is_refused() -> None:
    assert denied(guard(allow("*", resources=("${table}",))), "lambda", "Invoke", FunctionName="x")


@pytest.mark.parametrize(
    "statement",
    [
        Statement(
            "Allow", ("dynamodb:GetItem",), ("*",), {"NumericLessThan": {"dynamodb:LeadingKeys": ("1",)}}
        ),
        Statement("Allow", ("dynamodb:GetItem",), ("*",), {"StringEquals": {"aws:SourceIp": ("1.2.3.4",)}}),
    ],
)
def test_a_policy_the_guard_cannot_evaluate_is_refused_when_it_is_built(statement: Statement) -> None:
    with pytest.raises(ValueError, match="cannot evaluate"):
        guard(statement)


# -- installed: botocore calls checked as the function that makes them --------------------------------


@pytest.fixture
def installed(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """A DynamoDB client on moto, made after the guard (only reads of table t) is installed."""
    from moto import mock_aws

    from infra.local import access_guard

    for name, value in FAKE_AWS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    access_guard.install(guard(READ))
    try:
        with mock_aws():
            yield boto3.session.Session().client("dynamodb")
    finally:
        access_guard.install(None)
        access_guard.take_denials()


def test_a_call_is_checked_only_while_a_function_runs(installed: Any) -> None:
    from infra.local.access_guard import AccessDenied, running_as

    item = {"pk": {"S": "a"}}
    with pytest.raises(ClientError, match="ResourceNotFoundException"):
        installed.put_item(TableName="t", Item=item)  # not a function's call: moto answers
    with running_as("f"), pytest.raises(AccessDenied, match=r"function f .* dynamodb:PutItem .*table/t"):
        installed.put_item(TableName="t", Item=item)


def test_a_task_a_function_submits_to_a_thread_pool_is_checked_as_that_function(installed: Any) -> None:
    from infra.local.access_guard import AccessDenied, running_as

    with running_as("f"), ThreadPoolExecutor(max_workers=2) as pool:
        put = pool.submit(installed.put_item, TableName="t", Item={"pk": {"S": "a"}})
        with pytest.raises(AccessDenied):
            put.result()


def test_a_process_that_runs_one_function_checks_every_call_as_that_function(installed: Any) -> None:
    from infra.local import access_guard

    access_guard.install(access_guard.installed(), process_function="f")

    with pytest.raises(access_guard.AccessDenied, match="function f"):
        installed.put_item(TableName="t", Item={"pk": {"S": "a"}})
