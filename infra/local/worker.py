"""One function's execution environment, the child side of ``infra.local.workers``.

The worker takes the function's environment (nothing of the local stack's), runs the optional
setup hook, imports the handler once (the cold start) and then serves one invocation at a time
until the runtime closes its end of the pipe. Events and results cross the pipe as JSON text, as
they cross Lambda's runtime API.

Messages, worker -> runtime: ``{"ready": true}`` or ``{"init_error": ..., "traceback": ...}`` once,
then per invocation ``{"result": ...}`` or ``{"error": ..., "traceback": ...}``.
Runtime -> worker: ``{"request_id": ..., "event": ...}``.
"""

from __future__ import annotations

import json
import os
import signal
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from infra.local.context import lambda_context
from infra.local.runtime import Handler, Loader
from infra.wiring import FunctionSpec

WorkerSetup = Callable[[FunctionSpec], None]


@dataclass(frozen=True)
class WorkerConfig:
    """What a worker needs; pickled to the child, so the loader and setup must be importable names."""

    spec: FunctionSpec
    environment: dict[str, str]
    loader: Loader
    setup: WorkerSetup | None
    name_prefix: str


def serve(conn: Connection, config: WorkerConfig) -> None:
    # Ctrl-C in a terminal reaches the whole process group; the runtime stops its workers itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.environ.clear()
    os.environ.update(config.environment)
    handler = _init(conn, config)
    if handler is None:
        return
    while True:
        try:
            message = json.loads(conn.recv_bytes())
        except EOFError:  # the runtime closed the pipe: stop, as a sandbox is shut down
            return
        conn.send_bytes(_invoke(handler, config, message).encode())


def _init(conn: Connection, config: WorkerConfig) -> Handler | None:
    if config.setup is not None:
        try:
            config.setup(config.spec)
        except Exception as error:
            _send(
                conn, {"init_error": f"Runtime.WorkerSetupError: {_describe(error)}", "traceback": _trace()}
            )
            return None
    try:
        handler = config.loader(config.spec)
    except Exception as error:
        _send(conn, {"init_error": f"Runtime.ImportModuleError: {_describe(error)}", "traceback": _trace()})
        return None
    _send(conn, {"ready": True})
    return handler


def _invoke(handler: Handler, config: WorkerConfig, message: dict[str, Any]) -> str:
    context = lambda_context(config.spec, request_id=message["request_id"], prefix=config.name_prefix)
    try:
        result = handler(message["event"], context)
    except Exception as error:
        return json.dumps({"error": _describe(error), "traceback": _trace()})
    try:
        return json.dumps({"result": result})
    except (TypeError, ValueError) as error:
        return json.dumps({"error": f"Runtime.MarshalError: {error}"})


def _send(conn: Connection, message: dict[str, Any]) -> None:
    conn.send_bytes(json.dumps(message).encode())


def _describe(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"


def _trace() -> str:
    return traceback.format_exc()
