from datetime import UTC, datetime, timedelta

from continuity_core.logic.ratelimit import RateLimiter


class SharedCounter:
    """Several instances share one window total, as they do through DynamoDB."""

    def __init__(self) -> None:
        self.totals: dict[tuple[str, int], int] = {}
        self.calls = 0

    def add(self, key: str, window: int, count: int, expires_at: int) -> int:
        self.calls += 1
        self.totals[key, window] = self.totals.get((key, window), 0) + count
        return self.totals[key, window]


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 11, 22, 12, 0, 10, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def test_requests_beyond_the_limit_wait_for_the_next_minute() -> None:
    clock = Clock()
    limiter = RateLimiter(SharedCounter(), limit_per_minute=30, clock=clock, flush_every=5)

    answers = [limiter.admit("token") for _ in range(31)]

    assert answers[:30] == [None] * 30
    assert answers[30] == 50  # seconds left in the minute
    clock.now += timedelta(seconds=50)
    assert limiter.admit("token") is None


def test_instances_enforce_the_limit_together_within_the_batch_overshoot() -> None:
    counter, clock = SharedCounter(), Clock()
    instances = [RateLimiter(counter, limit_per_minute=100, clock=clock, flush_every=10) for _ in range(3)]

    admitted = sum(1 for n in range(400) if instances[n % 3].admit("token") is None)

    assert 100 <= admitted <= 100 + 3 * 10
    assert counter.calls <= admitted // 10 + 3  # one shared write per batch, not per request


def test_tokens_are_limited_separately() -> None:
    limiter = RateLimiter(SharedCounter(), limit_per_minute=10, clock=Clock(), flush_every=1)

    for _ in range(10):
        limiter.admit("a")

    assert limiter.admit("a") is not None
    assert limiter.admit("b") is None
