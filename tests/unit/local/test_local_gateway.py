"""The gateway as a WSGI app: routes, the authorizer step, errors and limits as API Gateway has them."""

import hashlib
import json
from typing import Any

import pytest
from werkzeug.test import Client

from infra import wiring
from infra.local.authorization import AuthorizerGate
from infra.local.events import http_event
from infra.local.gateway import MAX_BODY_BYTES, Gateway
from infra.local.routes import RouteTable
from infra.local.scheduler import Scheduler
from infra.wiring import ScheduleTrigger
from tests.unit.local.support import runtime_with, throwaway

TOKEN = "local-token"
BEARER = {"Authorization": f"Bearer {TOKEN}"}


class Fakes:
    """Stand-ins for the wiring's functions that record what they receive."""

    def __init__(self) -> None:
        self.events: dict[str, list[dict[str, Any]]] = {}
        self.hooks_result: Any = {
            "statusCode": 200,
            "headers": {"content-type": "application/json"},
            "body": "{}",
        }

    def _record(self, key: str, event: dict[str, Any]) -> None:
        self.events.setdefault(key, []).append(event)

    def authorizer(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        self._record("authorizer", event)
        token = event["identitySource"][0].removeprefix("Bearer ")
        return {"isAuthorized": token == TOKEN, "context": {"agent_id": "default", "scopes": "hooks,read"}}

    def hooks(self, event: dict[str, Any], context: Any) -> Any:
        self._record("hooks", event)
        if isinstance(self.hooks_result, Exception):
            raise self.hooks_result
        return self.hooks_result

    def read_api(self, event: dict[str, Any], context: Any) -> Any:
        self._record("read_api", event)
        return {"status": "ok"}

    def pruner(self, event: dict[str, Any], context: Any) -> Any:
        self._record("pruner", event)
        return {"pruned": 3}


@pytest.fixture
def fakes() -> Fakes:
    return Fakes()


@pytest.fixture
def client(fakes: Fakes) -> Client:
    pruner = throwaway("pruner", schedule=ScheduleTrigger(rate_minutes=5))
    runtime = runtime_with(
        (wiring.AUTHORIZER, fakes.authorizer),
        (wiring.HOOKS, fakes.hooks),
        (wiring.READ_API, fakes.read_api),
        (pruner, fakes.pruner),
    )
    gateway = Gateway(
        runtime,
        RouteTable(runtime.functions),
        AuthorizerGate(runtime, wiring.API_AUTHORIZER),
        token_sha256=hashlib.sha256(TOKEN.encode()).hexdigest(),
        scheduler=Scheduler(runtime.functions, runtime),
    )
    return Client(gateway)


def test_an_authorized_request_reaches_the_handler_with_the_authorizer_context(
    client: Client, fakes: Fakes
) -> None:
    response = client.post("/api/hooks/user-prompt-submit?x=1", json={"session_id": "s1"}, headers=BEARER)

    assert response.status_code == 200
    assert response.get_json() == {}
    assert response.headers["apigw-requestid"]
    event = fakes.events["hooks"][0]
    assert event["routeKey"] == "POST /api/hooks/{event}"
    assert event["pathParameters"] == {"event": "user-prompt-submit"}
    assert event["queryStringParameters"] == {"x": "1"}
    assert json.loads(event["body"]) == {"session_id": "s1"}
    assert event["requestContext"]["authorizer"] == {
        "lambda": {"agent_id": "default", "scopes": "hooks,read"}
    }


def test_the_authorizer_gets_a_request_event_with_the_authorization_header(
    client: Client, fakes: Fakes
) -> None:
    client.post("/api/hooks/remember", json={}, headers=BEARER)

    event = fakes.events["authorizer"][0]
    assert (event["type"], event["version"], event["identitySource"]) == (
        "REQUEST",
        "2.0",
        [f"Bearer {TOKEN}"],
    )
    assert event["routeArn"].endswith("/$default/POST/api/hooks/remember")


def test_authorizer_answers_are_cached_per_token(client: Client, fakes: Fakes) -> None:
    for _ in range(3):
        client.post("/api/hooks/remember", json={}, headers=BEARER)
    for _ in range(2):
        client.post("/api/hooks/remember", json={}, headers={"Authorization": "Bearer wrong"})

    assert len(fakes.events["authorizer"]) == 2


def test_a_revoked_token_is_refused_once_the_cache_minute_has_passed() -> None:
    # Given a token that passed once, then was revoked (the authorizer refuses it from now on)
    now, revoked = [1000.0], [False]

    def authorizer(event: dict[str, Any], context: Any) -> dict[str, Any]:
        return {"isAuthorized": not revoked[0], "context": {"agent_id": "default", "scopes": "hooks"}}

    gate = AuthorizerGate(
        runtime_with((wiring.AUTHORIZER, authorizer)), wiring.API_AUTHORIZER, clock=lambda: now[0]
    )
    request = http_event("POST", "/api/hooks/remember", "/api/hooks/{event}", headers=BEARER)
    assert gate.authorize(request).status == 200
    revoked[0] = True
    # When less than a minute has passed the cached answer stands; once it has, the token is refused
    now[0] += 59
    assert gate.authorize(request).status == 200
    now[0] += 2
    assert gate.authorize(request).status == 403


def test_a_request_without_authorization_is_401_and_never_reaches_the_authorizer(
    client: Client, fakes: Fakes
) -> None:
    response = client.post("/api/hooks/remember", json={})

    assert (response.status_code, response.get_json()) == (401, {"message": "Unauthorized"})
    assert "authorizer" not in fakes.events and "hooks" not in fakes.events


def test_a_wrong_token_is_403(client: Client, fakes: Fakes) -> None:
    response = client.post("/api/hooks/remember", json={}, headers={"Authorization": "Bearer nope"})

    assert (response.status_code, response.get_json()) == (403, {"message": "Forbidden"})
    assert "hooks" not in fakes.events


def test_an_unauthenticated_route_needs_no_token(client: Client, fakes: Fakes) -> None:
    response = client.get("/api/health")

    assert (response.status_code, response.get_json()) == (200, {"status": "ok"})
    assert "authorizer" not in fakes.events["read_api"][0]["requestContext"]


@pytest.mark.parametrize(
    ("method", "path"), [("GET", "/nope"), ("GET", "/api/hooks/x"), ("POST", "/local/x")]
)
def test_unknown_routes_are_404_not_found(client: Client, method: str, path: str) -> None:
    response = client.open(path, method=method, headers=BEARER)

    assert (response.status_code, response.get_json()) == (404, {"message": "Not Found"})


def test_a_handler_exception_is_500_internal_server_error(client: Client, fakes: Fakes) -> None:
    fakes.hooks_result = RuntimeError("bug")

    response = client.post("/api/hooks/remember", json={}, headers=BEARER)

    assert (response.status_code, response.get_json()) == (500, {"message": "Internal Server Error"})


def test_an_invalid_handler_response_is_500(client: Client, fakes: Fakes) -> None:
    fakes.hooks_result = {"statusCode": 200, "body": {"not": "a string"}}

    response = client.post("/api/hooks/remember", json={}, headers=BEARER)

    assert response.status_code == 500


def test_handler_status_headers_and_cookies_reach_the_client(client: Client, fakes: Fakes) -> None:
    fakes.hooks_result = {
        "statusCode": 422,
        "headers": {"Content-Type": "application/json", "X-Extra": "1"},
        "cookies": ["c=1"],
        "body": '{"statusCode": 422, "message": "bad"}',
    }

    response = client.post("/api/hooks/remember", json={}, headers=BEARER)

    assert response.status_code == 422
    assert response.headers["X-Extra"] == "1"
    assert response.headers["Set-Cookie"] == "c=1"
    assert response.get_json() == {"statusCode": 422, "message": "bad"}


def test_a_body_over_10_mb_is_413_before_any_function_runs(client: Client, fakes: Fakes) -> None:
    response = client.post("/api/hooks/remember", data=b"x" * (MAX_BODY_BYTES + 1), headers=BEARER)

    assert response.status_code == 413
    assert fakes.events == {}


def test_the_admin_route_runs_a_scheduled_function_now(client: Client, fakes: Fakes) -> None:
    response = client.post("/local/schedules/pruner", headers=BEARER)

    assert response.status_code == 200
    assert response.get_json()["result"] == {"pruned": 3}
    assert fakes.events["pruner"][0]["detail-type"] == "Scheduled Event"


@pytest.mark.parametrize(
    ("path", "headers", "status"),
    [
        ("/local/schedules/pruner", {}, 401),
        ("/local/schedules/pruner", {"Authorization": "Bearer nope"}, 403),
        ("/local/schedules/hooks", BEARER, 404),
    ],
)
def test_the_admin_route_needs_the_token_and_a_scheduled_function(
    client: Client, path: str, headers: dict[str, str], status: int
) -> None:
    assert client.post(path, headers=headers).status_code == status


def test_a_percent_encoded_session_key_reaches_the_handler_decoded(client: Client, fakes: Fakes) -> None:
    # Given an OpenClaw session key, which the client percent-encodes in the path
    # When it is asked for
    response = client.get("/api/checkpoints/agent%3Amain%3Amain", headers=BEARER)

    # Then the handler sees it decoded in rawPath too, as an HTTP API delivers it (Powertools routes
    # on rawPath: an encoded one made every such key an unknown session)
    assert response.status_code == 200
    event = fakes.events["read_api"][0]
    assert event["pathParameters"] == {"session_key": "agent:main:main"}
    assert event["rawPath"] == event["requestContext"]["http"]["path"] == "/api/checkpoints/agent:main:main"
