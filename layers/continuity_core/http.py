"""What every HTTP function shares: the resolver, the caller from the authorizer, typed errors."""

from __future__ import annotations

import json
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response, content_types
from aws_lambda_powertools.event_handler.exceptions import ServiceError
from aws_lambda_powertools.event_handler.middlewares import NextMiddleware
from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError
from pydantic import BaseModel

from continuity_core.observability import count, logger
from continuity_core.ports import StorageUnavailableError, TranscriptGapError

MAX_BODY_BYTES = 1024 * 1024
RETRY_AFTER_SECONDS = 2


class Caller(BaseModel):
    """Who is calling, as the authorizer decided. The only source of the tenant."""

    agent_id: str
    scopes: frozenset[str]


class UnauthorizedError(ServiceError):
    def __init__(self, message: str = "Unauthorized") -> None:
        super().__init__(401, message)


class ForbiddenError(ServiceError):
    def __init__(self, message: str) -> None:
        super().__init__(403, message)


def error_response(status: int, message: str, **extra: Any) -> Response:
    headers = {"Retry-After": str(extra.pop("retry_after"))} if "retry_after" in extra else None
    body = {"statusCode": status, "message": message, **extra}
    return Response(
        status_code=status,
        content_type=content_types.APPLICATION_JSON,
        body=json.dumps(body),
        headers=headers,
    )


def _location(loc: Any) -> str:
    return ".".join(str(part) for part in loc) if isinstance(loc, (list, tuple)) else str(loc)


def _validation_response(error: RequestValidationError) -> Response:
    problems = error.errors()
    if any(p.get("type") == "json_invalid" for p in problems):
        return error_response(400, "malformed JSON body")
    details = [{"field": _location(p.get("loc")), "message": p.get("msg", "")} for p in problems]
    path_problems = [p for p in problems if tuple(p.get("loc", ()))[:1] == ("path",)]
    if path_problems:
        problem = path_problems[0]
        name = _location(tuple(problem.get("loc", ()))[1:])
        return error_response(404, f"unknown {name} {problem.get('input')!r}: {problem.get('msg', '')}")
    summary = "; ".join(f"{d['field']}: {d['message']}" for d in details)
    return error_response(422, f"invalid request: {summary}", errors=details)


def rate_limit(app: APIGatewayHttpResolver, next_middleware: NextMiddleware) -> Response:
    """429 with Retry-After once the caller's token used its requests for this minute."""
    claims = ((app.current_event.raw_event.get("requestContext") or {}).get("authorizer") or {}).get("lambda")
    key = (claims or {}).get("token_id") or (claims or {}).get("agent_id")
    if key:
        from continuity_core.services import rate_limiter

        retry_after = rate_limiter().admit(str(key))
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


def create_app(redact_responses: bool = True) -> APIGatewayHttpResolver:
    """An HTTP API resolver with validation on and the service's error mapping installed.

    Answers are redacted on the way out unless they are meant to carry a secret (a new token).
    """
    app = APIGatewayHttpResolver(
        enable_validation=True, serializer=redacting_serializer if redact_responses else None
    )
    app.use(middlewares=[rate_limit])

    @app.exception_handler(RequestValidationError)
    def _invalid(error: RequestValidationError) -> Response:
        return _validation_response(error)

    @app.exception_handler(StorageUnavailableError)
    def _unavailable(error: StorageUnavailableError) -> Response:
        logger.warning("storage unavailable", extra={"error": str(error)})
        return error_response(503, "storage is busy; retry shortly", retry_after=RETRY_AFTER_SECONDS)

    @app.exception_handler(TranscriptGapError)
    def _gap(error: TranscriptGapError) -> Response:
        return error_response(409, str(error), stored_length=error.stored_length)

    return app


def caller(app: APIGatewayHttpResolver, scope: str | None = None) -> Caller:
    """The tenant and scopes from the authorizer's context (never from the body or query).

    With ``scope``, a token without it is refused (403): every route names the scope it needs.
    """
    context = (app.current_event.raw_event.get("requestContext") or {}).get("authorizer") or {}
    claims = context.get("lambda") or {}
    agent_id = claims.get("agent_id")
    if not agent_id:
        raise UnauthorizedError()
    scopes = frozenset(s for s in str(claims.get("scopes", "")).split(",") if s)
    if scope is not None and scope not in scopes:
        raise ForbiddenError(f"this token lacks the {scope!r} scope")
    return Caller(agent_id=str(agent_id), scopes=scopes)


def body_too_large(event: dict[str, Any]) -> dict[str, Any] | None:
    """A 413 answer for bodies over 1 MB, checked before anything parses them."""
    body = event.get("body") or ""
    size = len(body) * 3 // 4 if event.get("isBase64Encoded") else len(body.encode("utf-8"))
    if size <= MAX_BODY_BYTES:
        return None
    return {
        "statusCode": 413,
        "headers": {"Content-Type": "application/json"},
        "body": json.dumps({"statusCode": 413, "message": f"body over {MAX_BODY_BYTES} bytes"}),
    }
