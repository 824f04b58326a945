import random
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest

from continuity_core.admin import health
from continuity_core.admin.ratelimit import RateLimiter, hook_kind, split_hook_kind
from tests.fakes.rate import InMemoryRateCounter


class SharedCounter(InMemoryRateCounter):
    """Several instances share one window total, as they do through DynamoDB."""

    @property
    def totals(self) -> dict[tuple[str, int], int]:
        return {key: window.hits for key, window in self.windows.items()}

    @property
    def errors(self) -> dict[tuple[str, int], tuple[int, int]]:
        return {key: (w.client_errors, w.server_errors) for key, w in self.windows.items()}

    @property
    def seen(self) -> dict[tuple[str, int], dict[str, int]]:
        return {key: window.seen for key, window in self.windows.items()}


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


def serve(instances: list[RateLimiter], requests: int, pick: Callable[[int], int]) -> int:
    """Requests of one token, each served by the instance ``pick`` names; returns those admitted."""
    admitted = 0
    for n in range(requests):
        limiter = instances[pick(n)]
        if limiter.admit("token") is None:
            admitted += 1
            limiter.settle("token", 200)
        else:
            limiter.settle("token", 429)
    return admitted


@pytest.mark.parametrize("spread", ["in turn", "at random"])
@pytest.mark.parametrize("count", [2, 4, 8, 16])
def test_instances_sharing_a_token_pass_its_limit_by_at_most_5_percent(count: int, spread: str) -> None:
    # Given warm instances of a token with a limit of 600, its requests within one second
    counter, clock, rng = SharedCounter(), Clock(), random.Random(count)
    instances = [RateLimiter(counter, limit_per_minute=600, clock=clock) for _ in range(count)]

    # When the token sends 900 requests over them
    pick = (lambda n: n % count) if spread == "in turn" else (lambda n: rng.randrange(count))
    admitted = serve(instances, 900, pick)

    # Then it gets its 600 and at most a request or two per instance more (not 20 each)
    assert 600 <= admitted <= 600 + min(count + 8, 30)


def test_far_below_the_limit_an_instance_writes_once_in_twenty_requests_not_each() -> None:
    # Given four warm instances of a token with a limit of 600
    counter, clock = SharedCounter(), Clock()
    instances = [RateLimiter(counter, limit_per_minute=600, clock=clock) for _ in range(4)]

    # When 200 requests arrive in a second (a third of the limit)
    admitted = serve(instances, 200, lambda n: n % 4)

    # Then each instance wrote its window's first answer, then once per 20 requests
    assert admitted == 200
    assert counter.calls <= 4 + 200 // 20


def test_the_window_fills_with_writes_closer_together_and_a_lone_instance_stops_at_the_limit() -> None:
    counter, clock = SharedCounter(), Clock()
    limiter = RateLimiter(counter, limit_per_minute=600, clock=clock)
    writes_by_third = []

    for _ in range(3):
        before = counter.calls
        serve([limiter], 200, lambda n: 0)
        writes_by_third.append(counter.calls - before)
    over = serve([limiter], 10, lambda n: 0)

    # 20 requests a write while the window is far from full, one a request at its end
    assert writes_by_third[0] <= 1 + 200 // 20 < writes_by_third[2]
    assert over == 0 and counter.totals["token", int(clock.now.timestamp() // 60)] == 600


def test_instances_that_served_a_token_last_minute_hold_the_next_as_closely_as_many_start() -> None:
    # Given 32 instances that served a token at its limit last minute (32 batches of 20 pass 600)
    counter, clock = SharedCounter(), Clock()
    instances = [RateLimiter(counter, limit_per_minute=600, clock=clock) for _ in range(32)]
    serve(instances, 900, lambda n: n % 32)
    # When a new minute starts and the token sends 900 requests over them
    clock.now += timedelta(seconds=60)
    admitted = serve(instances, 900, lambda n: n % 32)

    # Then each starts its batches from last minute's count of instances, not from its own
    assert 600 <= admitted <= 600 + 32


def test_tokens_are_limited_separately() -> None:
    limiter = RateLimiter(SharedCounter(), limit_per_minute=10, clock=Clock(), flush_every=1)

    for _ in range(10):
        limiter.admit("a")

    assert limiter.admit("a") is not None
    assert limiter.admit("b") is None


# -- what rides on the window writes: answers over 400 and the hooks received ------------------------


def test_a_lone_request_is_counted_with_its_error_and_its_hook_in_one_write() -> None:
    # Given an instance that has served nothing this minute
    counter, clock = SharedCounter(), Clock()
    limiter = RateLimiter(counter, limit_per_minute=100, clock=clock)
    # When one hook arrives and is answered 409
    limiter.admit("token")
    limiter.saw("token", "codex", "user-prompt-submit")
    limiter.settle("token", 409)
    # Then one write adds the request, the 4xx and the hook's sighting to the window
    window = int(clock.now.timestamp() // 60)
    assert counter.calls == 1 and counter.totals["token", window] == 1
    assert counter.errors["token", window] == (1, 0)
    assert counter.seen["token", window] == {"codex#user-prompt-submit": int(clock.now.timestamp())}


def test_answers_within_seconds_of_a_write_wait_for_the_next_one_never_a_write_each() -> None:
    counter, clock = SharedCounter(), Clock()
    limiter = RateLimiter(counter, limit_per_minute=1000, clock=clock, flush_every=20, flush_after=5)

    for status in [200] + [500] * 10 + [404] * 5:  # a burst within one second
        limiter.admit("token")
        limiter.settle("token", status)
    calls = counter.calls
    clock.now += timedelta(seconds=6)
    limiter.admit("token")
    limiter.settle("token", 200)

    window = int(clock.now.timestamp() // 60)
    assert calls == 1 and counter.calls == 2  # the first answer's write, then one 5 s later
    assert counter.totals["token", window] == 17 and counter.errors["token", window] == (5, 10)


def test_the_long_lived_marks_are_written_at_an_instances_second_flush_then_once_an_hour() -> None:
    counter, clock = SharedCounter(), Clock()
    limiter = RateLimiter(counter, limit_per_minute=1000, clock=clock, flush_after=5)
    prompt, stop = hook_kind("claude-code", "user-prompt-submit"), hook_kind("codex", "stop")

    def hook(kind: str) -> None:
        limiter.admit("token")
        limiter.saw("token", *split_hook_kind(kind))
        limiter.settle("token", 200)
        clock.now += timedelta(seconds=10)

    for n in range(30):  # a hook every 10 s for five minutes: a window write each
        hook(prompt if n != 15 else stop)
    first = dict(counter.kept["token"])
    clock.now += timedelta(hours=1)
    hook(prompt)

    # The second flush wrote both prompts' latest; the hour's refresh the stop and the latest prompt
    assert counter.calls == 31 and counter.kept_calls == 2
    assert list(first) == [prompt] and counter.kept["token"][stop] > first[prompt]
    assert counter.kept["token"][prompt] == int((clock.now - timedelta(seconds=10)).timestamp())


def test_a_harness_name_the_client_never_installs_is_marked_as_other() -> None:
    assert hook_kind("opencode", "stop") == "opencode#stop"
    assert hook_kind("my-own-harness-42", "stop") == hook_kind("x" * 64, "stop") == "other#stop"


def test_an_instance_that_serves_one_lone_request_writes_only_its_window() -> None:
    counter, clock = SharedCounter(), Clock()
    limiter = RateLimiter(counter, limit_per_minute=1000, clock=clock)

    limiter.admit("token")
    limiter.saw("token", "claude-code", "session-start")
    limiter.settle("token", 200)

    assert (counter.calls, counter.kept_calls) == (1, 0)


def test_a_minutes_counts_outlive_the_health_pages_view_of_it() -> None:
    # Given a request answered now
    counter, clock = SharedCounter(), Clock()
    limiter = RateLimiter(counter, limit_per_minute=100, clock=clock, flush_every=1)
    limiter.admit("token")
    limiter.settle("token", 500)

    # When the health page reads its oldest minute, the last moment that minute is still shown
    ((window_key, expires_at),) = counter.expiries.items()
    last_shown = (window_key[1] + health.MINUTES) * 60 - 1

    # Then the window's item has not expired yet (a TTL delete would show that minute as no traffic)
    assert expires_at > last_shown
