"""A tiny stand-in for the Continuity service: records hook requests and can be told to fail.

It de-duplicates by idempotency key the way the real service must, so tests can check that a
replayed hook is counted once (``effects``) while seeing every delivery (``requests``).
"""

from __future__ import annotations

import http.server
import json
import socket
import threading
import time
from dataclasses import dataclass, field

OK, HANG, ERROR_500, THROTTLED, TOO_MANY, UNAUTHORIZED, BAD_REQUEST, MALFORMED = (
    "ok",
    "hang",
    "500",
    "503",
    "429",
    "401",
    "400",
    "malformed",
)


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: dict
    at: float

    @property
    def event(self) -> str:
        return self.path.rsplit("/", 1)[-1]

    @property
    def key(self) -> str:
        return str(self.body.get("idempotency_key"))


@dataclass
class FakeService:
    mode: str = OK
    answers: dict[str, dict] = field(default_factory=dict)  # event -> JSON answer
    retry_after: str | None = None
    delay: float = 0.0  # seconds before each answer
    fail_after: int | None = None  # answer 500 once this many hook requests were received
    requests: list[Received] = field(default_factory=list)
    effects: list[Received] = field(default_factory=list)  # first delivery of each key only
    release: threading.Event = field(default_factory=threading.Event)
    _server: http.server.ThreadingHTTPServer | None = None
    port: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> FakeService:
        service = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                received = Received(self.path, dict(self.headers), json.loads(raw or b"{}"), time.time())
                service.record(received)
                service.respond(self, received)

            def do_GET(self) -> None:
                if self.path == "/api/health":
                    self._send(200, b'{"status":"ok"}')
                elif self.headers.get("Authorization") == "Bearer good-token":
                    self._send(200, b'{"checkpoints":[]}')
                else:
                    self._send(401, b'{"statusCode":401,"message":"Unauthorized"}')

            def _send(self, status: int, body: bytes, extra: dict[str, str] | None = None) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                for name, value in (extra or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.Handler = Handler
        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        ).start()
        return self

    def stop(self) -> None:
        """Close the port: the client then sees 'connection refused'."""
        self.release.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def restart(self) -> None:
        self.release = threading.Event()
        self.start()

    def record(self, received: Received) -> None:
        self.requests.append(received)
        failing = self.fail_after is not None and len(self.requests) > self.fail_after
        if self.mode == OK and not failing and received.key not in {r.key for r in self.effects}:
            self.effects.append(received)

    def respond(self, handler: http.server.BaseHTTPRequestHandler, received: Received) -> None:
        send = handler._send  # type: ignore[attr-defined]
        if self.delay:
            time.sleep(self.delay)
        if self.fail_after is not None and len(self.requests) > self.fail_after:
            send(500, b'{"message":"Internal Server Error"}')
            return
        if self.mode == HANG:
            self.release.wait(30)
            return
        if self.mode == ERROR_500:
            send(500, b'{"message":"Internal Server Error"}')
        elif self.mode == TOO_MANY:
            send(429, b'{"message":"Too Many Requests"}', {"Retry-After": self.retry_after or "0"})
        elif self.mode == THROTTLED:
            send(503, b'{"statusCode":503,"message":"throttled"}', {"Retry-After": self.retry_after or "0"})
        elif self.mode == UNAUTHORIZED:
            send(401, b'{"message":"Unauthorized"}')
        elif self.mode == BAD_REQUEST:
            send(400, b'{"statusCode":400,"message":"bad hook"}')
        elif self.mode == MALFORMED:
            send(200, b"<html>not json{")
        else:
            answer = self.answers.get(received.event, {})
            send(200, json.dumps(answer).encode())


def closed_port() -> int:
    """A local port with nothing listening."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
