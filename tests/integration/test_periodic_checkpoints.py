"""Debounced periodic checkpoints through the hook handler, SQS and the writer, on moto."""

import json
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import boto3
import pytest

from continuity_core import services
from tests.integration.conftest import prompt
from tests.support.api import InProcessService


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
    send_prompts(service, "burst", range(1, 26))

    delivered = service.drain_queue()

    assert delivered == 1  # prompts 20 merged into the flush already in flight
    assert ranges(service.session_checkpoints("burst")) == [(1, 25, 25)]


def test_a_flush_message_delivered_twice_writes_one_checkpoint(service: InProcessService) -> None:
    sqs = boto3.client("sqs")
    url = os.environ["CHECKPOINT_QUEUE_URL"]
    send_prompts(service, "twice", range(1, 11))
    message = sqs.receive_message(QueueUrl=url, AttributeNames=["All"])["Messages"][0]
    from functions.checkpoint_writer import handler as writer
    from tests.support.lambda_events import FakeContext, sqs_event

    first = writer.lambda_handler(sqs_event([message, message]), FakeContext())
    second = writer.lambda_handler(sqs_event([message]), FakeContext())

    assert first == {"batchItemFailures": []} and second == {"batchItemFailures": []}
    assert ranges(service.session_checkpoints("twice")) == [(1, 10, 10)]


def test_a_prompt_arriving_during_the_flush_is_kept_for_the_next_checkpoint(
    service: InProcessService,
) -> None:
    send_prompts(service, "race", range(1, 11))
    store = services.state_store()
    original_get = store.get
    raced = threading.Event()

    def get_then_race(agent_id: str, session_key: str) -> Any:
        state = original_get(agent_id, session_key)
        if not raced.is_set():  # a prompt lands between the writer's read and its commit
            raced.set()
            send_prompts(service, "race", range(11, 12))
        return state

    store.get = get_then_race  # type: ignore[method-assign]
    service.drain_queue()
    store.get = original_get  # type: ignore[method-assign]
    send_prompts(service, "race", range(12, 22))
    service.drain_queue()

    assert ranges(service.session_checkpoints("race")) == [(1, 11, 11), (12, 21, 10)]


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


def test_a_replayed_hook_with_the_same_idempotency_key_counts_once(service: InProcessService) -> None:
    for n in range(1, 11):
        body = {**prompt("replay", n), "idempotency_key": f"replay:user-prompt-submit:{n}"}
        service.hook("user-prompt-submit", body)
        service.hook("user-prompt-submit", body)  # the client's spool replays it
    service.drain_queue()

    assert ranges(service.session_checkpoints("replay")) == [(1, 10, 10)]


def test_only_the_newest_checkpoints_are_kept_per_session(
    service: InProcessService, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CONTINUITY_MAX_CHECKPOINTS_PER_SESSION", "3")
    monkeypatch.setenv("CONTINUITY_PROMPT_INTERVAL", "2")
    services.reset()
    for batch in range(5):
        send_prompts(service, "capped", range(batch * 2 + 1, batch * 2 + 3))
        service.drain_queue()

    checkpoints = service.session_checkpoints("capped")

    assert [c["sequence"] for c in checkpoints] == [3, 4, 5]
    assert ranges(checkpoints)[0] == (5, 6, 2)


def test_the_flush_waits_for_the_configured_sqs_delay(
    service: InProcessService, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CONTINUITY_FLUSH_DELAY_SECONDS", "3")
    services.reset()
    send_prompts(service, "delayed", range(1, 11))

    attributes = boto3.client("sqs").get_queue_attributes(
        QueueUrl=os.environ["CHECKPOINT_QUEUE_URL"], AttributeNames=["ApproximateNumberOfMessagesDelayed"]
    )["Attributes"]

    assert attributes["ApproximateNumberOfMessagesDelayed"] == "1"
    assert service.drain_queue() == 0
    assert service.session_checkpoints("delayed") == []


def test_a_poison_message_is_reported_as_a_batch_item_failure(service: InProcessService) -> None:
    from functions.checkpoint_writer import handler as writer
    from tests.support.lambda_events import FakeContext, sqs_event

    good = {
        "MessageId": "good",
        "Body": json.dumps({"agent_id": "default", "session_key": "x", "flush_token": "t"}),
    }
    bad = {"MessageId": "bad", "Body": "not json"}

    result = writer.lambda_handler(sqs_event([good, bad]), FakeContext())

    assert result == {"batchItemFailures": [{"itemIdentifier": "bad"}]}


def test_a_disabled_service_records_nothing(
    service: InProcessService, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CONTINUITY_ENABLED", "false")
    services.reset()
    send_prompts(service, "off", range(1, 11))

    assert service.drain_queue() == 0
    assert services.state_store().get("default", "off") is None


def test_pending_lists_stay_bounded_between_checkpoints_and_keep_the_newest(
    service: InProcessService, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CONTINUITY_PROMPT_INTERVAL", "100")
    services.reset()
    send_prompts(service, "long", range(1, 100))

    state = services.state_store().get("default", "long")

    assert state is not None and state.total_prompts == 99
    assert len(state.pending_snippets) <= 20 and len(state.pending_queries) <= 40
    assert state.pending_snippets[-1].startswith("step 99:")
