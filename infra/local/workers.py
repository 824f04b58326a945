"""Runs each function as Lambda does: its own worker process, one invocation at a time.

A function's worker (``infra.local.worker``) has its own module state and only its own
environment: the variables the wiring declares for it, the AWS endpoint and credentials of the
local stack, and what Lambda sets (function name, memory). Functions run concurrently, in different
processes; a function's invocations queue for its one worker. This is what keeps tenants apart:
Powertools keeps the current request on a class attribute shared by every resolver of a process
(``BaseRouter.current_event``), so two functions in one process read each other's requests and
authorizer context.

- Cold start: a worker imports its handler once, when it starts (``warm()`` starts them in the
  background, or the function's first invocation does), within ``INIT_TIMEOUT_S``. An import error is
  reported for that invocation and the next one starts a new worker, as Lambda retries an init.
- Timeouts: an invocation that outlives the function's timeout is reported as timed out and its
  worker is killed; the next invocation starts a fresh one (a new sandbox, cold).
- A worker that dies (a crash, ``sys.exit``) fails the invocation with ``Runtime.ExitError``.
- Workers fork from a multiprocessing fork server that has imported the heavy libraries once, so a
  cold start costs the handler's own imports only. ``loader`` and ``worker_setup`` are pickled to the
  worker, so they must be module-level functions.
"""

from __future__ import annotations

import json
import logging
import multiprocessing
import multiprocessing.forkserver
import threading
import time
import uuid
from collections.abc import Iterable, Mapping
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any

from infra.local.context import NAME_PREFIX
from infra.local.runtime import FunctionSet, Invocation, Loader, import_handler, ms_since, timed_out
from infra.local.worker import WorkerConfig, WorkerSetup, serve
from infra.wiring import FunctionSpec

log = logging.getLogger(__name__)

INIT_TIMEOUT_S = 60.0  # Lambda allows 10 s; a busy 2-core laptop importing 8 handlers needs more
_STOP_GRACE_S = 2.0
CLOSED = "Runtime.Closed: the local stack is stopping"

# Imported once by the fork server: every worker forks with them loaded. Libraries (and the worker's
# own module) only: nothing here may read a function's environment at import, the fork server has
# the stack's.
PRELOAD = (
    "boto3",
    "botocore.client",
    "pydantic",
    "aws_lambda_powertools.event_handler",
    "aws_lambda_powertools.logging",
    "aws_lambda_powertools.metrics",
    "aws_lambda_powertools.utilities.batch",
    "aws_lambda_powertools.utilities.parser",
    "infra.local.worker",
)


def _multiprocessing() -> Any:
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(list(PRELOAD))
    return context


def start_fork_server() -> None:
    """Start the fork server now (it imports ``PRELOAD`` in its own process, in the background)."""
    _multiprocessing()
    multiprocessing.forkserver.ensure_running()


class FunctionRuntime(FunctionSet):
    def __init__(
        self,
        functions: Iterable[FunctionSpec],
        environments: Mapping[str, Mapping[str, str]],
        *,
        loader: Loader = import_handler,
        worker_setup: WorkerSetup | None = None,
        name_prefix: str = NAME_PREFIX,
    ) -> None:
        """``environments``: function key -> its whole environment (``environment.function_environment``)."""
        super().__init__(functions)
        missing = [key for key in self._specs if key not in environments]
        if missing:
            raise ValueError(f"no environment for {', '.join(missing)}")
        self._workers = {
            key: _Worker(WorkerConfig(spec, dict(environments[key]), loader, worker_setup, name_prefix))
            for key, spec in self._specs.items()
        }

    def warm(self) -> dict[str, str]:
        """Start every worker not started yet; returns the init errors (retried on invocation).

        One at a time, in the order of ``functions`` (the wiring's: the authorizer and hooks first,
        what a first request needs): cold starts in parallel would all finish late on two cores.
        An invocation of a function not warm yet starts its worker at once.
        """
        errors: dict[str, str] = {}
        for key, worker in self._workers.items():
            error = worker.warm()
            if error is not None:
                errors[key] = error
        return errors

    def invoke(self, key: str, event: dict[str, Any]) -> Invocation:
        return self._workers[key].invoke(event)

    def close(self) -> None:
        """Stop every worker (an invocation under way fails); safe to call more than once."""
        for worker in self._workers.values():
            worker.close()  # all of them first: they stop in parallel
        deadline = time.monotonic() + _STOP_GRACE_S
        for worker in self._workers.values():
            worker.reap(deadline)


class _Worker:
    """One function's worker process, started on demand and replaced when it dies or times out."""

    def __init__(self, config: WorkerConfig) -> None:
        self._config = config
        self._key = config.spec.key
        self._lock = threading.Lock()  # one invocation at a time, as in one Lambda sandbox
        self._process: BaseProcess | None = None
        self._conn: Connection | None = None
        self._closed = False

    def warm(self) -> str | None:
        with self._lock:
            return self._ensure_started()

    def invoke(self, event: dict[str, Any]) -> Invocation:
        request_id = str(uuid.uuid4())
        message = json.dumps({"request_id": request_id, "event": event}).encode()
        with self._lock:
            init_error = self._ensure_started()
            if init_error is not None:
                return Invocation(self._key, request_id, 0.0, error=init_error)
            conn = self._conn
            assert conn is not None
            started = time.monotonic()
            try:
                conn.send_bytes(message)
                reply = json.loads(conn.recv_bytes()) if conn.poll(self._config.spec.timeout_s) else None
            except (EOFError, OSError):
                return self._failed(request_id, started, self._exit_error())
            duration = ms_since(started)
            if reply is None:
                error = timed_out(duration, self._config.spec)
                log.error("%s: %s; its worker is replaced", self._key, error)
                self._stop()
                return Invocation(self._key, request_id, duration, error=error)
            if "error" in reply:
                return self._failed(request_id, started, reply["error"], reply.get("traceback"))
            return Invocation(self._key, request_id, duration, result=reply["result"])

    def close(self) -> None:
        """Ask the worker to stop (SIGTERM); an invocation under way fails."""
        self._closed = True
        process = self._process
        if process is not None and process.is_alive():
            process.terminate()

    def reap(self, deadline: float) -> None:
        process = self._process
        if process is not None:
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                process.kill()
        if self._lock.acquire(timeout=_STOP_GRACE_S):  # else the invocation under way cleans up
            try:
                self._stop()
            finally:
                self._lock.release()

    def _ensure_started(self) -> str | None:
        """Start the worker unless it runs; None when it is ready, else the init error."""
        if self._closed:
            return CLOSED
        if self._process is not None and self._process.is_alive() and self._conn is not None:
            return None
        self._stop()
        context = _multiprocessing()
        ours, theirs = context.Pipe()
        self._process = context.Process(
            target=serve, args=(theirs, self._config), name=f"lambda-{self._key}", daemon=True
        )
        self._process.start()
        theirs.close()  # the worker holds its end: ours reads EOF when the worker exits
        self._conn = ours
        try:
            reply = json.loads(ours.recv_bytes()) if ours.poll(INIT_TIMEOUT_S) else None
        except (EOFError, OSError):
            reply = {"init_error": self._exit_error()}
        if reply is None:
            reply = {"init_error": f"Runtime.InitTimeout: no cold start within {INIT_TIMEOUT_S:.0f} s"}
        if "init_error" not in reply and self._closed:
            reply = {"init_error": CLOSED}
        if "init_error" in reply:
            if reply["init_error"] != CLOSED:
                log.error("%s: %s\n%s", self._key, reply["init_error"], reply.get("traceback", ""))
            self._stop()
            return str(reply["init_error"])
        return None

    def _failed(self, request_id: str, started: float, error: str, trace: str | None = None) -> Invocation:
        if error != CLOSED:
            log.error("%s raised %s%s", self._key, error, f"\n{trace}" if trace else "")
        return Invocation(self._key, request_id, ms_since(started), error=error)

    def _exit_error(self) -> str:
        """The error for a worker that went away (its pipe closed), which is then cleaned up."""
        process = self._process
        code = None
        if process is not None:
            process.join(1.0)
            code = process.exitcode
        self._stop()
        return CLOSED if self._closed else f"Runtime.ExitError: the worker exited (code {code})"

    def _stop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()
        process, self._process = self._process, None
        if process is not None:
            if process.is_alive():
                process.kill()
            process.join()
