"""Lambda event payloads in the shapes AWS sends them, shared by the gateway, poller, timer, invoke and tests.

- ``http_event``: API Gateway HTTP API, payload format 2.0 (the request a route's function receives).
- ``authorizer_event``: HTTP API Lambda authorizer, REQUEST type, payload format 2.0.
- ``http_response``: how API Gateway turns a payload 2.0 function result into the HTTP response.
- ``sqs_record`` / ``sqs_record_from_message`` / ``sqs_event``: an SQS event source batch.
- ``scheduled_event``: the EventBridge "Scheduled Event" of a rate rule.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qsl, unquote, urlencode

from infra.local.routes import path_parameters as _path_parameters

ACCOUNT_ID = "123456789012"  # moto's default account
REGION = "us-east-1"
API_ID = "local"
STAGE = "$default"

Headers = Mapping[str, str] | Iterable[tuple[str, str]]
Body = str | bytes | Mapping[str, Any] | Sequence[Any] | None

_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


# ---------------------------------------------------------------------------------------------
# HTTP API payload format 2.0
# ---------------------------------------------------------------------------------------------


def http_event(
    method: str,
    path: str,
    route: str | None = None,
    *,
    body: Body = None,
    headers: Headers | None = None,
    query: str | Mapping[str, str | Sequence[str]] | None = None,
    path_parameters: Mapping[str, str] | None = None,
    authorizer: Mapping[str, Any] | None = None,
    source_ip: str = "127.0.0.1",
    domain_name: str = "localhost",
    request_id: str | None = None,
    now: datetime | None = None,
) -> dict[str, Any]:
    """An HTTP API payload 2.0 event for ``method path``.

    ``path`` is the raw (percent-encoded) request path; ``route`` the matched path template
    (``/api/hooks/{event}``; default: ``path``), from which ``pathParameters`` are taken unless given.
    ``rawPath`` and ``requestContext.http.path`` carry the path percent-decoded, as an HTTP API
    delivers them: Powertools routes on ``rawPath``, so a session key ``agent%3Amain%3Amain``
    must reach the handler as ``agent:main:main``.
    A mapping or sequence ``body`` is sent as JSON; bytes that are not UTF-8 are base64-encoded.
    ``authorizer`` is the Lambda authorizer's context (``requestContext.authorizer.lambda``).
    """
    method = method.upper()
    route = route or path
    now = now or datetime.now(UTC)
    header_map = _header_map(headers)
    cookies = _pop_cookies(header_map)
    body_text, is_base64 = _encode_body(body, header_map)
    raw_query = _raw_query(query)
    params = dict(path_parameters) if path_parameters is not None else _path_parameters(route, path)
    decoded_path = unquote(path)

    header_map.setdefault("host", domain_name)
    header_map.setdefault("x-forwarded-for", source_ip)
    header_map.setdefault("x-forwarded-proto", "http")
    header_map.setdefault("x-amzn-trace-id", _trace_id(now))
    if body_text is not None:
        header_map.setdefault("content-length", str(len(_body_bytes(body_text, is_base64))))

    route_key = f"{method} {route}"
    context: dict[str, Any] = {
        "accountId": ACCOUNT_ID,
        "apiId": API_ID,
        "domainName": domain_name,
        "domainPrefix": domain_name.split(".")[0],
        "http": {
            "method": method,
            "path": decoded_path,
            "protocol": "HTTP/1.1",
            "sourceIp": source_ip,
            "userAgent": header_map.get("user-agent", ""),
        },
        "requestId": request_id or _request_id(),
        "routeKey": route_key,
        "stage": STAGE,
        "time": _clf_time(now),
        "timeEpoch": int(now.timestamp() * 1000),
    }
    if authorizer is not None:
        context["authorizer"] = {"lambda": dict(authorizer)}

    event: dict[str, Any] = {
        "version": "2.0",
        "routeKey": route_key,
        "rawPath": decoded_path,
        "rawQueryString": raw_query,
    }
    if cookies:
        event["cookies"] = cookies
    event["headers"] = header_map
    if raw_query:
        event["queryStringParameters"] = _query_parameters(raw_query)
    event["requestContext"] = context
    if body_text is not None:
        event["body"] = body_text
    if params:
        event["pathParameters"] = params
    event["isBase64Encoded"] = is_base64
    return event


def route_arn(method: str, path: str) -> str:
    """The ``routeArn`` API Gateway hands an authorizer for a request."""
    return f"arn:aws:execute-api:{REGION}:{ACCOUNT_ID}:{API_ID}/{STAGE}/{method.upper()}{path}"


def authorizer_event(
    request: Mapping[str, Any], *, identity_source: Sequence[str], arn: str | None = None
) -> dict[str, Any]:
    """The REQUEST authorizer payload 2.0 event for an ``http_event`` (it carries no body)."""
    context = {k: v for k, v in request["requestContext"].items() if k != "authorizer"}
    method = context["http"]["method"]
    event: dict[str, Any] = {
        "version": "2.0",
        "type": "REQUEST",
        "routeArn": arn or route_arn(method, request["rawPath"]),
        "identitySource": list(identity_source),
        "routeKey": request["routeKey"],
        "rawPath": request["rawPath"],
        "rawQueryString": request["rawQueryString"],
    }
    for key in ("cookies", "headers", "queryStringParameters"):
        if key in request:
            event[key] = request[key]
    event["requestContext"] = context
    if "pathParameters" in request:
        event["pathParameters"] = request["pathParameters"]
    return event


@dataclass(frozen=True)
class HttpResponse:
    """What the client receives."""

    status: int
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""

    def header(self, name: str) -> str | None:
        return next((v for k, v in self.headers if k.lower() == name.lower()), None)

    def json(self) -> Any:
        return json.loads(self.body)


class InvalidResponseError(ValueError):
    """The function's result is not a valid payload 2.0 response (API Gateway answers 500)."""


def http_response(result: Any) -> HttpResponse:
    """Translate a payload 2.0 function result as API Gateway does.

    A dict with ``statusCode`` is a full response (``headers``, ``body``, ``isBase64Encoded``,
    ``cookies``). Anything else is the body of a 200 ``application/json`` response: a string as is,
    other values as JSON.
    """
    if not (isinstance(result, dict) and "statusCode" in result):
        text = result if isinstance(result, str) else json.dumps(result)
        return HttpResponse(200, [("content-type", "application/json")], text.encode())
    try:
        status = int(result["statusCode"])
    except (TypeError, ValueError) as error:
        raise InvalidResponseError(f"statusCode is not an integer: {result['statusCode']!r}") from error
    if not 100 <= status <= 599:
        raise InvalidResponseError(f"statusCode out of range: {status}")
    headers_in = result.get("headers") or {}
    if not isinstance(headers_in, dict):
        raise InvalidResponseError("headers must be an object")
    headers = [(str(k), _header_value(v)) for k, v in headers_in.items()]
    for cookie in result.get("cookies") or []:
        headers.append(("set-cookie", str(cookie)))
    body = result.get("body")
    if body is None:
        payload = b""
    elif not isinstance(body, str):
        raise InvalidResponseError(f"body must be a string, got {type(body).__name__}")
    elif result.get("isBase64Encoded"):
        try:
            payload = base64.b64decode(body, validate=True)
        except ValueError as error:
            raise InvalidResponseError("isBase64Encoded is set but body is not base64") from error
    else:
        payload = body.encode()
    return HttpResponse(status, headers, payload)


def json_response(status: int, payload: Any) -> HttpResponse:
    return HttpResponse(status, [("content-type", "application/json")], json.dumps(payload).encode())


# ---------------------------------------------------------------------------------------------
# SQS event source
# ---------------------------------------------------------------------------------------------


def queue_arn(queue_name: str) -> str:
    return f"arn:aws:sqs:{REGION}:{ACCOUNT_ID}:{queue_name}"


def sqs_record(
    body: Body,
    *,
    queue: str = "queue",
    message_id: str | None = None,
    receipt_handle: str | None = None,
    receive_count: int = 1,
    sent_at: datetime | None = None,
    message_attributes: Mapping[str, Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """One SQS record as Lambda delivers it. ``body``: a string, or a value sent as JSON.

    ``queue`` is the queue name or ARN; ``message_attributes`` use Lambda's shape
    (``{"name": {"stringValue": "...", "dataType": "String"}}``).
    """
    text = _json_text(body)
    sent = int((sent_at or datetime.now(UTC)).timestamp() * 1000)
    arn = queue if queue.startswith("arn:") else queue_arn(queue)
    record: dict[str, Any] = {
        "messageId": message_id or str(uuid.uuid4()),
        "receiptHandle": receipt_handle or base64.b64encode(os.urandom(48)).decode(),
        "body": text,
        "attributes": {
            "ApproximateReceiveCount": str(receive_count),
            "SentTimestamp": str(sent),
            "SenderId": "AIDAIT2UOQQY3AUEKVGXU",
            "ApproximateFirstReceiveTimestamp": str(sent + 1),
        },
        "messageAttributes": {k: dict(v) for k, v in (message_attributes or {}).items()},
        "md5OfBody": hashlib.md5(text.encode()).hexdigest(),
        "eventSource": "aws:sqs",
        "eventSourceARN": arn,
        "awsRegion": REGION,
    }
    return record


def sqs_record_from_message(message: Mapping[str, Any], *, queue: str) -> dict[str, Any]:
    """The Lambda record for a message from ``ReceiveMessage`` (boto3 shape), as the event source does."""
    arn = queue if queue.startswith("arn:") else queue_arn(queue)
    record: dict[str, Any] = {
        "messageId": message["MessageId"],
        "receiptHandle": message["ReceiptHandle"],
        "body": message["Body"],
        "attributes": dict(message.get("Attributes") or {}),
        "messageAttributes": {
            name: _lambda_message_attribute(value)
            for name, value in (message.get("MessageAttributes") or {}).items()
        },
        "md5OfBody": message.get("MD5OfBody") or hashlib.md5(message["Body"].encode()).hexdigest(),
        "eventSource": "aws:sqs",
        "eventSourceARN": arn,
        "awsRegion": REGION,
    }
    if message.get("MD5OfMessageAttributes"):
        record["md5OfMessageAttributes"] = message["MD5OfMessageAttributes"]
    return record


def sqs_event(records: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    return {"Records": [dict(r) for r in records]}


# ---------------------------------------------------------------------------------------------
# EventBridge schedule
# ---------------------------------------------------------------------------------------------


def scheduled_event(rule_name: str, *, now: datetime | None = None) -> dict[str, Any]:
    """The event an EventBridge rate rule sends its target."""
    now = now or datetime.now(UTC)
    return {
        "version": "0",
        "id": str(uuid.uuid4()),
        "detail-type": "Scheduled Event",
        "source": "aws.events",
        "account": ACCOUNT_ID,
        "time": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "region": REGION,
        "resources": [f"arn:aws:events:{REGION}:{ACCOUNT_ID}:rule/{rule_name}"],
        "detail": {},
    }


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------


def _header_map(headers: Headers | None) -> dict[str, str]:
    pairs = headers.items() if isinstance(headers, Mapping) else (headers or ())
    out: dict[str, str] = {}
    for name, value in pairs:
        key = name.lower()
        out[key] = f"{out[key]},{value}" if key in out else str(value)
    return out


def _pop_cookies(headers: dict[str, str]) -> list[str]:
    raw = headers.pop("cookie", "")
    return [c.strip() for c in raw.split(";") if c.strip()]


def _json_text(body: Body) -> str:
    if body is None:
        return ""
    if isinstance(body, str):
        return body
    if isinstance(body, bytes):
        return body.decode()
    return json.dumps(body)


def _encode_body(body: Body, headers: dict[str, str]) -> tuple[str | None, bool]:
    if body is None:
        return None, False
    if isinstance(body, bytes):
        try:
            return body.decode("utf-8"), False
        except UnicodeDecodeError:
            return base64.b64encode(body).decode("ascii"), True
    if not isinstance(body, str):
        headers.setdefault("content-type", "application/json")
    return _json_text(body), False


def _body_bytes(text: str, is_base64: bool) -> bytes:
    return base64.b64decode(text) if is_base64 else text.encode()


def _raw_query(query: str | Mapping[str, str | Sequence[str]] | None) -> str:
    if query is None:
        return ""
    if isinstance(query, str):
        return query.lstrip("?")
    pairs: list[tuple[str, str]] = []
    for key, value in query.items():
        values = [value] if isinstance(value, str) else list(value)
        pairs.extend((key, v) for v in values)
    return urlencode(pairs)


def _query_parameters(raw_query: str) -> dict[str, str]:
    """Duplicate keys are joined with commas (payload 2.0 has no multi-value fields)."""
    out: dict[str, str] = {}
    for key, value in parse_qsl(raw_query, keep_blank_values=True):
        out[key] = f"{out[key]},{value}" if key in out else value
    return out


def _header_value(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def _request_id() -> str:
    return base64.b64encode(os.urandom(10)).decode("ascii")


def _trace_id(now: datetime) -> str:
    return f"Root=1-{int(now.timestamp()):08x}-{os.urandom(12).hex()}"


def _clf_time(now: datetime) -> str:
    """Common Log Format time, as in ``requestContext.time`` (locale independent)."""
    now = now.astimezone(UTC)
    return f"{now.day:02d}/{_MONTHS[now.month - 1]}/{now.year}:{now:%H:%M:%S} +0000"


def _lambda_message_attribute(value: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "stringListValues": list(value.get("StringListValues") or []),
        "binaryListValues": [base64.b64encode(b).decode() for b in value.get("BinaryListValues") or []],
        "dataType": value.get("DataType", "String"),
    }
    if "StringValue" in value:
        out["stringValue"] = value["StringValue"]
    if "BinaryValue" in value:
        raw = value["BinaryValue"]
        out["binaryValue"] = base64.b64encode(raw).decode() if isinstance(raw, bytes) else raw
    return out
