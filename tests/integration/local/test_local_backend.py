"""The local stack's moto server is as atomic as DynamoDB: one request at a time.

The races it prevents are timing-dependent: without the lock, the transaction test fails in most
runs, not in every one.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from infra.local.backend import MotoBackend

WRITERS, PUTS = 3, 30


@pytest.fixture
def server() -> Iterator[dict[str, Any]]:
    backend = MotoBackend()
    url = backend.start()
    yield {
        "endpoint_url": url,
        "region_name": "us-east-1",
        "aws_access_key_id": "testing",
        "aws_secret_access_key": "testing",
    }
    backend.stop()


def test_writes_acknowledged_while_a_transaction_fails_are_kept(server: dict[str, Any]) -> None:
    # Given a table, and a transaction that writes 40 items and then fails a condition (moto copies
    # the table first and puts the copy back when the transaction fails)
    dynamodb = boto3.client("dynamodb", **server)
    table = f"t{time.monotonic_ns()}"
    dynamodb.create_table(
        TableName=table,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    dynamodb.put_item(TableName=table, Item={"pk": {"S": "taken"}})
    writes: list[Any] = [{"Put": {"TableName": table, "Item": {"pk": {"S": f"tx-{k}"}}}} for k in range(40)]
    condition = {
        "TableName": table,
        "Item": {"pk": {"S": "taken"}},
        "ConditionExpression": "attribute_not_exists(pk)",
    }
    failing = [*writes, {"Put": condition}]

    # When one client keeps running that transaction while others put new items
    stop = threading.Event()

    def keep_failing() -> None:
        other = boto3.client("dynamodb", **server)
        while not stop.is_set():
            with pytest.raises(ClientError):
                other.transact_write_items(TransactItems=failing)

    def put(writer: int) -> None:
        client = boto3.client("dynamodb", **server)
        for i in range(PUTS):
            client.put_item(TableName=table, Item={"pk": {"S": f"new-{writer}-{i}"}})

    failer = threading.Thread(target=keep_failing)
    failer.start()
    writers = [threading.Thread(target=put, args=(w,)) for w in range(WRITERS)]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join()
    stop.set()
    failer.join()

    # Then every acknowledged put is there (moto did not put its copy back over them), and nothing
    # of the failed transaction
    found = {item["pk"]["S"] for item in dynamodb.scan(TableName=table)["Items"]}
    assert found == {"taken"} | {f"new-{w}-{i}" for w in range(WRITERS) for i in range(PUTS)}


def test_a_long_poll_does_not_hold_back_other_requests(server: dict[str, Any]) -> None:
    # Given a long poll on an empty queue
    sqs = boto3.client("sqs", **server)
    url = sqs.create_queue(QueueName=f"q{time.monotonic_ns()}")["QueueUrl"]
    received: list[Any] = []
    poll = threading.Thread(
        target=lambda: received.extend(
            sqs.receive_message(QueueUrl=url, WaitTimeSeconds=3).get("Messages", [])
        )
    )
    poll.start()
    time.sleep(0.3)

    # When another client sends a message and reads a table meanwhile
    began = time.monotonic()
    boto3.client("sqs", **server).send_message(QueueUrl=url, MessageBody="hello")
    boto3.client("dynamodb", **server).list_tables()
    answered_s = time.monotonic() - began
    poll.join()

    # Then they are answered at once, and the long poll receives the message
    assert answered_s < 1.5
    assert [m["Body"] for m in received] == ["hello"]
