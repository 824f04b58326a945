"""The rate counter's contract: the in-memory fake and DynamoDB (moto) keep the same windows."""

from __future__ import annotations

from typing import Any

import pytest

from continuity_core.admin.ports import WindowAdds, WindowTotals
from tests.contract.conftest import table_name
from tests.fakes.rate import InMemoryRateCounter

W = 29_000_000  # a minute window (epoch minutes)


@pytest.fixture(params=["memory", "dynamodb"])
def counter(request: pytest.FixtureRequest) -> Any:
    if request.param == "memory":
        return InMemoryRateCounter()
    from continuity_core.admin.dynamo_rate import DynamoRateCounter

    return DynamoRateCounter(table_name(request))


def test_a_window_sums_requests_and_answers_over_instances_and_keys(counter: Any, agent: str) -> None:
    first = counter.add(f"{agent}-t1", W, 20, W * 60 + 120, WindowAdds(client_errors=2))
    second = counter.add(f"{agent}-t1", W, 5, W * 60 + 120, WindowAdds(server_errors=1))
    counter.add(f"{agent}-t2", W + 1, 3, W * 60 + 180)

    traffic = counter.traffic([f"{agent}-t1", f"{agent}-t2", f"{agent}-none"], [W, W + 1, W + 2])

    assert (first.requests, second.requests) == (20, 25)
    assert traffic.requests == {W: 25, W + 1: 3}
    assert traffic.client_errors.get(W) == 2 and traffic.server_errors.get(W) == 1
    assert not traffic.client_errors.get(W + 1)


def test_answers_alone_add_to_a_fresh_window_and_the_total_stays_its_requests(
    counter: Any, agent: str
) -> None:
    # A request refused before it was admitted (a 413) counts no request, only its answer
    total = counter.add(f"{agent}-t", W, 0, W * 60 + 120, WindowAdds(client_errors=1))

    assert total.requests == 0
    assert counter.traffic([f"{agent}-t"], [W]).client_errors == {W: 1}


def test_a_window_counts_the_instances_that_joined_it_and_returns_them_with_its_requests(
    counter: Any, agent: str
) -> None:
    # Given two instances joining a token's window, the first adding twice
    key = f"{agent}-t"
    counter.add(key, W, 3, W * 60 + 120, WindowAdds(instances=1))
    counter.add(key, W, 2, W * 60 + 120, WindowAdds(instances=1))
    # When the first adds again (already counted), after answers alone
    counter.add(key, W, 0, W * 60 + 120, WindowAdds(client_errors=1))
    totals = counter.add(key, W, 4, W * 60 + 120)

    # Then every add reads back the window's requests and its two instances
    assert totals == WindowTotals(requests=9, instances=2)
    assert counter.add(key, W + 1, 1, W * 60 + 180) == WindowTotals(requests=1, instances=0)


def test_the_latest_sighting_of_each_hook_kind_wins_over_windows_and_the_long_lived_item(
    counter: Any, agent: str
) -> None:
    key = f"{agent}-t"
    counter.add(key, W, 1, W * 60 + 120, WindowAdds(seen={"codex#stop": 100, "other#stop": 50}))
    counter.add(key, W + 1, 1, W * 60 + 180, WindowAdds(seen={"codex#stop": 160}))
    counter.keep_seen(key, {"codex#stop": 90, "gemini#session-start": 10}, W * 60 + 10_000)
    counter.keep_seen(key, {"gemini#session-start": 20}, W * 60 + 10_000)

    seen = counter.traffic([key], [W, W + 1]).seen
    only_kept = counter.traffic([key], [W + 5]).seen

    assert seen == {"codex#stop": 160, "other#stop": 50, "gemini#session-start": 20}
    assert only_kept == {"codex#stop": 90, "gemini#session-start": 20}
