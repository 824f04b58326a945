"""Faults on purpose (``continuity local --faults``): the setting, the botocore injector, the poller's."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import boto3
import botocore.handlers
import pytest
from botocore.exceptions import ClientError

from infra.local.faults import Faults, FaultSpecError, install_in_worker
from infra.local.poller import QueuePoller
from infra.local.provision import QueueResource, ensure_queue
from infra.wiring import QueueSpec, QueueTrigger
from tests.unit.local.support import runtime_with, throwaway

QUEUE = QueueSpec(key="jobs", env_var="JOBS_QUEUE_URL", visibility_timeout_s=60, max_receive_count=5)
TABLE = "faults-table"


def test_the_setting_names_each_fault_and_a_bare_name_means_always() -> None:
    faults = Faults.parse("aws_errors=0.2, sqs_duplicate ,sqs_delay=0.5,sqs_delay_s=12")

    assert faults == Faults(aws_errors=0.2, sqs_duplicate=1.0, sqs_delay=0.5, sqs_delay_s=12)
    assert faults.describe() == "aws_errors=0.2, sqs_duplicate=1, sqs_delay=0.5, sqs_delay_s=12"
    assert not Faults.parse("").any


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("aws_error=0.1", "unknown fault 'aws_error'"),
        ("aws_errors=lots", "not a number"),
        ("writer_crash=2", "not a share"),
        ("sqs_delay_s=1000", "900 s at most"),
    ],
)
def test_a_bad_setting_says_what_is_wrong(spec: str, says: str) -> None:
    with pytest.raises(FaultSpecError, match=says):
        Faults.parse(spec)


@pytest.fixture
def fresh_handlers(monkeypatch: pytest.MonkeyPatch) -> None:
    """The injector registers on botocore's built-in handlers: keep that to this test."""
    monkeypatch.setattr(botocore.handlers, "BUILTIN_HANDLERS", list(botocore.handlers.BUILTIN_HANDLERS))


def test_aws_errors_reach_the_caller_as_throttling_or_5xx_after_botocores_retries(
    moto_clients: tuple[Any, Any], fresh_handlers: None
) -> None:
    # Given a worker whose DynamoDB calls all fail
    install_in_worker(Faults(aws_errors=1.0), None, throwaway("hooks"))
    dynamodb = boto3.session.Session().client("dynamodb")  # a session made after, as in a worker

    # When it calls DynamoDB
    with pytest.raises(ClientError) as raised:
        dynamodb.list_tables()

    # Then it sees what AWS answers when busy or failing, after its own retries
    assert raised.value.response["Error"]["Code"] in {
        "ProvisionedThroughputExceededException",
        "InternalServerError",
    }
    assert raised.value.response["ResponseMetadata"]["RetryAttempts"] >= 1


def test_no_faults_leave_calls_alone(moto_clients: tuple[Any, Any], fresh_handlers: None) -> None:
    install_in_worker(Faults(), None, throwaway("hooks"))
    assert boto3.session.Session().client("dynamodb").list_tables()["TableNames"] == []


CRASH = """
import os, sys, boto3
from moto import mock_aws
from infra.local.faults import Faults, install_in_worker
from tests.unit.local.support import throwaway
os.environ.update(AWS_ACCESS_KEY_ID="x", AWS_SECRET_ACCESS_KEY="x", AWS_DEFAULT_REGION="us-east-1")
install_in_worker(Faults(writer_crash=1.0), None, throwaway("checkpoint_writer"))
with mock_aws():
    client = boto3.client("dynamodb")
    client.create_table(TableName="t", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST")
    client.get_item(TableName="t", Key={"pk": {"S": "a"}})
    print("read", flush=True)
    client.transact_write_items(TransactItems=[{"Put": {"TableName": "t", "Item": {"pk": {"S": "a"}}}}])
    print("committed", flush=True)
"""


def test_a_writer_crash_ends_the_process_after_its_reads_and_before_its_transaction() -> None:
    done = subprocess.run([sys.executable, "-c", CRASH], capture_output=True, text=True, timeout=120)

    assert done.returncode == 70, done.stderr
    assert done.stdout.split() == ["read"]


def test_a_writer_crash_can_fall_between_the_checkpoints_put_and_the_states_reset() -> None:
    script = CRASH.replace(
        "client.transact_write_items("
        'TransactItems=[{"Put": {"TableName": "t", "Item": {"pk": {"S": "a"}}}}])',
        'client.put_item(TableName="t", Item={"pk": {"S": "cp"}})\n    print("put", flush=True)\n'
        '    client.update_item(TableName="t", Key={"pk": {"S": "state"}}, UpdateExpression="SET v = :v",'
        ' ExpressionAttributeValues={":v": {"N": "1"}})',
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)

    assert done.returncode == 70, done.stderr
    assert done.stdout.split() == ["read", "put"]


@pytest.fixture
def queue(moto_clients: tuple[Any, Any]) -> QueueResource:
    return ensure_queue(moto_clients[1], QUEUE, "local-jobs")


def poller_with(sqs: Any, queue: QueueResource, faults: Faults) -> tuple[QueuePoller, list[str]]:
    seen: list[str] = []

    def consume(event: dict[str, Any], context: Any) -> None:
        seen.extend(json.loads(r["body"])["n"] for r in event["Records"])

    spec = throwaway("worker", queue_trigger=QueueTrigger(queue="jobs", batch_size=10))
    poller = QueuePoller(spec, queue, runtime_with((spec, consume)), sqs, wait_s=0, faults=faults)
    return poller, seen


def test_sqs_duplicate_hands_every_message_over_twice_then_deletes_it(
    moto_clients: tuple[Any, Any], queue: QueueResource
) -> None:
    sqs = moto_clients[1]
    poller, seen = poller_with(sqs, queue, Faults(sqs_duplicate=1.0))
    sqs.send_message(QueueUrl=queue.url, MessageBody=json.dumps({"n": "a"}))

    poller.poll_once()

    assert seen == ["a", "a"]
    assert poller.poll_once() == 0


def test_sqs_delay_holds_a_first_delivery_back(moto_clients: tuple[Any, Any], queue: QueueResource) -> None:
    sqs = moto_clients[1]
    poller, seen = poller_with(sqs, queue, Faults(sqs_delay=1.0, sqs_delay_s=60))
    sqs.send_message(QueueUrl=queue.url, MessageBody=json.dumps({"n": "a"}))

    poller.poll_once()

    # Not handed over, and invisible for the delay (not deleted: it comes back later)
    assert seen == []
    attributes = sqs.get_queue_attributes(QueueUrl=queue.url, AttributeNames=["All"])["Attributes"]
    assert attributes["ApproximateNumberOfMessagesNotVisible"] == "1"


def test_continuity_local_refuses_a_bad_faults_setting_before_starting(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Any
) -> None:
    from infra.local import main

    monkeypatch.setenv("CONTINUITY_LOCAL_FAULTS", "aws_errors=0.1,disk_full")

    code = main.main(["--data-dir", str(tmp_path), "--token", "t"])

    assert code == 2
    assert "unknown fault 'disk_full'" in capsys.readouterr().err
