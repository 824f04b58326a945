"""The health page's figures from the rate windows, without storage (tests/fakes/rate.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from continuity_core.admin.health import HealthReader
from continuity_core.admin.ports import Traffic
from continuity_core.admin.ratelimit import RateLimiter
from continuity_core.models.health import PrunerStatus, QueueDepth
from tests.fakes.rate import InMemoryRateCounter
from tests.fakes.stores import in_memory_stores
from tests.support.clock import Clock

T0 = datetime(2026, 11, 22, 9, 0, 1, tzinfo=UTC)


class Source:
    def __init__(self, counter: InMemoryRateCounter) -> None:
        self._counter = counter

    def queue_depths(self) -> tuple[QueueDepth, QueueDepth]:
        empty = QueueDepth(visible=0, in_flight=0, delayed=0)
        return empty, empty

    def traffic(self, keys: list[str], windows: list[int]) -> Traffic:
        return self._counter.traffic(keys, windows)

    def pruner(self) -> PrunerStatus:
        return PrunerStatus()


def test_the_health_shows_each_minutes_answers_over_400_and_the_last_hook_of_each_kind() -> None:
    # Given the bootstrap token's hooks over two minutes: a Codex stop, then a 409 and a 503
    clock = Clock(T0)
    counter = InMemoryRateCounter()
    limiter = RateLimiter(counter, limit_per_minute=1000, clock=clock)
    for harness, event, status in (
        ("codex", "stop", 200),
        ("claude-code", "user-prompt-submit", 409),
        ("my-harness", "session-start", 503),
    ):
        limiter.admit("bootstrap")
        limiter.saw("bootstrap", harness, event)
        limiter.settle("bootstrap", status)
        clock.now += timedelta(seconds=40)
    reader = HealthReader(in_memory_stores(clock).tokens, Source(counter), clock)

    # When an admin reads the health
    health = reader.health("default")

    # Then the minutes hold the requests and the answers over 400, oldest first
    minutes = [(m.requests, m.client_errors, m.server_errors) for m in health.requests_per_minute]
    assert minutes[-3:] == [(2, 1, 0), (1, 0, 1), (0, 0, 0)]
    # and each harness and event shows when it was last received (an unknown harness as other)
    assert [(h.harness, h.event, h.at) for h in health.last_hooks] == [
        ("claude-code", "user-prompt-submit", T0 + timedelta(seconds=40)),
        ("codex", "stop", T0),
        ("other", "session-start", T0 + timedelta(seconds=80)),
    ]
