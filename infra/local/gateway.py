"""The local HTTP gateway: each request becomes an HTTP API payload 2.0 event for the route's function.

Behaves as API Gateway HTTP API does where clients can tell: 404 ``Not Found`` for unknown routes,
the Lambda authorizer step (401/403), 413 above 10 MB, 500 ``Internal Server Error`` when a function
fails (a log line says why). Admin route, local only: ``POST /local/schedules/{key}`` runs a
scheduled function now (bearer token required).
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import threading
from collections.abc import Iterable
from http import HTTPStatus
from typing import TYPE_CHECKING, Any

from werkzeug.serving import BaseWSGIServer, WSGIRequestHandler, make_server
from werkzeug.wrappers import Request, Response

from infra.local.authorization import AuthorizerGate
from infra.local.events import HttpResponse, InvalidResponseError, http_event, http_response, json_response
from infra.local.routes import RouteTable, compile_template
from infra.local.runtime import Runtime

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIEnvironment

    from infra.local.scheduler import Scheduler

log = logging.getLogger(__name__)
access_log = logging.getLogger("infra.local.access")

MAX_BODY_BYTES = 10 * 1024 * 1024  # HTTP API payload quota
_DRAIN_LIMIT = 64 * 1024 * 1024
_ADMIN_SCHEDULE = compile_template("/local/schedules/{key}")

NOT_FOUND = json_response(404, {"message": "Not Found"})
UNAUTHORIZED = json_response(401, {"message": "Unauthorized"})
FORBIDDEN = json_response(403, {"message": "Forbidden"})
TOO_LARGE = json_response(413, {"message": "Request Entity Too Large"})
INTERNAL_ERROR = json_response(500, {"message": "Internal Server Error"})


class Gateway:
    """The WSGI application."""

    def __init__(
        self,
        runtime: Runtime,
        routes: RouteTable,
        authorizer: AuthorizerGate | None,
        *,
        token_sha256: str | None = None,
        scheduler: Scheduler | None = None,
    ) -> None:
        if authorizer is None and any(r.http.authorized for r in routes):
            raise ValueError("authorized routes need an authorizer")
        self._runtime = runtime
        self._routes = routes
        self._authorizer = authorizer
        self._token_sha256 = token_sha256
        self._scheduler = scheduler

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        request = Request(environ)
        try:
            answer = self.handle(request)
        except Exception:
            log.exception("gateway error on %s %s", request.method, request.path)
            answer = INTERNAL_ERROR
        response = Response(answer.body, status=answer.status)
        response.headers.clear()
        for name, value in answer.headers:
            response.headers.add(name, value)
        return response(environ, start_response)

    def handle(self, request: Request) -> HttpResponse:
        raw_path, raw_query = _raw_target(request)
        if raw_path.startswith("/local/"):
            return self._admin(request, raw_path)
        match = self._routes.match(request.method, raw_path)
        if match is None:
            _drain(request)
            return NOT_FOUND
        body = _read_body(request)
        if body is None:
            return TOO_LARGE
        event = http_event(
            request.method,
            raw_path,
            route=match.route.http.path,
            body=body or None,
            headers=list(request.headers.items()),
            query=raw_query,
            path_parameters=match.path_parameters,
            source_ip=request.remote_addr or "127.0.0.1",
            domain_name=(request.host or "localhost").rsplit(":", 1)[0],
        )
        request_id = event["requestContext"]["requestId"]
        if match.route.http.authorized:
            assert self._authorizer is not None
            decision = self._authorizer.authorize(event)
            if not decision.allowed:
                return _with_request_id(_AUTH_ANSWERS[decision.status], request_id)
            event["requestContext"]["authorizer"] = {"lambda": decision.context}
        invocation = self._runtime.invoke(match.route.function.key, event)
        if not invocation.ok:
            return _with_request_id(INTERNAL_ERROR, request_id)
        try:
            answer = http_response(invocation.result)
        except InvalidResponseError as error:
            log.error("%s returned an invalid HTTP API response: %s", match.route.function.key, error)
            return _with_request_id(INTERNAL_ERROR, request_id)
        return _with_request_id(answer, request_id)

    def _admin(self, request: Request, raw_path: str) -> HttpResponse:
        _drain(request)
        params = _ADMIN_SCHEDULE.match(raw_path)
        if request.method != "POST" or params is None:
            return NOT_FOUND
        denied = self._check_token(request.headers.get("authorization", ""))
        if denied is not None:
            return denied
        key = params["key"]
        if self._scheduler is None or key not in self._scheduler.keys:
            return json_response(404, {"message": f"no scheduled function {key!r}"})
        invocation = self._scheduler.run_now(key)
        if not invocation.ok:
            return json_response(500, {"message": "Internal Server Error", "error": invocation.error})
        return json_response(
            200, {"function": key, "requestId": invocation.request_id, "result": invocation.result}
        )

    def _check_token(self, header: str) -> HttpResponse | None:
        token = header.removeprefix("Bearer ").removeprefix("bearer ").strip()
        if not token:
            return UNAUTHORIZED
        digest = hashlib.sha256(token.encode()).hexdigest()
        if self._token_sha256 is None or not hmac.compare_digest(digest, self._token_sha256):
            return FORBIDDEN
        return None


_AUTH_ANSWERS = {401: UNAUTHORIZED, 403: FORBIDDEN, 500: INTERNAL_ERROR}


# http.server answers a request line over 64 KiB itself, with an HTML 414 no route documents. The
# local gateway takes one up to this size, so the function's own validation answers it (422 for a
# parameter over its maxLength). API Gateway's 10,240-byte quota on the request line and headers is
# not modelled: its answer to it is not documented either.
MAX_REQUEST_LINE_BYTES = 1024 * 1024


class _RequestHandler(WSGIRequestHandler):
    """Werkzeug's handler with its log lines sent to our loggers (moto's stay quiet)."""

    def handle_one_request(self) -> None:
        # http.server's own, with a longer request line (its 65,536 is a literal in the method)
        try:
            self.raw_requestline = self.rfile.readline(MAX_REQUEST_LINE_BYTES + 1)
            if len(self.raw_requestline) > MAX_REQUEST_LINE_BYTES:
                self.requestline = self.request_version = self.command = ""
                self.send_error(HTTPStatus.REQUEST_URI_TOO_LONG)
                return
            if not self.raw_requestline:
                self.close_connection = True
                return
            if not self.parse_request():
                return
            handler = getattr(self, f"do_{self.command}", None)
            if handler is None:
                self.send_error(HTTPStatus.NOT_IMPLEMENTED, f"Unsupported method ({self.command!r})")
                return
            handler()
            self.wfile.flush()
        except TimeoutError as error:
            self.log_error("Request timed out: %r", error)
            self.close_connection = True

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        access_log.info('%s "%s" %s', self.address_string(), self.requestline, code)

    def log(self, type: str, message: str, *args: Any) -> None:
        getattr(log, type if type in ("info", "warning", "error") else "info")(message, *args)


class GatewayServer:
    """A threaded werkzeug server for the gateway. Binds in the constructor (OSError if taken)."""

    def __init__(self, app: Gateway, host: str, port: int) -> None:
        self._server: BaseWSGIServer = make_server(
            host, port, app, threaded=True, request_handler=_RequestHandler
        )
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> None:
        self._thread = threading.Thread(target=self._server.serve_forever, name="gateway", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join(timeout=10)
        self._server.server_close()


def _raw_target(request: Request) -> tuple[str, str]:
    """The request path as sent (still percent-encoded) and the raw query string."""
    raw = request.environ.get("RAW_URI") or request.environ.get("REQUEST_URI") or request.full_path
    if "://" in raw:  # absolute-form request target
        raw = "/" + raw.split("://", 1)[1].partition("/")[2]
    path, _, query = raw.partition("?")
    return path or "/", query


def _read_body(request: Request) -> bytes | None:
    """The body, or None when it is over the HTTP API limit."""
    length = request.content_length
    if length is not None and length > MAX_BODY_BYTES:
        _drain(request)
        return None
    data = request.stream.read(MAX_BODY_BYTES + 1)
    if len(data) > MAX_BODY_BYTES:
        _drain(request)
        return None
    return data


def _drain(request: Request) -> None:
    """Read and drop an unread body so the client sees our answer rather than a reset."""
    total = 0
    while total < _DRAIN_LIMIT:
        chunk = request.stream.read(65536)
        if not chunk:
            return
        total += len(chunk)


def _with_request_id(answer: HttpResponse, request_id: str) -> HttpResponse:
    return HttpResponse(answer.status, [*answer.headers, ("apigw-requestid", request_id)], answer.body)
