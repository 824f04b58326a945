"""The hostile-input corpus: every route of the OpenAPI document, called in-process with input an
attacker would send (JSON nested 1,000 deep, 5,000-digit integers, lone surrogates, NUL, NaN), answers
a JSON 4xx or a 2xx, never a 5xx; and what a user sent is kept (a lone surrogate becomes U+FFFD)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from continuity_core.models.hooks import HookEvent
from infra import wiring
from tests.support.api import InProcessService
from tests.support.lambda_events import http_event, invoke
from tests.support.sessions import SessionsApi

OPENAPI = Path(__file__).parents[2] / "layers" / "continuity_core" / "openapi.json"
SESSION = "hostile-session"
PROJECT = "/work/hostile"

HUGE_INT = "9" * 5000
DEEP_ARRAY = "[" * 1000 + "]" * 1000
DEEP_IN_FIELD = '{"session_id": "' + SESSION + '", "prompt": "p", "extra": ' + DEEP_ARRAY + "}"
# Text values, as JSON string literals (escapes kept as the client sends them).
HOSTILE_TEXT = {
    "lone high surrogate": '"a\\ud800b"',
    "lone low surrogate": '"a\\udc00b"',
    "NUL": '"a\\u0000b"',
    "mixed": '"\\udfff\\u0000\\ud83d"',
}
# Numbers, as JSON literals, for every integer field.
HOSTILE_NUMBERS = {
    "5,000 digits": HUGE_INT,
    "minus 5,000 digits": "-" + HUGE_INT,
    "NaN": "NaN",
    "Infinity": "Infinity",
    "1e999": "1e999",
    "2**64": str(2**64),
}
# Values of query and path parameters (the gateway hands them over as text).
HOSTILE_PARAMETERS = {
    "5,000 digits": HUGE_INT,
    "minus 5,000 digits": "-" + HUGE_INT,
    "lone surrogate": "a\ud800b",
    "NUL": "a\x00b",
    "1e999": "1e999",
    "NaN": "NaN",
    "deep": DEEP_ARRAY,
}
# A valid value per parameter, so every other parameter reaches the code behind validation.
VALID_PARAMETERS = {
    "session_key": SESSION,
    "sequence": "1",
    "token_id": "tok-hostile",
    "event": HookEvent.USER_PROMPT_SUBMIT.value,
    "project": PROJECT,
}
# A valid body per request schema, the base each hostile field is put into.
VALID_BODIES: dict[str, dict[str, Any]] = {
    "HookRequest": {
        "session_id": SESSION,
        "cwd": PROJECT,
        "prompt": "refactor the writer",
        "transcript": {"offset": 0, "text": "user: refactor the writer\n"},
    },
    "DigestRequest": {"summary": "refactored", "project": PROJECT, "decisions": [{"decision": "keep it"}]},
    "SearchRequest": {"query": "writer", "session_key": SESSION},
    "CreateTokenRequest": {"agent_id": "default", "scopes": ["read"], "name": "hostile"},
    "HandoffRequest": {"note": "over to you", "branch": "main", "uncommitted": ["src/a.py"], "to": "bob"},
}


@dataclass(frozen=True)
class Route:
    method: str
    path: str
    function: str
    operation: dict[str, Any]

    @property
    def parameters(self) -> list[dict[str, Any]]:
        return list(self.operation.get("parameters", []))

    @property
    def body_schema(self) -> str | None:
        content = self.operation.get("requestBody", {}).get("content", {}).get("application/json", {})
        ref = content.get("schema", {}).get("$ref")
        return ref.rsplit("/", 1)[-1] if ref else None


def documented_routes() -> list[Route]:
    document = json.loads(OPENAPI.read_text())
    functions = {(r.method, r.path): f.key for f in wiring.FUNCTIONS for r in f.routes}
    return [
        Route(method.upper(), path, functions[(method.upper(), path)], operation)
        for path, operations in document["paths"].items()
        for method, operation in operations.items()
    ]


def _schemas() -> dict[str, Any]:
    return dict(json.loads(OPENAPI.read_text())["components"]["schemas"])


def fields(schema: dict[str, Any], kind: str, prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """The paths of a schema's fields of JSON ``kind`` (string, integer), into nested objects."""
    schemas = _schemas()
    for name, spec in schema.get("properties", {}).items():
        options = spec.get("anyOf", [spec])
        for option in options:
            if "$ref" in option:
                nested = schemas[option["$ref"].rsplit("/", 1)[-1]]
                if "properties" in nested:
                    yield from fields(nested, kind, (*prefix, name))
            elif option.get("type") == kind:
                yield (*prefix, name)


MARKER = "__HOSTILE__"


def with_literal(body: dict[str, Any], path: tuple[str, ...], literal: str) -> str:
    """``body`` as JSON text with the field at ``path`` set to the raw JSON ``literal``."""
    return with_literals(body, [path], literal)


def every_string(body: dict[str, Any], schema: dict[str, Any], literal: str) -> str:
    """``body`` with every string field of ``schema`` set to the raw JSON ``literal``."""
    return with_literals(body, list(fields(schema, "string")), literal)


def with_literals(body: dict[str, Any], paths: list[tuple[str, ...]], literal: str) -> str:
    copy = json.loads(json.dumps(body))
    for path in paths:
        target = copy
        for name in path[:-1]:  # a nested object the base body lacks gets its required fields
            target = target.setdefault(name, {"offset": 0, "text": "t"})
        target[path[-1]] = MARKER
    return json.dumps(copy).replace(f'"{MARKER}"', literal)


@dataclass(frozen=True)
class Request:
    route: Route
    case: str
    path_parameters: dict[str, str]
    query: dict[str, str]
    raw_body: str | None


def _path(route: Route, parameters: dict[str, str]) -> str:
    path = route.path
    for name, value in parameters.items():
        path = path.replace("{" + name + "}", value)
    return path


def _base(route: Route) -> tuple[dict[str, str], dict[str, str]]:
    path_parameters = {p["name"]: VALID_PARAMETERS[p["name"]] for p in route.parameters if p["in"] == "path"}
    query = {
        p["name"]: VALID_PARAMETERS[p["name"]]
        for p in route.parameters
        if p["in"] == "query" and p["name"] in VALID_PARAMETERS and p.get("required")
    }
    return path_parameters, query


def corpus(route: Route) -> Iterator[Request]:
    """The hostile requests of one route: its body's fields (for every hook event), then its
    parameters, one at a time."""
    path_parameters, query = _base(route)
    events = [e.value for e in HookEvent] if "event" in path_parameters else [""]
    for event in events:
        params = {**path_parameters, "event": event} if event else path_parameters
        for case, body in _bodies(route.body_schema):
            yield Request(route, f"{event} {case}".strip(), params, query, body)
    valid_body = json.dumps(VALID_BODIES[route.body_schema]) if route.body_schema else None
    for parameter in route.parameters:
        name, where = parameter["name"], parameter["in"]
        for case, value in HOSTILE_PARAMETERS.items():
            hostile_path = {**path_parameters, name: value} if where == "path" else path_parameters
            hostile_query = {**query, name: value} if where == "query" else query
            yield Request(route, f"{case} in {where} {name}", hostile_path, hostile_query, valid_body)


def _bodies(schema_name: str | None) -> Iterator[tuple[str, str]]:
    yield "1,000 nested arrays", DEEP_ARRAY
    yield "1,000 nested arrays in a field", DEEP_IN_FIELD
    yield "a 5,000-digit number as the body", HUGE_INT
    if schema_name is None:
        return
    schema, body = _schemas()[schema_name], VALID_BODIES[schema_name]
    yield "valid", json.dumps(body)
    for name, literal in HOSTILE_TEXT.items():
        yield f"{name} in every string", every_string(body, schema, literal)
    for path in fields(schema, "string"):  # one at a time too: a refused field hides no other
        yield f"mixed in {'.'.join(path)}", with_literal(body, path, HOSTILE_TEXT["mixed"])
    yield "raw lone surrogate", json.dumps(body)[:-1] + ', "prompt": "\ud800"}'
    for path in fields(schema, "integer"):
        for name, literal in HOSTILE_NUMBERS.items():
            yield f"{name} in {'.'.join(path)}", with_literal(body, path, literal)


def call(request: Request) -> dict[str, Any]:
    route = request.route
    event = http_event(
        route.method,
        _path(route, request.path_parameters),
        route.path,
        raw_body="{}" if request.raw_body is not None else None,
        path_parameters=request.path_parameters or None,
    )
    if request.raw_body is not None:  # as the gateway hands it over (encoding it would refuse a surrogate)
        event["body"] = request.raw_body
    if request.query:  # set as the gateway hands them over (urlencode would refuse a lone surrogate)
        event["queryStringParameters"] = dict(request.query)
        event["rawQueryString"] = "&".join(f"{k}={v}" for k, v in request.query.items())
    return dict(invoke(route.function, event))


def _ordered(routes: list[Route]) -> list[Route]:
    """Writes first, so the reads serve what the hostile writes stored; deletes last."""
    rank = {"POST": 0, "GET": 1, "DELETE": 2}
    return sorted(routes, key=lambda r: rank.get(r.method, 1))


@pytest.fixture
def unlimited(service: InProcessService, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CONTINUITY_RATE_LIMIT_PER_MINUTE", "100000")
    from tests.support.cold_starts import reset_functions

    reset_functions()


def test_no_route_answers_a_hostile_request_with_a_server_error(unlimited: None) -> None:
    routes = _ordered(documented_routes())
    server_errors, unshaped, requests = [], [], 0
    for route in routes:
        for request in corpus(route):
            requests += 1
            try:
                answer = call(request)
            except Exception as error:  # a raise is API Gateway's 500
                server_errors.append(f"{route.method} {route.path} [{request.case}]: raised {error!r:.200}")
                continue
            status = answer["statusCode"]
            if status >= 500:
                server_errors.append(f"{route.method} {route.path} [{request.case}]: {answer['body']:.200}")
            elif status >= 400 and set(json.loads(answer["body"])) < {"error", "detail"}:
                unshaped.append(f"{route.method} {route.path} [{request.case}]: {answer['body']:.200}")

    print(f"hostile-input corpus: {len(server_errors)} x 5xx, {requests} requests, {len(routes)} routes")
    assert server_errors == []
    assert unshaped == []
    assert len(routes) == len({(r.method, r.path) for r in routes}) >= 24


# -- each rule, as a user meets it -------------------------------------------------------------


def _hook(event: str, raw_body: str) -> tuple[int, Any]:
    hooks = next(r for r in documented_routes() if r.path == "/api/hooks/{event}")
    answer = call(Request(hooks, event, {"event": event}, {}, raw_body))
    return answer["statusCode"], json.loads(answer["body"])


@pytest.mark.usefixtures("service")
def test_json_nested_deeper_than_the_limit_answers_400_before_it_is_parsed() -> None:
    status, answer = _hook("user-prompt-submit", DEEP_IN_FIELD)

    assert (status, answer) == (400, {"error": "bad_request", "detail": "JSON nested deeper than 64 levels"})


@pytest.mark.usefixtures("service")
def test_a_hook_nested_as_deep_as_the_limit_is_accepted() -> None:
    nested = "[" * 63 + "]" * 63  # 63 in a field of the body's own object: 64 levels
    body = '{"session_id": "deep-ok", "cwd": "/w", "prompt": "p", "extra": ' + nested + "}"

    status, _ = _hook("user-prompt-submit", body)

    assert status == 200


@pytest.mark.usefixtures("service")
def test_a_5000_digit_transcript_offset_answers_400_naming_the_rule() -> None:
    body = json.dumps(VALID_BODIES["HookRequest"]).replace('"offset": 0', f'"offset": {HUGE_INT}')

    status, answer = _hook("user-prompt-submit", body)

    assert (status, answer["detail"]) == (400, "a number in the body has more than 32 digits")


@pytest.mark.usefixtures("service")
def test_an_offset_past_the_safe_integer_range_answers_422_naming_the_field() -> None:
    body = json.dumps(VALID_BODIES["HookRequest"]).replace('"offset": 0', f'"offset": {2**53}')

    status, answer = _hook("user-prompt-submit", body)

    assert status == 422
    assert "transcript.offset" in answer["detail"]


@pytest.mark.usefixtures("service")
def test_a_5000_digit_query_offset_answers_422() -> None:
    status, answer = SessionsApi().transcript(SESSION, offset=HUGE_INT)

    assert (status, answer["error"]) == (422, "invalid_request")


@pytest.mark.usefixtures("service")
def test_lone_surrogates_and_nul_are_kept_as_replacement_characters() -> None:
    # Given a prompt whose transcript holds a lone surrogate, a NUL, a lone low surrogate and an
    # emoji written as a surrogate pair (as Python's json.dumps writes it)
    text = "user: a\\ud800b\\u0000c\\udc00d \\ud83d\\ude00\\n"
    body = json.dumps({"session_id": "odd-text", "cwd": "/w", "prompt": "p", "transcript": {"offset": 0}})
    body = body[:-2] + f', "text": "{text}"}}}}'

    # When it is posted
    status, _ = _hook("user-prompt-submit", body)

    # Then it is stored, each lone surrogate and NUL replaced by U+FFFD and the emoji kept
    assert status == 200
    _, stored = SessionsApi().transcript("odd-text")
    assert stored["text"] == "user: a\ufffdb\ufffdc\ufffdd \U0001f600\n"
