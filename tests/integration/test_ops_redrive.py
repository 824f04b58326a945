"""`make redrive`: DLQ messages go back to the checkpoint queue, bodies and attributes intact (moto)."""

from __future__ import annotations

import json
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from infra import redrive
from infra.redrive import Queues


@pytest.fixture
def aws_clients(aws: dict[str, str]) -> tuple[Any, Any]:
    """(sqs, cloudformation) on the moto of tests/conftest.py's ``aws`` fixture."""
    return boto3.client("sqs"), boto3.client("cloudformation")


def make_queues(sqs: Any, name: str = "checkpoints") -> Queues:
    dlq_url = sqs.create_queue(QueueName=f"{name}-dlq")["QueueUrl"]
    dlq_arn = redrive.queue_arn(sqs, dlq_url)
    url = sqs.create_queue(
        QueueName=name,
        Attributes={"RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": 5})},
    )["QueueUrl"]
    return Queues(queue_url=url, dlq_url=dlq_url)


def dead_letters(sqs: Any, queues: Queues, count: int) -> list[dict[str, Any]]:
    sent = []
    for n in range(count):
        body = json.dumps({"agent_id": "a", "session_key": f"s{n}", "flush_token": f"t{n}"})
        attributes = {"origin": {"DataType": "String", "StringValue": f"hooks-{n}"}}
        sqs.send_message(QueueUrl=queues.dlq_url, MessageBody=body, MessageAttributes=attributes)
        sent.append({"body": body, "origin": f"hooks-{n}"})
    return sent


def drain(sqs: Any, url: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    while True:
        messages = sqs.receive_message(
            QueueUrl=url, MaxNumberOfMessages=10, MessageAttributeNames=["All"], WaitTimeSeconds=0
        ).get("Messages", [])
        if not messages:
            return found
        for message in messages:
            origin = message.get("MessageAttributes", {}).get("origin", {}).get("StringValue")
            found.append({"body": message["Body"], "origin": origin})
            sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])


def by_body(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(messages, key=lambda m: m["body"])


def test_copy_moves_every_message_back_with_its_body_and_attributes(aws_clients: tuple[Any, Any]) -> None:
    sqs, _ = aws_clients
    queues = make_queues(sqs)
    sent = dead_letters(sqs, queues, 23)  # more than two batches

    result = redrive.copy_messages(sqs, queues, receive_wait_s=0)

    assert (result.moved, result.failed, result.ok) == (23, [], True)
    assert by_body(drain(sqs, queues.queue_url)) == by_body(sent)
    assert drain(sqs, queues.dlq_url) == []


def test_auto_falls_back_to_copying_where_there_is_no_move_task(aws_clients: tuple[Any, Any]) -> None:
    sqs, _ = aws_clients
    queues = make_queues(sqs)
    dead_letters(sqs, queues, 3)

    result = redrive.redrive(sqs, queues, receive_wait_s=0)

    assert (result.method, result.moved) == ("copy", 3)
    assert redrive.depth(sqs, queues.queue_url) == 3


def test_max_messages_moves_no_more_than_asked(aws_clients: tuple[Any, Any]) -> None:
    sqs, _ = aws_clients
    queues = make_queues(sqs)
    dead_letters(sqs, queues, 12)

    result = redrive.redrive(sqs, queues, max_messages=5, receive_wait_s=0)

    assert result.moved == 5
    assert len(drain(sqs, queues.queue_url)) == 5
    assert len(drain(sqs, queues.dlq_url)) == 7


def test_an_empty_dlq_moves_nothing_and_succeeds(aws_clients: tuple[Any, Any]) -> None:
    sqs, _ = aws_clients
    queues = make_queues(sqs)

    result = redrive.copy_messages(sqs, queues, receive_wait_s=0)

    assert (result.moved, result.ok) == (0, True)


def test_a_refused_send_leaves_the_message_in_the_dlq_and_reports_it(aws_clients: tuple[Any, Any]) -> None:
    sqs, _ = aws_clients
    queues = make_queues(sqs)
    dead_letters(sqs, queues, 2)
    real_send = sqs.send_message_batch

    def send_only_the_first(QueueUrl: str, Entries: list[dict[str, Any]]) -> dict[str, Any]:
        answer = real_send(QueueUrl=QueueUrl, Entries=Entries[:1])
        refused = [{"Id": e["Id"], "Code": "InternalError", "SenderFault": False} for e in Entries[1:]]
        return {"Successful": answer.get("Successful", []), "Failed": refused}

    sqs.send_message_batch = send_only_the_first

    result = redrive.copy_messages(sqs, queues, receive_wait_s=0, visibility_timeout_s=0)

    assert result.moved == 1 and not result.ok
    assert "InternalError" in result.failed[0]
    assert len(drain(sqs, queues.queue_url)) == 1
    assert len(drain(sqs, queues.dlq_url)) == 1


def test_the_move_task_is_used_where_sqs_has_it() -> None:
    sqs = boto3.client("sqs", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x")
    queues = Queues("https://sqs/q", "https://sqs/q-dlq")
    arns = {
        "https://sqs/q": "arn:aws:sqs:us-east-1:1:q",
        "https://sqs/q-dlq": "arn:aws:sqs:us-east-1:1:q-dlq",
    }
    stub = Stubber(sqs)
    for url in (queues.dlq_url, queues.queue_url):
        stub.add_response(
            "get_queue_attributes",
            {"Attributes": {"QueueArn": arns[url]}},
            {"QueueUrl": url, "AttributeNames": ["QueueArn"]},
        )
    stub.add_response(
        "start_message_move_task",
        {"TaskHandle": "h1"},
        {"SourceArn": arns[queues.dlq_url], "DestinationArn": arns[queues.queue_url]},
    )
    running = {"TaskHandle": "h1", "Status": "RUNNING", "ApproximateNumberOfMessagesMoved": 2}
    stub.add_response("list_message_move_tasks", {"Results": [running]})
    done = {**running, "Status": "COMPLETED", "ApproximateNumberOfMessagesMoved": 7}
    stub.add_response("list_message_move_tasks", {"Results": [done]})

    with stub:
        result = redrive.redrive(sqs, queues, sleep=lambda _: None)

    assert (result.method, result.moved, result.task_status, result.ok) == ("move-task", 7, "COMPLETED", True)
    stub.assert_no_pending_responses()


def stack_with_outputs(cloudformation: Any, stage: str, queues: Queues) -> None:
    outputs = {"CheckpointQueueUrl": queues.queue_url, "CheckpointDlqUrl": queues.dlq_url}
    template = {
        "Resources": {"Topic": {"Type": "AWS::SNS::Topic"}},
        "Outputs": {key: {"Value": value} for key, value in outputs.items()},
    }
    cloudformation.create_stack(StackName=f"Continuity-{stage}", TemplateBody=json.dumps(template))


def test_the_command_finds_the_queues_in_the_stage_outputs(
    aws_clients: tuple[Any, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    sqs, cloudformation = aws_clients
    queues = make_queues(sqs)
    stack_with_outputs(cloudformation, "dev", queues)
    dead_letters(sqs, queues, 4)

    code = redrive.main(["--stage", "dev", "--method", "copy"], sqs=sqs, cloudformation=cloudformation)

    assert code == 0
    assert "moved 4 message(s) by copy" in capsys.readouterr().out
    assert redrive.depth(sqs, queues.queue_url) == 4


def test_a_dry_run_only_reports_the_depth(
    aws_clients: tuple[Any, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    sqs, cloudformation = aws_clients
    queues = make_queues(sqs)
    dead_letters(sqs, queues, 2)

    code = redrive.main(
        ["--queue-url", queues.queue_url, "--dlq-url", queues.dlq_url, "--dry-run"],
        sqs=sqs,
        cloudformation=cloudformation,
    )

    assert code == 0
    assert "~2 message(s)" in capsys.readouterr().out
    assert redrive.depth(sqs, queues.dlq_url) == 2


def test_a_missing_stack_is_a_clear_error(
    aws_clients: tuple[Any, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    sqs, cloudformation = aws_clients

    code = redrive.main(["--stage", "nope"], sqs=sqs, cloudformation=cloudformation)

    assert code == 1
    assert "Continuity-nope" in capsys.readouterr().err


def test_local_needs_the_moto_endpoint() -> None:
    with pytest.raises(SystemExit) as exit_info:
        redrive.parse_args(["--local"])

    assert exit_info.value.code == 2


def test_local_redrives_the_local_stacks_queues_on_a_moto_server(capsys: pytest.CaptureFixture[str]) -> None:
    from moto.server import ThreadedMotoServer

    from infra.local.provision import ensure_queue, physical_name
    from infra.wiring import CHECKPOINT_QUEUE

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        endpoint = f"http://{host}:{port}"
        sqs = boto3.client(
            "sqs",
            endpoint_url=endpoint,
            region_name="us-east-1",
            aws_access_key_id="x",
            aws_secret_access_key="x",
        )
        resource = ensure_queue(sqs, CHECKPOINT_QUEUE, physical_name(CHECKPOINT_QUEUE.key))
        dead_letters(sqs, Queues(resource.url, resource.dlq_url), 3)

        code = redrive.main(["--local", "--endpoint-url", endpoint])

        assert code == 0, capsys.readouterr().err
        assert "moved 3 message(s) by copy" in capsys.readouterr().out
        assert len(drain(sqs, resource.url)) == 3
    finally:
        server.stop()
