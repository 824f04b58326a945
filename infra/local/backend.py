"""moto as the AWS back end: a moto server in this process, one request at a time, recording them.

DynamoDB applies each request atomically; moto does not across threads (its ``UpdateItem`` checks
a condition and then changes the item without a lock; its ``TransactWriteItems`` copies the whole
table and puts the copy back when the transaction fails, erasing writes that landed meanwhile).
So the server serves one request at a time: a lock around moto's WSGI application, held until
the answer is built. The recorder writes each request as moto dispatches it, inside the lock, so
the recording's order is the order requests took effect and a replay rebuilds the same data.

Two exceptions keep the lock from stalling everything: an SQS long poll waits for messages with
the lock released (it takes it back to receive them), and ``/moto-api/recorder/`` requests skip
it (the replay sends the recorded requests back to this server, each of which takes the lock).

moto's query and its response serializer are made cheaper first (``moto_speedups``: the same
answers, checked against moto's own).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import requests

from infra.local import moto_speedups
from infra.local.environment import ensure_port_free

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment
    from werkzeug.serving import BaseWSGIServer

log = logging.getLogger(__name__)

_UNLOCKED_PREFIX = "/moto-api/recorder/"
_holding = threading.local()  # .lock: the request lock, while this thread holds it


class OneRequestAtATime:
    """WSGI middleware: requests pass through ``app`` one at a time."""

    def __init__(self, app: WSGIApplication) -> None:
        self._app = app
        self._lock = threading.Lock()

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        if str(environ.get("PATH_INFO", "")).startswith(_UNLOCKED_PREFIX):
            return self._app(environ, start_response)
        with self._lock, _held(self._lock):
            answer = self._app(environ, start_response)
            try:
                return [b"".join(answer)]  # the body is built here, under the lock
            finally:
                close = getattr(answer, "close", None)
                if close is not None:
                    close()


@contextmanager
def _held(lock: threading.Lock) -> Iterator[None]:
    _holding.lock = lock
    try:
        yield
    finally:
        _holding.lock = None


def _release_while_waiting(wait: Callable[[Any, int], None]) -> Callable[[Any, int], None]:
    """moto's SQS long poll sleeps in the request; let other requests run meanwhile."""

    def wait_for_messages(queue: Any, timeout: int) -> None:
        lock: threading.Lock | None = getattr(_holding, "lock", None)
        if lock is None:  # not a request of our server (e.g. in-process moto in a test)
            wait(queue, timeout)
            return
        lock.release()
        try:
            wait(queue, timeout)
        finally:
            lock.acquire()

    wait_for_messages.releases_request_lock = True  # type: ignore[attr-defined]
    return wait_for_messages


class MotoBackend:
    def __init__(self, host: str = "127.0.0.1", port: int = 0, recording: Path | None = None) -> None:
        self._host = host
        self._port = port
        self._recording = recording
        self._server: BaseWSGIServer | None = None
        self._thread: threading.Thread | None = None
        self.url = ""

    def start(self) -> str:
        if self._recording is not None:
            # moto's recorder reads these once, when moto.moto_api is first imported.
            os.environ["MOTO_ENABLE_RECORDING"] = "True"
            os.environ["MOTO_RECORDER_FILEPATH"] = str(self._recording)
        else:
            os.environ.pop("MOTO_ENABLE_RECORDING", None)
        ensure_port_free(self._host, self._port)
        logging.getLogger("werkzeug").setLevel(logging.WARNING)  # moto's per-request lines

        from moto.moto_api import recorder
        from moto.moto_server.werkzeug_app import (
            DomainDispatcherApplication,
            MotoRequestHandler,
            create_backend_app,
        )
        from moto.sqs.models import Queue
        from werkzeug.serving import make_server

        if self._recording is not None and recorder._location != str(self._recording):
            raise RuntimeError(
                "moto was imported before the local stack set MOTO_RECORDER_FILEPATH; "
                "run the local stack in its own process (python -m infra.local)"
            )
        if moto_speedups.wanted():
            moto_speedups.install()
        if not getattr(Queue.wait_for_messages, "releases_request_lock", False):
            Queue.wait_for_messages = _release_while_waiting(Queue.wait_for_messages)  # type: ignore[method-assign,assignment]
        app = OneRequestAtATime(DomainDispatcherApplication(create_backend_app))
        self._server = make_server(
            self._host, self._port, app, threaded=True, request_handler=MotoRequestHandler
        )
        # A short poll interval: stop() waits for the serving loop to notice (0.5 s by default).
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.1,), name="moto", daemon=True
        )
        self._thread.start()
        host, port = self._server.server_address[:2]
        self.url = f"http://{host!s}:{port}"
        return self.url

    def replay(self) -> None:
        """Replay the recording into this (empty) server; requests made meanwhile are not recorded."""
        answer = requests.post(f"{self.url}/moto-api/recorder/replay-recording", timeout=600)
        answer.raise_for_status()

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None
