"""The SQS event source on moto: batches, partial failures, redelivery and the DLQ."""

import json
from typing import Any

import pytest

from infra.local.poller import QueuePoller, failed_message_ids
from infra.local.provision import QueueResource, ensure_queue
from infra.wiring import QueueSpec, QueueTrigger
from tests.unit.local.support import runtime_with, throwaway

QUEUE = QueueSpec(key="jobs", env_var="JOBS_QUEUE_URL", visibility_timeout_s=60, max_receive_count=3)


class Consumer:
    """A handler that fails the messages whose body says so, and remembers every record."""

    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []
        self.raise_error = False

    def __call__(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        self.records.extend(event["Records"])
        if self.raise_error:
            raise RuntimeError("whole batch fails")
        failed = [r for r in event["Records"] if json.loads(r["body"]).get("fail")]
        return {"batchItemFailures": [{"itemIdentifier": r["messageId"]} for r in failed]}


@pytest.fixture
def queue(moto_clients: tuple[Any, Any]) -> QueueResource:
    return ensure_queue(moto_clients[1], QUEUE, "local-jobs")


def make_poller(sqs: Any, queue: QueueResource, consumer: Consumer, batch_size: int = 10) -> QueuePoller:
    spec = throwaway("worker", queue_trigger=QueueTrigger(queue="jobs", batch_size=batch_size))
    return QueuePoller(spec, queue, runtime_with((spec, consumer)), sqs, wait_s=0, retry_backoff_s=0)


def send(sqs: Any, queue: QueueResource, *bodies: dict[str, Any]) -> None:
    for body in bodies:
        sqs.send_message(QueueUrl=queue.url, MessageBody=json.dumps(body))


def backlog(sqs: Any, url: str) -> int:
    attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    return sum(
        int(attributes[k]) for k in ("ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible")
    )


def test_a_batch_is_a_real_sqs_event_and_successes_are_deleted(
    moto_clients: tuple[Any, Any], queue: QueueResource
) -> None:
    sqs = moto_clients[1]
    consumer = Consumer()
    send(sqs, queue, {"n": 1}, {"n": 2})

    handled = make_poller(sqs, queue, consumer).poll_once()

    assert handled == 2
    record = consumer.records[0]
    assert record["eventSource"] == "aws:sqs"
    assert record["eventSourceARN"] == queue.arn
    assert record["attributes"]["ApproximateReceiveCount"] == "1"
    assert {"SentTimestamp", "ApproximateFirstReceiveTimestamp"} <= set(record["attributes"])
    assert backlog(sqs, queue.url) == 0


def test_the_batch_size_caps_a_batch(moto_clients: tuple[Any, Any], queue: QueueResource) -> None:
    sqs = moto_clients[1]
    consumer = Consumer()
    send(sqs, queue, *({"n": n} for n in range(5)))

    assert make_poller(sqs, queue, consumer, batch_size=2).poll_once() == 2


def test_reported_failures_are_redelivered_then_dead_lettered(
    moto_clients: tuple[Any, Any], queue: QueueResource
) -> None:
    sqs = moto_clients[1]
    consumer = Consumer()
    send(sqs, queue, {"n": 1}, {"n": 2, "fail": True})
    poller = make_poller(sqs, queue, consumer)

    for _ in range(QUEUE.max_receive_count + 2):
        poller.poll_once()

    deliveries = [r["attributes"]["ApproximateReceiveCount"] for r in consumer.records if "fail" in r["body"]]
    assert deliveries == ["1", "2", "3"]  # max_receive_count deliveries, then the DLQ
    assert backlog(sqs, queue.url) == 0
    dead = sqs.receive_message(QueueUrl=queue.dlq_url)["Messages"]
    assert [json.loads(m["Body"]) for m in dead] == [{"n": 2, "fail": True}]


def test_a_handler_exception_leaves_the_whole_batch(
    moto_clients: tuple[Any, Any], queue: QueueResource
) -> None:
    sqs = moto_clients[1]
    consumer = Consumer()
    consumer.raise_error = True
    send(sqs, queue, {"n": 1}, {"n": 2})
    poller = make_poller(sqs, queue, consumer)

    poller.poll_once()
    consumer.raise_error = False
    poller.poll_once()

    assert [r["attributes"]["ApproximateReceiveCount"] for r in consumer.records] == ["1", "1", "2", "2"]
    assert backlog(sqs, queue.url) == 0


@pytest.mark.parametrize(
    ("result", "failed"),
    [
        (None, set()),
        ({}, set()),
        ({"batchItemFailures": []}, set()),
        ({"batchItemFailures": None}, set()),
        ({"batchItemFailures": [{"itemIdentifier": "b"}]}, {"b"}),
        ({"batchItemFailures": [{"itemIdentifier": ""}]}, None),
        ({"batchItemFailures": [{"itemIdentifier": "zzz"}]}, None),
        ({"batchItemFailures": [{"id": "a"}]}, None),
        ({"batchItemFailures": "a"}, None),
        ("ok", None),
    ],
)
def test_partial_batch_responses_are_read_as_lambda_reads_them(result: Any, failed: set[str] | None) -> None:
    assert failed_message_ids(result, ["a", "b"]) == failed


class Marks:
    def __init__(self) -> None:
        self.drained_at: list[tuple[str, int]] = []
        self.size = 0

    def mark(self) -> int:
        return self.size

    def drained(self, queue_name: str, mark: int) -> None:
        self.drained_at.append((queue_name, mark))


def test_an_empty_queue_is_reported_drained_once_per_activity(
    moto_clients: tuple[Any, Any], queue: QueueResource
) -> None:
    sqs = moto_clients[1]
    consumer = Consumer()
    marks = Marks()
    spec = throwaway("worker", queue_trigger=QueueTrigger(queue="jobs"))
    poller = QueuePoller(spec, queue, runtime_with((spec, consumer)), sqs, wait_s=0, listener=marks)

    marks.size = 10
    poller.poll_once()  # empty at start: drained at 10
    poller.poll_once()  # still empty, nothing new: not reported again
    send(sqs, queue, {"n": 1})
    marks.size = 20
    poller.poll_once()  # handles the message
    marks.size = 30
    poller.poll_once()  # empty again: drained at 30

    assert marks.drained_at == [("local-jobs", 10), ("local-jobs", 30)]
