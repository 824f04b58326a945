"""Each function in its own worker process, as Lambda runs it: own environment, own module state,
one invocation at a time, a fresh worker after a timeout or a crash, import errors retried."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from infra.local.workers import FunctionRuntime
from infra.wiring import FunctionSpec
from tests.integration.local import worker_functions
from tests.unit.local.support import throwaway


@pytest.fixture
def start() -> Iterator[Any]:
    runtimes: list[FunctionRuntime] = []

    def start(*specs: FunctionSpec, env: dict[str, str] | None = None, **kwargs: Any) -> FunctionRuntime:
        environments = {spec.key: {"OWN": spec.key, **(env or {})} for spec in specs}
        runtime = FunctionRuntime(specs, environments, loader=worker_functions.load, **kwargs)
        runtimes.append(runtime)
        return runtime

    yield start
    for runtime in runtimes:
        runtime.close()


def test_a_handler_gets_a_lambda_context_and_the_event_through_json(start: Any) -> None:
    runtime = start(throwaway("echo", memory_mb=256, timeout_s=7))

    invocation = runtime.invoke("echo", {"a": 1, "nested": {"b": [1, 2]}})

    assert invocation.ok, invocation.error
    seen = invocation.result
    assert seen["event"] == {"a": 1, "nested": {"b": [1, 2]}}
    assert seen["name"] == "continuity-local-echo"
    assert seen["memory"] == 256
    assert seen["arn"] == "arn:aws:lambda:us-east-1:123456789012:function:continuity-local-echo"
    assert seen["request_id"] == invocation.request_id
    assert 6000 < seen["remaining"] <= 7000


def test_each_function_sees_only_its_own_environment(start: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # Given a variable of the stack's own process, which no function declares
    monkeypatch.setenv("CONTINUITY_STACK_SECRET", "not for functions")
    runtime = start(throwaway("echo"), throwaway("count"))

    seen = runtime.invoke("echo", {}).result["environment"]

    assert seen["OWN"] == "echo"
    assert "CONTINUITY_STACK_SECRET" not in seen


def test_functions_run_in_separate_processes_with_their_own_module_state(start: Any) -> None:
    runtime = start(throwaway("echo"), throwaway("count"), throwaway("slow"))

    counts = [runtime.invoke("count", {}).result for _ in range(3)]
    other = runtime.invoke("slow", {}).result

    assert counts == [1, 2, 3]  # one warm worker: its module state persists between invocations
    assert other == "call 1"  # the same module, imported in another worker: its own globals


def test_different_functions_run_at_the_same_time_and_one_function_one_at_a_time(start: Any) -> None:
    runtime = start(throwaway("slow"), throwaway("echo"))
    runtime.warm()
    results: list[Any] = []

    def call(key: str, event: dict[str, Any]) -> None:
        results.append(runtime.invoke(key, event))

    # When a slow invocation runs, another function answers meanwhile
    slow = threading.Thread(target=call, args=("slow", {"sleep_s": 1.0}))
    slow.start()
    time.sleep(0.2)
    began = time.monotonic()
    quick = runtime.invoke("echo", {})
    assert quick.ok and time.monotonic() - began < 0.9
    # and a second invocation of the slow function waits for the first
    second = threading.Thread(target=call, args=("slow", {"sleep_s": 0}))
    second.start()
    slow.join()
    second.join()
    assert [r.result for r in results] == ["call 1", "call 2"]


def test_an_exception_is_a_failed_invocation_with_the_traceback_logged(
    start: Any, caplog: pytest.LogCaptureFixture
) -> None:
    invocation = start(throwaway("boom")).invoke("boom", {})

    assert not invocation.ok
    assert invocation.error == "RuntimeError: kaput"
    assert "boom raised RuntimeError: kaput" in caplog.text
    assert 'raise RuntimeError("kaput")' in caplog.text


def test_a_result_that_is_not_json_is_a_marshal_error(start: Any) -> None:
    invocation = start(throwaway("not_json")).invoke("not_json", {})

    assert invocation.error is not None and invocation.error.startswith("Runtime.MarshalError")


def test_a_timed_out_invocation_is_stopped_and_the_next_gets_a_fresh_worker(start: Any) -> None:
    runtime = start(throwaway("slow", timeout_s=1))
    assert runtime.invoke("slow", {}).result == "call 1"

    began = time.monotonic()
    late = runtime.invoke("slow", {"sleep_s": 30})

    assert late.error is not None and late.error.startswith("Task timed out after 1.")
    assert late.result is None and time.monotonic() - began < 10
    assert runtime.invoke("slow", {}).result == "call 1"  # a new sandbox: its module state is new


def test_a_worker_that_exits_fails_its_invocation_and_is_replaced(start: Any) -> None:
    runtime = start(throwaway("exits"), throwaway("count"))

    invocation = runtime.invoke("exits", {})

    assert invocation.error == "Runtime.ExitError: the worker exited (code 3)"
    assert runtime.invoke("exits", {}).error == "Runtime.ExitError: the worker exited (code 3)"
    assert runtime.invoke("count", {}).result == 1


def test_a_handler_that_does_not_import_fails_each_invocation_until_it_does(
    start: Any, tmp_path: Path
) -> None:
    marker = tmp_path / "fixed"
    runtime = start(throwaway("count"), env={"LOAD_AFTER": str(marker)})

    assert runtime.warm() == {
        "count": "Runtime.ImportModuleError: ImportError: no module named functions.count"
    }
    assert runtime.invoke("count", {}).error == (
        "Runtime.ImportModuleError: ImportError: no module named functions.count"
    )
    marker.touch()
    assert runtime.invoke("count", {}).result == 1


def test_the_worker_setup_runs_once_in_each_worker_before_the_first_invocation(start: Any) -> None:
    runtime = start(throwaway("echo"), worker_setup=worker_functions.setup)

    first, second = (runtime.invoke("echo", {}).result for _ in range(2))

    assert first["environment"]["SET_UP_FOR"] == "echo"
    assert (first["setups"], second["setups"]) == (1, 1)


def test_after_close_invocations_fail_clearly(start: Any) -> None:
    runtime = start(throwaway("count"))
    assert runtime.invoke("count", {}).result == 1

    runtime.close()

    assert runtime.invoke("count", {}).error == "Runtime.Closed: the local stack is stopping"
