"""A tiny stand-in for the Continuity service: records hook requests and can be told to fail.

For the faults the real service cannot be made to show on demand (a hang, a 5xx, a malformed
answer); what a user reads after an error is tested against the real service in-process
(``real_service``). Its error answers have the service's shape, ``{"error", "detail"}`` (see
``service_error``), and API Gateway's own ``{"message"}`` where the gateway answers (no route, a
refused token, a failed function).

It de-duplicates by idempotency key the way the real service must, so tests can check that a
replayed hook is counted once (``effects``) while seeing every delivery (``requests``).

It also keeps live transcripts by the service's append protocol (a repeat or overlap adds only
what is new, a gap answers 409 with the stored length, after the hook's own effect) and serves
the agent API the CLI and the MCP server call: digests, explicit checkpoints, tiered recovery,
the ledger, checkpoints and transcript search.
"""

from __future__ import annotations

import http.server
import json
import socket
import threading
import time
import urllib.parse
from dataclasses import dataclass, field

HANG_S = 30.0  # how long a HANG holds a request (then the connection closes without an answer)

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


class JsonHandler(http.server.BaseHTTPRequestHandler):
    """A request of the fake service: JSON answers, nothing logged."""

    protocol_version = "HTTP/1.1"

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
    # live transcripts: session -> stored text; every delta's bytes as received
    transcripts: dict[str, str] = field(default_factory=dict)
    transcript_bytes_received: int = 0
    gaps: int = 0  # 409s answered
    # the agent API
    checkpoints: dict[str, list[dict]] = field(default_factory=dict)  # session -> oldest first
    ledger: dict[str, list[dict]] = field(default_factory=dict)  # project -> newest first
    sessions: dict[str, str] = field(default_factory=dict)  # session -> project seen in hooks
    search_route: bool = True
    nudge_tokens: int | None = None  # told in hook answers (the service's nudge point), when set
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> FakeService:
        service = self

        class Handler(JsonHandler):
            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                received = Received(self.path, dict(self.headers), json.loads(raw or b"{}"), time.time())
                if not self.path.startswith("/api/hooks/"):
                    service.agent_api(self, "POST", received.body)
                    return
                service.record(received)
                service.respond(self, received)

            def do_GET(self) -> None:
                if self.path == "/api/health":
                    self._send(200, b'{"status":"ok"}')
                elif self.headers.get("Authorization") == "Bearer good-token":
                    service.agent_api(self, "GET", {})
                else:
                    self._send(401, b'{"message":"Unauthorized"}')

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
            session = str(received.body.get("session_id") or "")
            project = received.body.get("project_normalized") or received.body.get("cwd")
            if session and isinstance(project, str):
                self.sessions.setdefault(session, project)

    def append_transcript(self, body: dict) -> int | None:
        """The service's append rule; the stored length when the delta leaves a gap, else None."""
        delta = body.get("transcript")
        if not isinstance(delta, dict):
            return None
        session = str(body.get("session_id"))
        text, offset = str(delta.get("text") or ""), int(delta.get("offset") or 0)
        with self.lock:
            self.transcript_bytes_received += len(text.encode("utf-8"))
            stored = self.transcripts.get(session, "")
            if offset > len(stored):
                self.gaps += 1
                return len(stored)
            self.transcripts[session] = stored + text[len(stored) - offset :]
        return None

    # ---- the agent API ------------------------------------------------------------------------

    def agent_api(self, handler: JsonHandler, method: str, body: dict) -> None:
        send = handler._send
        parsed = urllib.parse.urlsplit(handler.path)
        query = {k: v[0] for k, v in urllib.parse.parse_qs(parsed.query).items()}
        parts = [urllib.parse.unquote(p) for p in parsed.path.split("/") if p]
        status, answer = self.route(method, parts, query, body)
        send(status, json.dumps(answer).encode())

    def route(self, method: str, parts: list[str], query: dict, body: dict) -> tuple[int, dict]:
        if method == "GET" and parts == ["api", "checkpoints"]:
            project = query.get("project")
            found = [
                c for cps in self.checkpoints.values() for c in cps if c["project_normalized"] == project
            ]
            found.sort(key=lambda c: c["created_at"], reverse=True)
            return 200, {"checkpoints": found[: int(query.get("limit", 10))]}
        if method == "GET" and parts[:2] == ["api", "checkpoints"] and len(parts) == 3:
            return 200, {"checkpoints": self.checkpoints.get(parts[2], [])}
        if method == "POST" and parts[:2] == ["api", "sessions"] and len(parts) == 4:
            return self.write_checkpoint(parts[2], parts[3], body)
        if method == "GET" and parts == ["api", "recovery"]:
            return self.recover(query)
        if method == "GET" and parts == ["api", "ledger"]:
            entries = self.ledger.get(query.get("project", ""), [])
            return 200, {"entries": entries[: int(query.get("limit", 50))], "next_token": None}
        if method == "POST" and parts == ["api", "sessions", "search"] and self.search_route:
            return 200, {"results": self.search(body)}
        return 404, {"message": "Not Found"}  # API Gateway: no such route

    def write_checkpoint(self, session: str, kind: str, body: dict) -> tuple[int, dict]:
        project = self.sessions.get(session) or body.get("project_normalized") or body.get("project")
        if kind not in ("digest", "checkpoint"):
            return 404, {"message": "Not Found"}
        if not project:
            status = 404 if kind == "checkpoint" else 422
            return status, service_error(status, f"session {session!r} is unknown")
        if kind == "digest" and not body.get("summary"):
            return 422, service_error(422, "invalid request: body.summary: Field required")
        existing = self.checkpoints.setdefault(session, [])
        checkpoint = {
            "id": f"cp-{len(existing) + 1}",
            "session_key": session,
            "project_normalized": project,
            "trigger": "agent" if kind == "digest" else "explicit",
            "digest": body.get("summary") or f"explicit checkpoint of {session}",
            "summary": body.get("summary"),
            "next_steps": body.get("next_steps") or [],
            "prompt_count": 0,
            "sequence": len(existing) + 1,
            "created_at": f"2026-11-20T10:00:{len(existing):02d}.000000Z",
        }
        existing.append(checkpoint)
        for decision in body.get("decisions") or []:
            entry = {"session_key": session, "project_normalized": project, **decision}
            self.ledger.setdefault(project, []).insert(0, entry)
        return (201 if kind == "digest" else 200), {"checkpoint": checkpoint}

    def recover(self, query: dict) -> tuple[int, dict]:
        session, project = query.get("session_key"), query.get("project")
        found = self.checkpoints.get(session or "", [])
        if not found:
            found = [
                c for cps in self.checkpoints.values() for c in cps if c["project_normalized"] == project
            ]
        if not found:
            return 404, service_error(404, "nothing to recover")
        latest = found[-1]
        level = int(query.get("level", 1))
        decisions = [e["decision"] for e in self.ledger.get(latest["project_normalized"], [])[:3]]
        text = f"Level {level}: {latest['digest']} | next: {', '.join(latest['next_steps'])}"
        if decisions:
            text += f" | decisions: {'; '.join(decisions)}"
        if query.get("query"):
            text += f" | searched: {query['query']}"
        return 200, {"level": level, "text": text, "session_key": latest["session_key"]}

    def search(self, body: dict) -> list[dict]:
        needle = str(body.get("query") or "").lower()
        results = []
        for session, text in self.transcripts.items():
            if body.get("session_key") and session != body["session_key"]:
                continue
            if body.get("project") and self.sessions.get(session) != body["project"]:
                continue
            at = text.lower().find(needle)
            if needle and at >= 0:
                results.append(
                    {
                        "session_key": session,
                        "project": self.sessions.get(session),
                        "snippet": text[max(0, at - 20) : at + 60],
                        "score": 1.0,
                        "updated_at": "2026-11-20T10:00:00Z",
                    }
                )
        return results[: int(body.get("limit") or 5)]

    def respond(self, handler: JsonHandler, received: Received) -> None:
        send = handler._send
        if self.delay:
            time.sleep(self.delay)
        if self.fail_after is not None and len(self.requests) > self.fail_after:
            send(500, b'{"message":"Internal Server Error"}')  # API Gateway: the function failed
            return
        if self.mode == HANG:
            self.release.wait(HANG_S)
            return
        if self.mode == ERROR_500:
            send(500, b'{"message":"Internal Server Error"}')
        elif self.mode == TOO_MANY:
            answer = service_error(429, "rate limit reached; retry later")
            send(429, json.dumps(answer).encode(), {"Retry-After": self.retry_after or "0"})
        elif self.mode == THROTTLED:
            answer = service_error(503, "storage is busy; retry shortly")
            send(503, json.dumps(answer).encode(), {"Retry-After": self.retry_after or "0"})
        elif self.mode == UNAUTHORIZED:
            send(401, b'{"message":"Unauthorized"}')  # API Gateway: no token
        elif self.mode == BAD_REQUEST:
            send(400, json.dumps(service_error(400, "malformed JSON body")).encode())
        elif self.mode == MALFORMED:
            send(200, b"<html>not json{")
        else:
            stored = self.append_transcript(received.body)
            if stored is not None:
                detail = f"transcript gap: the service holds {stored} characters"
                send(409, json.dumps(service_error(409, detail, stored_length=stored)).encode())
                return
            answer = self.answers.get(received.event, {})
            told = {"X-Continuity-Nudge-Tokens": str(self.nudge_tokens)} if self.nudge_tokens else None
            send(200, json.dumps(answer).encode(), told)


def service_error(status: int, detail: str, **extra: object) -> dict:
    """An error answer as the service's handlers give it (``continuity_core.kernel.http.error_body``)."""
    from continuity_core.kernel.http import error_body

    return error_body(status, detail, **extra)


def closed_port() -> int:
    """A local port with nothing listening."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
