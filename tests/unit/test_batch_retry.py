"""The one batch retry: what DynamoDB leaves unprocessed is sent again after a jittered, growing,
bounded wait; what is still left after the last attempt is "storage unavailable"."""

from __future__ import annotations

from typing import Any

import pytest

from continuity_core.kernel import dynamo_batch
from continuity_core.kernel.dynamo_batch import Backoff, batch_get, batch_write
from continuity_core.kernel.errors import StorageUnavailableError


class ThrottlingTable:
    """A fake DynamoDB batch API that leaves every item after the first ``accepts`` undone, for the
    first ``throttled`` calls."""

    def __init__(self, throttled: int, accepts: int = 1) -> None:
        self.throttled = throttled
        self.accepts = accepts
        self.calls: list[tuple[str, int]] = []
        self.written: list[str] = []
        self.items = {f"k{n}": {"pk": {"S": f"k{n}"}} for n in range(300)}

    def __call__(self, service: str, operation: str, RequestItems: dict[str, Any]) -> dict[str, Any]:
        assert service == "dynamodb"
        ((table, batch),) = RequestItems.items()
        entries = batch["Keys"] if operation == "batch_get_item" else batch
        self.calls.append((operation, len(entries)))
        done, left = (entries[: self.accepts], entries[self.accepts :]) if self.throttled else (entries, [])
        self.throttled = max(0, self.throttled - 1)
        if operation == "batch_write_item":
            self.written += [entry["PutRequest"]["Item"]["pk"]["S"] for entry in done]
            return {"UnprocessedItems": {table: left} if left else {}}
        found = [self.items[key["pk"]["S"]] for key in done]
        return {"Responses": {table: found}, "UnprocessedKeys": {table: {"Keys": left}} if left else {}}


def puts(count: int) -> list[dict[str, Any]]:
    return [{"PutRequest": {"Item": {"pk": {"S": f"k{n}"}}}} for n in range(count)]


def recording_backoff(waits: list[float], attempts: int = 6) -> Backoff:
    # random() = 1: every wait is its ceiling, so the schedule itself is visible
    return Backoff(attempts=attempts, sleep=waits.append, random=lambda: 1.0)


def test_a_throttled_batch_write_is_sent_again_with_growing_waits_until_every_item_is_stored(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Given a table that processes one item a call for the first three calls
    table = ThrottlingTable(throttled=3)
    monkeypatch.setattr(dynamo_batch, "call", table)
    waits: list[float] = []
    # When five puts are written
    batch_write("t", puts(5), recording_backoff(waits))
    # Then only what was left is sent again, after waits that double, and every item is stored once
    assert table.calls == [
        ("batch_write_item", 5),
        ("batch_write_item", 4),
        ("batch_write_item", 3),
        ("batch_write_item", 2),
    ]
    assert waits == [0.05, 0.1, 0.2]
    assert sorted(table.written) == [f"k{n}" for n in range(5)]


def test_a_batch_still_throttled_after_the_last_attempt_is_storage_unavailable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Given a table that never processes more than one item a call
    monkeypatch.setattr(dynamo_batch, "call", ThrottlingTable(throttled=100))
    waits: list[float] = []
    # When ten puts are written / Then the writer gives up after six attempts and five bounded waits
    with pytest.raises(StorageUnavailableError, match="left unprocessed after 6 attempts"):
        batch_write("t", puts(10), recording_backoff(waits))
    assert waits == [0.05, 0.1, 0.2, 0.4, 0.8]


def test_waits_are_random_below_a_ceiling_that_doubles_up_to_a_cap() -> None:
    # Given the default schedule with a random draw of one half
    backoff = Backoff(random=lambda: 0.5)
    # Then the n-th wait is half its ceiling, and no ceiling passes the cap
    assert [backoff.delay(n) for n in range(7)] == [0.025, 0.05, 0.1, 0.2, 0.4, 0.5, 0.5]
    assert Backoff(random=lambda: 0.0).delay(3) == 0.0  # full jitter: any wait down to none


def test_writes_go_25_to_a_call_and_reads_100(monkeypatch: pytest.MonkeyPatch) -> None:
    table = ThrottlingTable(throttled=0)
    monkeypatch.setattr(dynamo_batch, "call", table)

    batch_write("t", puts(60))
    found = batch_get("t", [{"pk": {"S": f"k{n}"}} for n in range(250)])

    assert table.calls == [
        ("batch_write_item", 25),
        ("batch_write_item", 25),
        ("batch_write_item", 10),
        ("batch_get_item", 100),
        ("batch_get_item", 100),
        ("batch_get_item", 50),
    ]
    assert len(found) == 250


def test_a_throttled_batch_read_returns_every_item_once_the_unprocessed_keys_are_fetched_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table = ThrottlingTable(throttled=2, accepts=2)
    monkeypatch.setattr(dynamo_batch, "call", table)
    waits: list[float] = []

    found = batch_get("t", [{"pk": {"S": f"k{n}"}} for n in range(5)], recording_backoff(waits))

    assert sorted(item["pk"]["S"] for item in found) == [f"k{n}" for n in range(5)]
    assert [count for _, count in table.calls] == [5, 3, 1]
    assert waits == [0.05, 0.1]
