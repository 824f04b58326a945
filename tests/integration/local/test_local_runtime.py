"""Invoking functions in this process (tests, one-off runs): context, JSON boundary, errors, timeouts."""

import time
from typing import Any

import pytest

from infra import wiring
from infra.local.runtime import InProcessRuntime, handler_module
from tests.unit.local.support import runtime_with, throwaway


def test_the_handler_module_comes_from_source_dir_and_handler() -> None:
    assert handler_module(wiring.function("hooks")) == "functions.hooks.handler"


def test_a_handler_gets_a_lambda_context_and_a_copy_of_the_event() -> None:
    seen: dict[str, Any] = {}
    spec = throwaway("echo", memory_mb=256, timeout_s=7)

    def echo(event: dict[str, Any], context: Any) -> dict[str, Any]:
        event["mutated"] = True
        seen.update(
            name=context.function_name,
            memory=context.memory_limit_in_mb,
            arn=context.invoked_function_arn,
            request_id=context.aws_request_id,
            remaining=context.get_remaining_time_in_millis(),
        )
        return {"ok": True}

    event = {"a": 1}
    invocation = runtime_with((spec, echo)).invoke("echo", event)

    assert invocation.ok and invocation.result == {"ok": True}
    assert event == {"a": 1}
    assert seen["name"] == "continuity-local-echo"
    assert seen["memory"] == 256
    assert seen["arn"] == "arn:aws:lambda:us-east-1:123456789012:function:continuity-local-echo"
    assert seen["request_id"] == invocation.request_id
    assert 6000 < seen["remaining"] <= 7000


def test_an_exception_is_a_failed_invocation(caplog: pytest.LogCaptureFixture) -> None:
    def boom(event: dict[str, Any], context: Any) -> None:
        raise RuntimeError("kaput")

    invocation = runtime_with((throwaway("boom"), boom)).invoke("boom", {})

    assert not invocation.ok
    assert invocation.error == "RuntimeError: kaput"
    assert "boom raised RuntimeError: kaput" in caplog.text


def test_a_result_that_is_not_json_is_a_marshal_error() -> None:
    invocation = runtime_with((throwaway("bad"), lambda e, c: {"when": object()})).invoke("bad", {})

    assert invocation.error is not None and invocation.error.startswith("Runtime.MarshalError")


def test_an_invocation_longer_than_the_timeout_is_timed_out() -> None:
    spec = throwaway("slow", timeout_s=0)  # any duration exceeds 0 s

    def slow(event: dict[str, Any], context: Any) -> str:
        time.sleep(0.01)
        return "late"

    invocation = runtime_with((spec, slow)).invoke("slow", {})

    assert invocation.error is not None and invocation.error.startswith("Task timed out")
    assert invocation.result is None


def test_a_handler_that_does_not_import_fails_each_invocation_until_it_does() -> None:
    attempts = []

    def loader(spec: Any) -> Any:
        attempts.append(spec.key)
        if len(attempts) == 1:
            raise ImportError("no module named functions.late")
        return lambda e, c: "loaded"

    runtime = InProcessRuntime([throwaway("late")], loader=loader)

    assert runtime.warm() == {"late": "ImportError: no module named functions.late"}
    assert runtime.invoke("late", {}).result == "loaded"
