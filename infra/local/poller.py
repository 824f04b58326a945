"""The SQS event source: one poller thread per queue-triggered function, with real batches.

As Lambda's event source mapping with ``ReportBatchItemFailures``: successful records are deleted,
reported failures stay on the queue for redelivery, and a failed invocation leaves the whole batch.
Redelivery counts as a receive, so after ``max_receive_count`` receives moto's redrive policy moves
the message to the DLQ. To keep local retries quick, messages left on the queue are made visible
again after ``retry_backoff_s`` instead of the queue's visibility timeout.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from infra.local.access_guard import running_as
from infra.local.events import sqs_event, sqs_record_from_message
from infra.local.faults import FAULT_MARK, Faults
from infra.local.provision import QueueResource
from infra.local.runtime import Runtime
from infra.wiring import FunctionSpec

if TYPE_CHECKING:
    from mypy_boto3_sqs import SQSClient

log = logging.getLogger(__name__)

_BACKLOG_ATTRIBUTES = (
    "ApproximateNumberOfMessages",
    "ApproximateNumberOfMessagesNotVisible",
    "ApproximateNumberOfMessagesDelayed",
)


class DrainListener(Protocol):
    """Told when a queue was seen empty (nothing visible, in flight or delayed)."""

    def mark(self) -> int: ...

    def drained(self, queue_name: str, mark: int) -> None: ...


def failed_message_ids(result: Any, message_ids: Sequence[str]) -> set[str] | None:
    """The ids a partial batch response reports as failed; None if the response is invalid.

    As Lambda: no response, ``{}`` or an empty/null ``batchItemFailures`` is a complete success; an
    identifier that is missing, empty or not in the batch makes the whole batch a failure.
    """
    if result is None:
        return set()
    if not isinstance(result, dict):
        return None
    failures = result.get("batchItemFailures")
    if failures is None:
        return set()
    if not isinstance(failures, list):
        return None
    failed: set[str] = set()
    for item in failures:
        identifier = item.get("itemIdentifier") if isinstance(item, dict) else None
        if not isinstance(identifier, str) or identifier not in message_ids:
            return None
        failed.add(identifier)
    return failed


class QueuePoller:
    def __init__(
        self,
        spec: FunctionSpec,
        queue: QueueResource,
        runtime: Runtime,
        sqs: SQSClient,
        *,
        wait_s: int = 1,
        retry_backoff_s: int = 2,
        listener: DrainListener | None = None,
        faults: Faults | None = None,
    ) -> None:
        if spec.queue_trigger is None:
            raise ValueError(f"{spec.key} has no queue trigger")
        self.spec = spec
        self.queue = queue
        self._trigger = spec.queue_trigger
        self._runtime = runtime
        self._sqs = sqs
        self._wait_s = wait_s
        self._backoff_s = retry_backoff_s
        self._listener = listener
        self._faults = faults or Faults()
        self._chance = random.Random()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._unsettled = True  # whether the queue may hold messages we have not seen settle

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name=f"poller-{self.spec.key}", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=self.spec.timeout_s + self._wait_s + 5)

    def poll_once(self) -> int:
        """Receive one batch and hand it to the function; returns the number of messages.

        The event source mapping polls with the function's own role, so its SQS calls are checked
        against that grant too."""
        mark = self._listener.mark() if self._listener else 0
        with running_as(self.spec.key):
            messages = self._receive()
            if messages:
                self._unsettled = True
                self._process(messages)
            elif self._listener is not None and self._unsettled and self._is_empty():
                self._listener.drained(self.queue.name, mark)
                self._unsettled = False
        return len(messages)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.poll_once()
            except Exception:
                if self._stop.is_set():
                    return
                log.exception("poller %s: error talking to SQS", self.spec.key)
                self._stop.wait(1)

    def _receive(self) -> list[dict[str, Any]]:
        want = self._trigger.batch_size
        messages = self._receive_some(min(10, want), self._wait_s)
        if not messages:
            return []
        deadline = time.monotonic() + self._trigger.max_batching_window_s
        while len(messages) < want and not self._stop.is_set():
            window_left = deadline - time.monotonic()
            got = self._receive_some(min(10, want - len(messages)), 1 if window_left > 0 else 0)
            messages.extend(got)
            if not got and window_left <= 0:
                break
        return messages

    def _receive_some(self, count: int, wait_s: int) -> list[dict[str, Any]]:
        answer = self._sqs.receive_message(
            QueueUrl=self.queue.url,
            MaxNumberOfMessages=count,
            WaitTimeSeconds=wait_s,
            AttributeNames=["All"],
            MessageAttributeNames=["All"],
        )
        return [dict(m) for m in answer.get("Messages", [])]

    def _process(self, messages: list[dict[str, Any]]) -> None:
        messages = self._hold_back(messages)
        if not messages:
            return
        ids = [m["MessageId"] for m in messages]
        event = sqs_event(sqs_record_from_message(m, queue=self.queue.arn) for m in messages)
        if self._faults.sqs_duplicate and self._chance.random() < self._faults.sqs_duplicate:
            # At-least-once: the same records handed over once more; the first answer settles them.
            log.warning("%s %s: %d messages delivered twice", FAULT_MARK, self.spec.key, len(ids))
            self._runtime.invoke(self.spec.key, event)
        invocation = self._runtime.invoke(self.spec.key, event)
        failed = failed_message_ids(invocation.result, ids) if invocation.ok else None
        if failed is None:
            if invocation.ok:
                log.error("%s returned an invalid batch response: %r", self.spec.key, invocation.result)
            failed = set(ids)
        done = [m for m in messages if m["MessageId"] not in failed]
        left = [m for m in messages if m["MessageId"] in failed]
        for chunk in _chunks(done):
            self._sqs.delete_message_batch(
                QueueUrl=self.queue.url,
                Entries=[{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(chunk)],
            )
        for chunk in _chunks(left):
            self._sqs.change_message_visibility_batch(
                QueueUrl=self.queue.url,
                Entries=[
                    {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"], "VisibilityTimeout": self._backoff_s}
                    for i, m in enumerate(chunk)
                ],
            )
        if left:
            log.warning(
                "%s: %d of %d messages failed; redelivery in %d s",
                self.spec.key,
                len(left),
                len(messages),
                self._backoff_s,
            )

    def _hold_back(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The ``sqs_delay`` fault: a share of first deliveries comes back ``sqs_delay_s`` later."""
        share = self._faults.sqs_delay
        if not share:
            return messages
        first = [m for m in messages if m.get("Attributes", {}).get("ApproximateReceiveCount") == "1"]
        held = [m for m in first if self._chance.random() < share]
        for chunk in _chunks(held):
            self._sqs.change_message_visibility_batch(
                QueueUrl=self.queue.url,
                Entries=[
                    {
                        "Id": str(i),
                        "ReceiptHandle": m["ReceiptHandle"],
                        "VisibilityTimeout": int(self._faults.sqs_delay_s),
                    }
                    for i, m in enumerate(chunk)
                ],
            )
        if held:
            log.warning(
                "%s %s: %d messages held back %g s",
                FAULT_MARK,
                self.spec.key,
                len(held),
                self._faults.sqs_delay_s,
            )
        return [m for m in messages if m not in held]

    def _is_empty(self) -> bool:
        attributes: dict[str, str] = dict(
            self._sqs.get_queue_attributes(
                QueueUrl=self.queue.url,
                AttributeNames=list(_BACKLOG_ATTRIBUTES),  # type: ignore[arg-type]
            )["Attributes"]
        )
        return all(int(attributes.get(name, "0")) == 0 for name in _BACKLOG_ATTRIBUTES)


def _chunks(items: list[dict[str, Any]], size: int = 10) -> list[list[dict[str, Any]]]:
    return [items[i : i + size] for i in range(0, len(items), size)]
