"""What the local stack's callers (gateway, authorizer step, poller, timer) invoke functions through.

``Runtime`` is the one method they use, ``invoke(key, event) -> Invocation``. Two runtimes have it:

- ``infra.local.workers.FunctionRuntime`` (the local stack): each function in its own worker
  process, as Lambda runs it;
- ``InProcessRuntime`` (here): handlers called in this process, one invocation at a time per
  function. Functions share the process, its environment and its module globals (Powertools keeps
  the current request on a class shared by every resolver), so it is only for callers that invoke
  one function at a time: tests on in-memory moto (``mock_aws`` is in-process) and
  ``python -m infra.local.invoke``.

Both pass the event and the result through JSON, as Lambda does, and report failures as values.
"""

from __future__ import annotations

import importlib
import json
import logging
import threading
import time
import traceback
import uuid
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

from infra.local.access_guard import running_as
from infra.local.context import NAME_PREFIX, lambda_context
from infra.wiring import FunctionSpec

log = logging.getLogger(__name__)

Handler = Callable[[dict[str, Any], Any], Any]
Loader = Callable[[FunctionSpec], Handler]


def handler_module(spec: FunctionSpec) -> str:
    """``functions/hooks`` + ``handler.lambda_handler`` -> ``functions.hooks.handler``."""
    package = spec.source_dir.strip("/").replace("/", ".")
    return f"{package}.{spec.module}"


def import_handler(spec: FunctionSpec) -> Handler:
    module = importlib.import_module(handler_module(spec))
    handler = getattr(module, spec.function_name)
    if not callable(handler):
        raise TypeError(f"{handler_module(spec)}.{spec.function_name} is not callable")
    return handler


@dataclass(frozen=True)
class Invocation:
    function: str
    request_id: str
    duration_ms: float
    result: Any = None
    error: str | None = None  # set when the invocation failed: exception, timeout, bad result

    @property
    def ok(self) -> bool:
        return self.error is None


class Runtime(Protocol):
    @property
    def functions(self) -> tuple[FunctionSpec, ...]: ...

    def spec(self, key: str) -> FunctionSpec: ...

    def invoke(self, key: str, event: dict[str, Any]) -> Invocation: ...


class FunctionSet:
    """The functions a runtime serves, by key (the part of ``Runtime`` both runtimes share)."""

    def __init__(self, functions: Iterable[FunctionSpec]) -> None:
        self._specs = {spec.key: spec for spec in functions}

    @property
    def functions(self) -> tuple[FunctionSpec, ...]:
        return tuple(self._specs.values())

    def spec(self, key: str) -> FunctionSpec:
        return self._specs[key]


def timed_out(duration_ms: float, spec: FunctionSpec) -> str:
    """Lambda's message for an invocation that ran out of time."""
    return f"Task timed out after {duration_ms / 1000:.2f} seconds (timeout {spec.timeout_s} s)"


def ms_since(started: float) -> float:
    return (time.monotonic() - started) * 1000


class InProcessRuntime(FunctionSet):
    """Handlers imported into this process: one warm instance and one invocation at a time each.

    A timeout cannot stop a thread, so an invocation that outlived it is reported as timed out
    and its result discarded.
    """

    def __init__(
        self,
        functions: Iterable[FunctionSpec],
        *,
        loader: Loader = import_handler,
        name_prefix: str = NAME_PREFIX,
        enforce_timeouts: bool = True,
        scope: Callable[[str], AbstractContextManager[object]] = running_as,
    ) -> None:
        """``scope``: what each invocation runs in, given the function's key (the access guard's
        ``running_as``; tests add the function's own environment)."""
        super().__init__(functions)
        self._scope = scope
        self._loader = loader
        self._prefix = name_prefix
        self._enforce_timeouts = enforce_timeouts
        self._handlers: dict[str, Handler] = {}
        self._locks = {key: threading.Lock() for key in self._specs}
        self._load_lock = threading.Lock()

    def warm(self) -> dict[str, str]:
        """Import every handler now; returns the import errors (they are retried on invocation)."""
        errors: dict[str, str] = {}
        for key, spec in self._specs.items():
            try:
                self._handler(spec)
            except Exception as error:  # an import error is reported, not fatal, as in Lambda
                errors[key] = f"{type(error).__name__}: {error}"
        return errors

    def invoke(self, key: str, event: dict[str, Any]) -> Invocation:
        spec = self._specs[key]
        request_id = str(uuid.uuid4())
        with self._locks[key]:
            started = time.monotonic()
            try:
                handler = self._handler(spec)
            except Exception as error:
                log.error("%s: Runtime.ImportModuleError: %s", key, error)
                return Invocation(key, request_id, 0.0, error=f"Runtime.ImportModuleError: {error}")
            context = lambda_context(spec, request_id=request_id, prefix=self._prefix)
            try:
                with self._scope(key):  # under the function's grant (infra/local/access_guard.py)
                    result = handler(json.loads(json.dumps(event)), context)
            except Exception as error:
                log.error("%s raised %s: %s\n%s", key, type(error).__name__, error, traceback.format_exc())
                return Invocation(
                    key, request_id, ms_since(started), error=f"{type(error).__name__}: {error}"
                )
            try:
                result = json.loads(json.dumps(result))
            except (TypeError, ValueError) as error:
                log.error("%s: Runtime.MarshalError: %s", key, error)
                return Invocation(key, request_id, ms_since(started), error=f"Runtime.MarshalError: {error}")
            duration = ms_since(started)
            if self._enforce_timeouts and duration > spec.timeout_s * 1000:
                message = timed_out(duration, spec)
                log.error("%s: %s", key, message)
                return Invocation(key, request_id, duration, error=message)
            return Invocation(key, request_id, duration, result=result)

    def _handler(self, spec: FunctionSpec) -> Handler:
        handler = self._handlers.get(spec.key)
        if handler is None:
            with self._load_lock:
                handler = self._handlers.get(spec.key) or self._loader(spec)
                self._handlers[spec.key] = handler
        return handler
