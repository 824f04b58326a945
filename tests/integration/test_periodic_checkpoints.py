"""Debounced periodic checkpoints through the hook handler, SQS and the writer, on moto."""

import json
import os
import re
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import boto3
import pytest

from infra import wiring
from tests.integration.conftest import prompt
from tests.support.api import InProcessService
from tests.support.cold_starts import reset_functions


def send_prompts(service: InProcessService, session: str, numbers: range) -> None:
    for n in numbers:
        status, body = service.hook("user-prompt-submit", prompt(session, n))
        assert (status, body) == (200, {})


def ranges(checkpoints: list[dict[str, Any]]) -> list[tuple[int, int, int]]:
    return [(c["first_prompt"], c["last_prompt"], c["prompt_count"]) for c in checkpoints]


def test_ten_prompts_then_ten_then_five_give_two_checkpoints(service: InProcessService) -> None:
    send_prompts(service, "s1", range(1, 11))
    service.drain_queue()
    send_prompts(service, "s1", range(11, 21))
    service.drain_queue()
    send_prompts(service, "s1", range(21, 26))
    service.drain_queue()

    checkpoints = service.session_checkpoints("s1")

    assert ranges(checkpoints) == [(1, 10, 10), (11, 20, 10)]
    assert {c["trigger"] for c in checkpoints} == {"periodic"}
    assert "step 10: refactor" in checkpoints[0]["digest"]
    assert "step 11: refactor" not in checkpoints[0]["digest"]


def test_a_burst_merges_into_one_flush_that_takes_the_latest_state(service: InProcessService) -> None:
    send_prompts(service, "burst", range(1, 16))

    delivered = service.drain_queue()

    assert delivered == 1  # prompts 11-15 merged into the flush already in flight
    assert ranges(service.session_checkpoints("burst")) == [(1, 15, 15)]


def named(checkpoints: list[dict[str, Any]]) -> list[int]:
    return sorted(int(n) for c in checkpoints for n in re.findall(r"^- step (\d+):", c["digest"], re.M))


def test_a_replayed_burst_of_25_prompts_is_named_whole_by_the_checkpoints(service: InProcessService) -> None:
    # Given a spool replayed faster than the queued flush runs: 25 prompts, then the session ends
    send_prompts(service, "replayed", range(1, 26))
    service.drain_queue()
    status, _ = service.hook("session-end", {"session_id": "replayed", "cwd": "/work/app", "reason": "exit"})

    checkpoints = service.session_checkpoints("replayed")

    # Then the first 20 were checkpointed on the hook path when the list filled, the rest at the end
    assert status == 200
    assert ranges(checkpoints) == [(1, 20, 20), (21, 25, 5)]
    assert named(checkpoints) == list(range(1, 26))


def test_a_flush_message_delivered_twice_writes_one_checkpoint(service: InProcessService) -> None:
    sqs = boto3.client("sqs")
    url = os.environ["CHECKPOINT_QUEUE_URL"]
    send_prompts(service, "twice", range(1, 11))
    message = sqs.receive_message(QueueUrl=url, AttributeNames=["All"])["Messages"][0]
    from tests.support.lambda_events import invoke, sqs_event

    first = invoke(wiring.CHECKPOINT_WRITER.key, sqs_event([message, message]))
    second = invoke(wiring.CHECKPOINT_WRITER.key, sqs_event([message]))

    assert first == {"batchItemFailures": []} and second == {"batchItemFailures": []}
    assert ranges(service.session_checkpoints("twice")) == [(1, 10, 10)]


def test_concurrent_prompts_of_one_session_are_all_counted(service: InProcessService) -> None:
    with ThreadPoolExecutor(max_workers=5) as pool:
        batches = [
            pool.submit(send_prompts, service, "concurrent", range(n * 4 + 1, n * 4 + 5)) for n in range(5)
        ]
        for batch in batches:
            batch.result()  # a failed hook in any thread fails the test
    service.drain_queue()

    checkpoints = service.session_checkpoints("concurrent")

    assert sum(c["prompt_count"] for c in checkpoints) == 20
    assert checkpoints[-1]["last_prompt"] == 20


def test_the_flush_waits_for_the_configured_sqs_delay(
    service: InProcessService, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CONTINUITY_FLUSH_DELAY_SECONDS", "3")
    reset_functions()
    send_prompts(service, "delayed", range(1, 11))

    attributes = boto3.client("sqs").get_queue_attributes(
        QueueUrl=os.environ["CHECKPOINT_QUEUE_URL"], AttributeNames=["ApproximateNumberOfMessagesDelayed"]
    )["Attributes"]

    assert attributes["ApproximateNumberOfMessagesDelayed"] == "1"
    assert service.drain_queue() == 0
    assert service.session_checkpoints("delayed") == []


def test_a_poison_message_is_reported_as_a_batch_item_failure(service: InProcessService) -> None:
    from tests.support.lambda_events import invoke, sqs_event

    good = {
        "MessageId": "good",
        "Body": json.dumps({"agent_id": "default", "session_key": "x", "flush_token": "t"}),
    }
    bad = {"MessageId": "bad", "Body": "not json"}

    result = invoke(wiring.CHECKPOINT_WRITER.key, sqs_event([good, bad]))

    assert result == {"batchItemFailures": [{"itemIdentifier": "bad"}]}
