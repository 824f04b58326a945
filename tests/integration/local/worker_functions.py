"""Handlers for the worker runtime's tests. Workers import them by name, so they live in a module."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from infra.local.runtime import Handler
from infra.wiring import FunctionSpec

calls = 0  # module state: each worker has its own
setups = 0


def load(spec: FunctionSpec) -> Handler:
    """The handler named like the spec's key; with LOAD_AFTER set, an import error until that file exists."""
    marker = os.environ.get("LOAD_AFTER")
    if marker and not Path(marker).exists():
        raise ImportError(f"no module named functions.{spec.key}")
    handler: Handler = globals()[spec.key]
    return handler


def setup(spec: FunctionSpec) -> None:
    global setups
    setups += 1
    os.environ["SET_UP_FOR"] = spec.key


def echo(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return {
        "event": event,
        "name": context.function_name,
        "memory": context.memory_limit_in_mb,
        "arn": context.invoked_function_arn,
        "request_id": context.aws_request_id,
        "remaining": context.get_remaining_time_in_millis(),
        "pid": os.getpid(),
        "environment": dict(os.environ),
        "setups": setups,
    }


def count(event: dict[str, Any], context: Any) -> int:
    global calls
    calls += 1
    return calls


def boom(event: dict[str, Any], context: Any) -> None:
    raise RuntimeError("kaput")


def not_json(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return {"when": object()}


def slow(event: dict[str, Any], context: Any) -> str:
    time.sleep(float(event.get("sleep_s", 0)))
    global calls
    calls += 1
    return f"call {calls}"


def exits(event: dict[str, Any], context: Any) -> None:
    os._exit(3)
