"""rate_limit_overshoot_ratio: how far one token gets past its per-minute limit when its requests
spread over several warm instances (docs/SECURITY.md, Rate limits).

Each instance is a thread with its own ``RateLimiter`` (its own counts, as a warm Lambda instance
has), serving one request at a time from a queue the token's client fills; all of them add to one
shared window counter. The counter is the in-memory fake (tests/fakes/rate.py, held to DynamoDB's
by the contract suite) behind a lock, each call taking a DynamoDB-like round trip: moto's
``UpdateItem`` is not atomic across threads, DynamoDB's ``ADD`` is. The clock is a fake shared by
the instances (requests within one minute window, no minute boundary crossed): a burst (every
request at the same second) and a steady stream (the requests spread over 50 s, so the 5 s
settle flushes happen).

- rate_limit_overshoot_ratio: (answers admitted - limit) / limit, the worst of every scenario and
  repetition (goal <= 0.05);
- rate_limit_overshoot_ratio_<n>_instances: the same for n instances (worst of burst and steady);
- rate_limit_writes_per_request_below_limit: window writes per request of a token at half its
  limit on 4 instances (steady): the cost of counting, far from the limit;
- rate_limit_writes_per_request_over_limit: window writes per request of the 4-instance burst of
  1.5 x the limit (the writes near the limit buy the accuracy).

Run alone with ``python -m bench.bench_rate_limit``.
"""

from __future__ import annotations

import json
import queue
import random
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from continuity_core.admin.ports import WindowAdds, WindowTotals
from continuity_core.admin.ratelimit import RateLimiter
from tests.fakes.rate import InMemoryRateCounter

LIMIT = 600  # the default rate_limit_per_minute
KEY = "token"
REPETITIONS = 3
ROUND_TRIP_S = (0.001, 0.004)  # an UpdateItem's round trip, in-region
SERVICE_S = (0.001, 0.005)  # a request's own work after it is admitted
STEADY_SPAN_S = 50.0
WINDOW_START = datetime(2026, 11, 22, 12, 0, 5, tzinfo=UTC)


@dataclass(frozen=True)
class Scenario:
    instances: int
    requests: int
    steady: bool


class SharedCounter:
    """One window counter for every instance: DynamoDB's atomic ``ADD`` after half a round trip."""

    def __init__(self, rng: random.Random) -> None:
        self.store = InMemoryRateCounter()
        self._lock = threading.Lock()
        self._rng = rng

    def add(
        self, key: str, window: int, count: int, expires_at: int, adds: WindowAdds | None = None
    ) -> WindowTotals:
        half = self._rng.uniform(*ROUND_TRIP_S) / 2
        time.sleep(half)
        with self._lock:
            total = self.store.add(key, window, count, expires_at, adds)
        time.sleep(half)
        return total

    def keep_seen(self, key: str, seen: dict[str, int], expires_at: int) -> None:
        with self._lock:
            self.store.keep_seen(key, seen, expires_at)


class StreamClock:
    """The fake time of the n-th request taken: fixed for a burst, spread over the span if steady."""

    def __init__(self, requests: int, steady: bool) -> None:
        self._step = STEADY_SPAN_S / requests if steady else 0.0
        self.taken = 0

    def __call__(self) -> datetime:
        return WINDOW_START + timedelta(seconds=self.taken * self._step)


@dataclass(frozen=True)
class Outcome:
    admitted: int
    writes: int


def simulate(scenario: Scenario, seed: int) -> Outcome:
    rng = random.Random(seed)
    counter = SharedCounter(rng)
    clock = StreamClock(scenario.requests, scenario.steady)
    requests: queue.Queue[int] = queue.Queue()
    for n in range(scenario.requests):
        requests.put(n)
    admitted = [0] * scenario.instances
    taking = threading.Lock()
    service_times = [rng.uniform(*SERVICE_S) for _ in range(scenario.requests)]

    def instance(number: int) -> None:
        limiter = RateLimiter(counter, LIMIT, clock)
        while True:
            with taking:
                try:
                    n = requests.get_nowait()
                except queue.Empty:
                    return
                clock.taken = n
            if limiter.admit(KEY) is None:
                admitted[number] += 1
                time.sleep(service_times[n])
                limiter.settle(KEY, 200)
            else:
                limiter.settle(KEY, 429)

    threads = [threading.Thread(target=instance, args=(i,)) for i in range(scenario.instances)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return Outcome(admitted=sum(admitted), writes=counter.store.calls)


def overshoot(outcome: Outcome) -> float:
    return max(0, outcome.admitted - LIMIT) / LIMIT


def run() -> dict[str, float]:
    figures: dict[str, float] = {}
    worst = 0.0
    for instances in (4, 8, 16):
        ratios = [
            overshoot(simulate(Scenario(instances, LIMIT * 3 // 2, steady), seed))
            for steady in (False, True)
            for seed in range(REPETITIONS)
        ]
        figures[f"rate_limit_overshoot_ratio_{instances}_instances"] = max(ratios)
        worst = max(worst, *ratios)
    figures["rate_limit_overshoot_ratio"] = worst
    below = Scenario(instances=4, requests=LIMIT // 2, steady=True)
    over = Scenario(instances=4, requests=LIMIT * 3 // 2, steady=False)
    figures["rate_limit_writes_per_request_below_limit"] = simulate(below, 0).writes / below.requests
    figures["rate_limit_writes_per_request_over_limit"] = simulate(over, 0).writes / over.requests
    return figures


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
