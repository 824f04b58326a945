"""What every HTTP function shares: the resolver, the caller from the authorizer, typed errors."""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable
from typing import Annotated, Any, Protocol, TypeVar, cast

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response, content_types
from aws_lambda_powertools.event_handler.exceptions import NotFoundError, ServiceError
from aws_lambda_powertools.event_handler.middlewares import NextMiddleware
from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError
from aws_lambda_powertools.event_handler.openapi.params import Path
from pydantic import BaseModel

from continuity_core.kernel import http_input
from continuity_core.kernel.errors import (
    FlushConflictError,
    IdempotencyKeyConflictError,
    InvalidPageTokenError,
    KeyTooLongError,
    SessionDeletedError,
    StorageUnavailableError,
    TranscriptGapError,
)
from continuity_core.kernel.observability import count, logger
from continuity_core.models.ids import PATH_SEGMENT_PATTERN, SESSION_ID_MAX, SessionId

MAX_BODY_BYTES = 1024 * 1024
RETRY_AFTER_SECONDS = 2

# A session id in a route that reads or deletes: any id stored, those stored before the identifier
# rule included (models/ids.py), so nothing stored becomes unreachable.
StoredSessionKey = Annotated[str, Path(min_length=1, max_length=SESSION_ID_MAX)]
# In a route that writes under it (an agent's digest): the ingest rule, a 422 naming it.
NewSessionKey = Annotated[SessionId, Path()]


class Caller(BaseModel):
    """Who is calling, as the authorizer decided. The only source of the tenant."""

    agent_id: str
    scopes: frozenset[str]
    token_name: str | None = None  # the token's label (a person, by convention): a session's default person


class UnauthorizedError(ServiceError):
    def __init__(self, message: str = "Unauthorized") -> None:
        super().__init__(401, message)


class ForbiddenError(ServiceError):
    def __init__(self, message: str) -> None:
        super().__init__(403, message)


# The one error shape: {"error": <code>, "detail": <message>} (plus "errors" / "stored_length").
ERROR_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    410: "gone",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "invalid_request",
    429: "rate_limited",
    500: "internal_error",
    503: "unavailable",
}


class ErrorBody(BaseModel):
    """Every error answer of the service (API Gateway's own 401/403 say ``{"message": …}``)."""

    error: str
    detail: str
    errors: list[dict[str, str]] | None = None
    stored_length: int | None = None


def error_body(status: int, detail: str, **extra: Any) -> dict[str, Any]:
    return {"error": ERROR_CODES.get(status, f"http_{status}"), "detail": detail, **extra}


def error_response(status: int, detail: str, **extra: Any) -> Response[str]:
    headers = {"Retry-After": str(extra.pop("retry_after"))} if "retry_after" in extra else None
    return Response(
        status_code=status,
        content_type=content_types.APPLICATION_JSON,
        body=json.dumps(error_body(status, detail, **extra)),
        headers=headers,
    )


def _described(status: int, description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"model": ErrorBody}}}


def created(model: type[BaseModel]) -> dict[int, Any]:
    """Responses of a route that answers 201 with ``model``."""
    errors = {status: response for status, response in ERROR_RESPONSES.items() if status >= 400}
    return {**errors, 201: {"description": "Created", "content": {"application/json": {"model": model}}}}


# Declared on every route, so the OpenAPI document says what a client can get back.
ERROR_RESPONSES: dict[int, Any] = {
    200: {"description": "OK"},  # no content given: the route's return annotation is the schema
    400: _described(400, "Malformed JSON, or an invalid page token"),
    401: _described(401, "No bearer token (API Gateway answers this itself)"),
    403: _described(403, "The token is refused, or lacks the route's scope"),
    404: _described(404, "Nothing stored under this key for the caller's agent"),
    409: _described(
        409,
        "A transcript append past the stored end (resend from stored_length), or an idempotency key "
        "sent again with a different body",
    ),
    410: _described(410, "Part of this transcript has expired, or the session was deleted"),
    413: _described(413, "Body over the limit"),
    415: _described(415, "The body is not JSON"),
    422: _described(422, "The request does not validate"),
    429: _described(429, "Rate limit reached; see Retry-After"),
    503: _described(503, "The store is throttling; see Retry-After"),
}


def _location(loc: Any) -> str:
    return ".".join(str(part) for part in loc) if isinstance(loc, (list, tuple)) else str(loc)


def _validation_response(error: RequestValidationError) -> Response[str]:
    problems = error.errors()
    if any(p.get("type") == "json_invalid" for p in problems):
        return error_response(400, "malformed JSON body")
    details = [{"field": _location(p.get("loc")), "message": p.get("msg", "")} for p in problems]
    path_problems = [p for p in problems if tuple(p.get("loc", ()))[:1] == ("path",)]
    if path_problems:
        problem = path_problems[0]
        name = _location(tuple(problem.get("loc", ()))[1:])
        # Never the value: a path segment may be an identifier holding a secret.
        if problem.get("type") == "value_error":  # an identifier rule (models/ids.py): bad input
            return error_response(422, f"invalid {name}: {problem.get('msg', '')}", errors=details)
        return error_response(404, f"unknown {name}: {problem.get('msg', '')}")
    summary = "; ".join(f"{d['field']}: {d['message']}" for d in details)
    return error_response(422, f"invalid request: {summary}", errors=details)


def _rate_key(event: dict[str, Any]) -> str | None:
    """The caller's rate key (its token), as the authorizer passed it; None without one."""
    claims = ((event.get("requestContext") or {}).get("authorizer") or {}).get("lambda") or {}
    key = claims.get("token_id") or claims.get("agent_id")
    return str(key) if key else None


class RateWindows(Protocol):
    """Each token's requests per minute (``admin/ratelimit.py``'s ``RateLimiter``; its clock is its own)."""

    def admit(self, key: str) -> int | None: ...
    def saw(self, key: str, harness: str, event: str) -> None: ...
    def settle(self, key: str, status: int) -> None: ...


def _windows(app: APIGatewayHttpResolver) -> RateWindows:
    """The rate windows of the function ``app`` answers for (its composition root built them)."""
    if not isinstance(app, Resolver):
        raise TypeError("an HTTP function's app comes from create_app")
    return app.rate_windows()


def rate_limit(app: APIGatewayHttpResolver, next_middleware: NextMiddleware) -> Response[Any]:
    """429 with Retry-After once the caller's token used its requests for this minute."""
    key = _rate_key(app.current_event.raw_event)
    if key:
        retry_after = _windows(app).admit(key)
        if retry_after is not None:
            count("RateLimited")
            return error_response(429, "rate limit reached; retry later", retry_after=retry_after)
    return next_middleware(app)


def redacting_serializer(body: Any) -> str:
    """JSON of an answer with every secret redacted again on the way out (defence in depth)."""
    from aws_lambda_powertools.shared.json_encoder import Encoder

    from continuity_core.redaction import redact_strings

    report: dict[str, int] = {}
    text = json.dumps(redact_strings(body, report), separators=(",", ":"), cls=Encoder)
    if report:
        count("RedactedOnServe", value=sum(report.values()))
    return text


_DYNAMIC_SEGMENT = re.compile(r"<(\w+)>")


class Resolver(APIGatewayHttpResolver):
    """Powertools' resolver, its path parameters matched by our declared segment pattern
    (``models.ids.PATH_SEGMENT_PATTERN``: any segment) instead of its own character class, which
    refuses ``"``, backquote, ``\\``, TAB, NUL …: every id the service accepted is reachable.
    It carries the function's rate windows, given by its composition root and built when first used."""

    def __init__(self, rate_windows: Callable[[], RateWindows], **options: Any) -> None:
        super().__init__(**options)
        self.rate_windows = rate_windows

    @staticmethod
    def _compile_regex(rule: str, base_regex: str = "^{}$") -> re.Pattern[str]:
        return re.compile(base_regex.format(_DYNAMIC_SEGMENT.sub(rf"(?P<\1>{PATH_SEGMENT_PATTERN})", rule)))


_ErrorHandler = TypeVar("_ErrorHandler", bound=Callable[..., "Response[str]"])


def on_error(app: APIGatewayHttpResolver, error: type[Exception]) -> Callable[[_ErrorHandler], _ErrorHandler]:
    """Powertools' ``exception_handler``, typed: it registers the function and returns it as given."""
    return cast(Callable[[_ErrorHandler], _ErrorHandler], app.exception_handler(error))


def create_app(rate_windows: Callable[[], RateWindows], redact_responses: bool = True) -> Resolver:
    """An HTTP API resolver with validation on and the service's error mapping installed;
    ``rate_windows`` gives the function's rate limiter (called per request: built on first use).

    Answers are redacted on the way out unless they are meant to carry a secret (a new token).
    """
    app = Resolver(
        rate_windows, enable_validation=True, serializer=redacting_serializer if redact_responses else None
    )
    app.use(middlewares=[rate_limit])

    @on_error(app, RequestValidationError)
    def _invalid(error: RequestValidationError) -> Response[str]:
        return _validation_response(error)

    @on_error(app, StorageUnavailableError)
    def _unavailable(error: StorageUnavailableError) -> Response[str]:
        logger.warning("storage unavailable", extra={"error": str(error)})
        return error_response(503, "storage is busy; retry shortly", retry_after=RETRY_AFTER_SECONDS)

    @on_error(app, TranscriptGapError)
    def _gap(error: TranscriptGapError) -> Response[str]:
        return error_response(409, str(error), stored_length=error.stored_length)

    @on_error(app, IdempotencyKeyConflictError)
    def _key_reused(error: IdempotencyKeyConflictError) -> Response[str]:
        return error_response(409, str(error))

    @on_error(app, FlushConflictError)
    def _busy_session(error: FlushConflictError) -> Response[str]:
        return error_response(503, str(error), retry_after=RETRY_AFTER_SECONDS)

    @on_error(app, SessionDeletedError)
    def _deleted(error: SessionDeletedError) -> Response[str]:
        # 410, not 2xx: the client drops the hook (a 4xx) instead of spooling it, and logs why.
        return error_response(410, str(error))

    @on_error(app, InvalidPageTokenError)
    def _bad_page_token(error: InvalidPageTokenError) -> Response[str]:
        return error_response(400, str(error))

    @on_error(app, KeyTooLongError)
    def _too_long(error: KeyTooLongError) -> Response[str]:
        return error_response(422, str(error))

    @on_error(app, UnicodeDecodeError)
    def _not_text(error: UnicodeDecodeError) -> Response[str]:
        return error_response(400, "the body is not UTF-8 JSON")

    @on_error(app, ServiceError)
    def _service_error(error: ServiceError) -> Response[str]:
        return error_response(error.status_code, str(error.msg))

    @app.not_found
    def _not_found(error: NotFoundError) -> Response[str]:
        # Powertools sends both here: an unmatched route (a bare NotFoundError()) and a route's own
        # NotFoundError, whose message says what is missing and must reach the caller.
        own = isinstance(error, NotFoundError) and str(error.msg) != NotFoundError().msg
        return error_response(404, str(error.msg) if own else "no such route")

    return app


def caller(app: APIGatewayHttpResolver, scope: str | None = None, *alternatives: str) -> Caller:
    """The tenant and scopes from the authorizer's context (never from the body or query).

    With ``scope``, a token without it (or one of ``alternatives``) is refused (403): every route
    names the scope it needs.
    """
    context = (app.current_event.raw_event.get("requestContext") or {}).get("authorizer") or {}
    claims = context.get("lambda") or {}
    agent_id = claims.get("agent_id")
    if not agent_id:
        raise UnauthorizedError()
    scopes = frozenset(s for s in str(claims.get("scopes", "")).split(",") if s)
    wanted = [str(name) for name in (scope, *alternatives) if name is not None]
    if wanted and scopes.isdisjoint(wanted):
        # str(): a Scope's repr is "<Scope.HOOKS: 'hooks'>", which a user should never read.
        raise ForbiddenError(f"this token lacks the {' or '.join(repr(name) for name in wanted)} scope")
    return Caller(
        agent_id=str(agent_id), scopes=scopes, token_name=str(claims.get("token_name") or "") or None
    )


def refused_early(event: dict[str, Any]) -> dict[str, Any] | None:
    """What is answered before anything parses the body: over 1 MB (413), not JSON (415), or JSON
    a parser must not be given (400: too deep, a number too long; ``http_input``)."""
    body = event.get("body") or ""
    # surrogatepass: a lone surrogate is measured here, and replaced later (http_input.cleaned).
    size = len(body) * 3 // 4 if event.get("isBase64Encoded") else len(body.encode("utf-8", "surrogatepass"))
    if size > MAX_BODY_BYTES:
        return _raw_error(413, f"body over {MAX_BODY_BYTES} bytes")
    headers = {k.lower(): v for k, v in (event.get("headers") or {}).items()}
    content_type = headers.get("content-type", "").split(";")[0].strip().lower()
    if body and content_type and content_type != "application/json" and not content_type.endswith("+json"):
        return _raw_error(415, f"send application/json, not {content_type}")
    text = http_input.body_text(event)
    refused = http_input.refusal(text) if text else None
    return _raw_error(400, refused) if refused else None


def resolve(app: Resolver, event: dict[str, Any], context: Any) -> dict[str, Any]:
    """Every HTTP function's entry: the early refusals, then the resolver (on the event with its
    lone surrogates and NULs replaced). Where every answer is made, so its status is counted here
    (the health page's 4xx and 5xx, on the rate windows)."""
    try:
        answer = refused_early(event) or app.resolve(
            http_input.cleaned(event, http_input.body_text(event)), context
        )
    except Exception:
        with contextlib.suppress(Exception):  # the function's own error is the one to raise
            _settle(app, event, 500)  # API Gateway answers 500 for a function that raised
        raise
    _settle(app, event, int(answer.get("statusCode", 200)))
    return answer


def seen_hook(app: APIGatewayHttpResolver, harness: str, event: str) -> None:
    """A hook of ``harness`` and ``event`` was received (the health page's last hook per kind)."""
    key = _rate_key(app.current_event.raw_event)
    if key:
        _windows(app).saw(key, harness, event)


def _settle(app: Resolver, event: dict[str, Any], status: int) -> None:
    """Count the answer on the caller's rate window (added with the window's next write). A busy
    store costs the count, never the answer; any other failure (a missing grant) is loud."""
    key = _rate_key(event)
    if not key:
        return
    try:
        app.rate_windows().settle(key, status)
    except StorageUnavailableError:
        logger.warning("could not add to the rate window", exc_info=True)
        count("RateWindowFailures")


def _raw_error(status: int, detail: str) -> dict[str, Any]:
    return {
        "statusCode": status,
        "headers": {"Content-Type": "application/json"},
        "body": json.dumps(error_body(status, detail)),
    }
