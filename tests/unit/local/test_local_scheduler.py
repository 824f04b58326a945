"""The timer: scheduled functions get an EventBridge Scheduled Event at their rate."""

import itertools
import threading
import time
from typing import Any

from infra.local.scheduler import Scheduler
from infra.wiring import ScheduleTrigger
from tests.unit.local.support import runtime_with, throwaway

PRUNER = throwaway("pruner", schedule=ScheduleTrigger(rate_minutes=1))
HOOKS = throwaway("hooks")


def recording_handler(
    wanted: int = 0,
) -> tuple[list[tuple[float, dict[str, Any]]], Any, threading.Event]:
    """(calls with their time, the handler, an event set once ``wanted`` calls came)."""
    calls: list[tuple[float, dict[str, Any]]] = []
    lock = threading.Lock()
    enough = threading.Event()

    def handler(event: dict[str, Any], context: Any) -> dict[str, int]:
        with lock:
            calls.append((time.monotonic(), event))
            if len(calls) >= wanted:
                enough.set()
        return {"pruned": 0}

    return calls, handler, enough


def test_a_scheduled_function_runs_once_per_period_starting_one_period_after_start() -> None:
    calls, handler, two_calls = recording_handler(wanted=2)
    runtime = runtime_with((PRUNER, handler), (HOOKS, lambda e, c: {}))
    scheduler = Scheduler(runtime.functions, runtime, minute_seconds=0.1)  # 1 minute -> 0.1 s
    period = scheduler.period_s("pruner")

    started = time.monotonic()
    scheduler.start()
    came = two_calls.wait(30)  # a busy machine may be slow, never faster than the timer
    scheduler.stop()

    assert came and scheduler.keys == ("pruner",)
    # the first run one period after start, and never two within a period (a little clock slack)
    assert calls[0][0] - started >= period * 0.9
    assert all(later[0] - earlier[0] >= period * 0.9 for earlier, later in itertools.pairwise(calls))
    assert calls[0][1]["detail-type"] == "Scheduled Event"
    assert calls[0][1]["resources"] == [
        "arn:aws:events:us-east-1:123456789012:rule/continuity-local-pruner-schedule"
    ]


def test_run_now_invokes_at_once_and_returns_the_invocation() -> None:
    calls, handler, _ = recording_handler()
    runtime = runtime_with((PRUNER, handler))
    scheduler = Scheduler(runtime.functions, runtime)  # real minutes: the timer never fires here

    invocation = scheduler.run_now("pruner")

    assert invocation.ok and invocation.result == {"pruned": 0}
    assert len(calls) == 1
    assert calls[0][1]["source"] == "aws.events"


def test_stop_ends_the_timer_threads_without_waiting_a_period() -> None:
    # Given a timer with a period of a real minute, waiting for its first run
    _, handler, _ = recording_handler()
    runtime = runtime_with((PRUNER, handler))
    scheduler = Scheduler(runtime.functions, runtime)
    scheduler.start()
    timers = [thread for thread in threading.enumerate() if thread.name == "timer-pruner"]

    # When it is stopped
    started = time.monotonic()
    scheduler.stop()

    # Then its thread has ended, well inside the period it was waiting out
    assert timers and not any(thread.is_alive() for thread in timers)
    assert time.monotonic() - started < scheduler.period_s("pruner") / 2
