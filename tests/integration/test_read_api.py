"""The read API and the authorizer."""

import json
from typing import Any

import pytest

from infra import wiring
from infra.local import events
from tests.integration.conftest import prompt
from tests.support.api import InProcessService
from tests.support.lambda_events import invoke


def checkpoint_twice(service: InProcessService, session: str, cwd: str) -> None:
    for n in range(1, 21):
        service.hook("user-prompt-submit", prompt(session, n, cwd))
        if n % 10 == 0:
            service.drain_queue()


def test_project_checkpoints_are_listed_newest_first_with_a_limit(service: InProcessService) -> None:
    checkpoint_twice(service, "a", "/work/app")
    checkpoint_twice(service, "b", "/work/app")
    checkpoint_twice(service, "c", "/work/other")

    status, body = service.get(
        "/api/checkpoints", "/api/checkpoints", query={"project": "/work/app/", "limit": "3"}
    )

    assert status == 200
    listed = [(c["session_key"], c["last_prompt"]) for c in body["checkpoints"]]
    assert listed == [("b", 20), ("b", 10), ("a", 20)]


def test_session_checkpoints_are_listed_oldest_first(service: InProcessService) -> None:
    checkpoint_twice(service, "a", "/work/app")

    assert [c["last_prompt"] for c in service.session_checkpoints("a")] == [10, 20]


@pytest.mark.parametrize("query", [{}, {"project": "/p", "limit": "0"}, {"project": "/p", "limit": "many"}])
def test_bad_list_queries_get_422(service: InProcessService, query: dict[str, str]) -> None:
    status, body = service.get("/api/checkpoints", "/api/checkpoints", query=query)

    assert status == 422
    assert body["error"] == "invalid_request"


def test_health_answers_ok(service: InProcessService) -> None:
    assert service.get("/api/health", "/api/health") == (200, {"status": "ok"})


def test_whoami_names_the_tokens_agent_and_its_scopes_whatever_they_are(service: InProcessService) -> None:
    # Given a token that may only post hooks (no read scope)
    request = events.http_event(
        "GET", "/api/whoami", "/api/whoami", authorizer={"agent_id": "ana", "scopes": "hooks"}
    )

    # When it asks who it is
    status, body = decode(invoke(wiring.READ_API.key, request))

    # Then it is told, so a sign-in can say what the token can and cannot do
    assert (status, body) == (200, {"agent_id": "ana", "scopes": ["hooks"]})


def test_whoami_without_the_authorizers_word_is_refused(service: InProcessService) -> None:
    request = events.http_event("GET", "/api/whoami", "/api/whoami", authorizer=None)

    status, body = decode(invoke(wiring.READ_API.key, request))

    assert status == 401 and body["error"] == "unauthorized"


def decode(response: dict[str, Any]) -> tuple[int, Any]:
    return response["statusCode"], json.loads(response["body"])
