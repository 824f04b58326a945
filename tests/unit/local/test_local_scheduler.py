"""The timer: scheduled functions get an EventBridge Scheduled Event at their rate."""

import threading
import time
from typing import Any

from infra.local.scheduler import Scheduler
from infra.wiring import ScheduleTrigger
from tests.unit.local.support import runtime_with, throwaway

PRUNER = throwaway("pruner", schedule=ScheduleTrigger(rate_minutes=1))
HOOKS = throwaway("hooks")


def recording_handler() -> tuple[list[tuple[float, dict[str, Any]]], Any]:
    calls: list[tuple[float, dict[str, Any]]] = []
    lock = threading.Lock()

    def handler(event: dict[str, Any], context: Any) -> dict[str, int]:
        with lock:
            calls.append((time.monotonic(), event))
        return {"pruned": 0}

    return calls, handler


def test_a_scheduled_function_runs_once_per_period_starting_one_period_after_start() -> None:
    calls, handler = recording_handler()
    runtime = runtime_with((PRUNER, handler), (HOOKS, lambda e, c: {}))
    scheduler = Scheduler(runtime.functions, runtime, minute_seconds=0.1)  # 1 minute -> 0.1 s

    started = time.monotonic()
    scheduler.start()
    time.sleep(0.35)
    scheduler.stop()

    assert scheduler.keys == ("pruner",)
    assert 2 <= len(calls) <= 4
    assert calls[0][0] - started >= 0.09
    assert calls[0][1]["detail-type"] == "Scheduled Event"
    assert calls[0][1]["resources"] == [
        "arn:aws:events:us-east-1:123456789012:rule/continuity-local-pruner-schedule"
    ]


def test_run_now_invokes_at_once_and_returns_the_invocation() -> None:
    calls, handler = recording_handler()
    runtime = runtime_with((PRUNER, handler))
    scheduler = Scheduler(runtime.functions, runtime)  # real minutes: the timer never fires here

    invocation = scheduler.run_now("pruner")

    assert invocation.ok and invocation.result == {"pruned": 0}
    assert len(calls) == 1
    assert calls[0][1]["source"] == "aws.events"


def test_stop_ends_the_timer_threads_without_waiting_a_period() -> None:
    _, handler = recording_handler()
    runtime = runtime_with((PRUNER, handler))
    scheduler = Scheduler(runtime.functions, runtime)

    scheduler.start()
    started = time.monotonic()
    scheduler.stop()

    assert time.monotonic() - started < 1
