"""DynamoDB's batch calls, sent again until every item is processed, with a bounded back-off.

Under load ``BatchWriteItem`` and ``BatchGetItem`` succeed while leaving part of the batch undone
(``UnprocessedItems``, ``UnprocessedKeys``); botocore's retries never see that, since no error
came. DynamoDB asks for the rest to be sent again after an exponential back-off: here with "full
jitter" (a random wait up to a doubling ceiling, so throttled writers spread out instead of
retrying in step) and a bounded number of attempts. What is still undone after them is
``StorageUnavailableError``, which the HTTP edge answers 503 with Retry-After (never a 500), and
the queue and the schedule retry later.

The only place in the code that loops on unprocessed items: the ledger, the pruner and transcript
reads all call these.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from continuity_core.kernel.aws import call
from continuity_core.kernel.errors import StorageUnavailableError

WRITE_BATCH = 25  # DynamoDB's limit per BatchWriteItem
GET_BATCH = 100  # and per BatchGetItem


@dataclass(frozen=True)
class Backoff:
    """How long to wait before attempt ``n + 1``: uniform in [0, min(cap, base * 2**n)].

    The defaults bound the waiting to 1.55 s at most over six attempts (0.78 s on average): the
    request paths that batch (a digest's decisions, a session listing) run under a 10 s timeout.
    """

    attempts: int = 6
    base_s: float = 0.05
    cap_s: float = 1.0
    sleep: Callable[[float], None] = time.sleep
    random: Callable[[], float] = random.random

    def delay(self, retry: int) -> float:
        return self.random() * min(self.cap_s, self.base_s * 2.0**retry)


BACKOFF = Backoff()


def batch_write(table: str, requests: list[dict[str, Any]], backoff: Backoff | None = None) -> None:
    """Every ``PutRequest`` / ``DeleteRequest`` done, 25 a call; StorageUnavailableError if not."""
    for start in range(0, len(requests), WRITE_BATCH):
        pending = {table: requests[start : start + WRITE_BATCH]}
        for _ in _until_processed("batch_write_item", "UnprocessedItems", pending, backoff or BACKOFF):
            pass


def batch_get(table: str, keys: list[dict[str, Any]], backoff: Backoff | None = None) -> list[dict[str, Any]]:
    """The items found under ``keys`` (in no particular order), 100 keys a call."""
    found: list[dict[str, Any]] = []
    for start in range(0, len(keys), GET_BATCH):
        pending = {table: {"Keys": keys[start : start + GET_BATCH]}}
        for response in _until_processed("batch_get_item", "UnprocessedKeys", pending, backoff or BACKOFF):
            found += response.get("Responses", {}).get(table, [])
    return found


def _until_processed(
    operation: str, unprocessed: str, pending: dict[str, Any], backoff: Backoff
) -> Iterator[dict[str, Any]]:
    """Each response, until nothing is left undone; then stop, or give up after ``attempts``."""
    for attempt in range(backoff.attempts):
        if attempt:
            backoff.sleep(backoff.delay(attempt - 1))
        response: dict[str, Any] = call("dynamodb", operation, RequestItems=pending)
        yield response
        pending = response.get(unprocessed) or {}
        if not pending:
            return
    raise StorageUnavailableError(f"{operation}: items left unprocessed after {backoff.attempts} attempts")
