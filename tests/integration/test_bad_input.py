"""Bad input answers a clear JSON 4xx, never a 500, and stored data is untouched."""

import json
from datetime import UTC, datetime

import pytest

from continuity_core.kernel.http import ERROR_CODES
from infra import wiring
from tests.integration.conftest import prompt
from tests.support import on_aws
from tests.support.api import InProcessService
from tests.support.clock import Clock
from tests.support.cold_starts import use_clock
from tests.support.sessions import SessionsApi


@pytest.mark.parametrize(
    ("event", "raw_body", "status", "message"),
    [
        ("user-prompt-submit", "{not json", 400, "malformed JSON"),
        ("user-prompt-submit", "[1, 2]", 422, "JSON object"),
        ("user-prompt-submit", '"text"', 422, "JSON object"),
        ("user-prompt-submit", json.dumps({"cwd": "/x", "prompt": "hi"}), 422, "session_id"),
        ("user-prompt-submit", json.dumps({"session_id": 42}), 422, "session"),
        ("user-prompt-submit", json.dumps({"session_id": "s" * 300}), 422, "session"),
        ("no-such-event", json.dumps({"session_id": "s"}), 404, "unknown event"),
    ],
)
def test_bad_hooks_get_a_clear_json_error(
    service: InProcessService, event: str, raw_body: str, status: int, message: str
) -> None:
    answer_status, answer = service.hook(event, raw_body=raw_body)

    assert answer_status == status
    assert answer["error"] == ERROR_CODES[status]
    assert message in answer["detail"]


def test_a_body_over_one_megabyte_is_refused_with_413(service: InProcessService) -> None:
    status, answer = service.hook("user-prompt-submit", {**prompt("big", 1), "prompt": "x" * (1024 * 1024)})

    assert status == 413
    assert (answer["error"], "1048576" in answer["detail"]) == ("payload_too_large", True)


def test_bad_input_leaves_the_session_as_it_was(service: InProcessService) -> None:
    service.hook("user-prompt-submit", prompt("kept", 1))
    before = on_aws.state_store().get("default", "kept")

    service.hook("user-prompt-submit", raw_body='{"session_id": "kept", "prompt": ')
    service.hook("user-prompt-submit", {"session_id": "kept", "prompt": "x" * (2 * 1024 * 1024)})

    assert on_aws.state_store().get("default", "kept") == before


def test_a_call_without_an_authorizer_context_is_unauthorized(service: InProcessService) -> None:
    anonymous = InProcessService(agent_id="")

    status, answer = anonymous.hook("user-prompt-submit", prompt("s", 1))

    assert status == 401
    assert answer == {"error": "unauthorized", "detail": "Unauthorized"}


def test_a_token_over_its_rate_limit_gets_429_with_retry_after(
    service: InProcessService, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CONTINUITY_RATE_LIMIT_PER_MINUTE", "10")
    # A stopped clock: on the real one, the 12 requests could straddle the window's minute.
    use_clock(monkeypatch, Clock(datetime.now(UTC).replace(second=5, microsecond=0)))
    from tests.support.lambda_events import http_event, invoke

    answers = []
    for n in range(12):
        event = http_event(
            "POST",
            "/api/hooks/user-prompt-submit",
            "/api/hooks/{event}",
            body=prompt("limited", n),
            path_parameters={"event": "user-prompt-submit"},
        )
        answers.append(invoke(wiring.HOOKS.key, event))

    assert [a["statusCode"] for a in answers].count(429) >= 1
    limited = next(a for a in answers if a["statusCode"] == 429)
    assert 1 <= int(limited["headers"]["Retry-After"]) <= 60


def test_a_missing_resource_answers_404_saying_what_is_missing(service: InProcessService) -> None:
    # Given a session the service has never seen
    # When its transcript is asked for
    status, answer = SessionsApi().transcript("never-seen")

    # Then the 404 says what is missing, not a missing route (Powertools routes both to one handler),
    # without echoing the id (it may hold a secret)
    assert status == 404
    assert answer == {"error": "not_found", "detail": "no transcript for this session"}


def test_an_unknown_route_still_answers_no_such_route(service: InProcessService) -> None:
    status, answer = SessionsApi().call("GET", "/api/sessions/x/nothing", "/api/sessions/{key}/nothing")

    assert (status, answer["detail"]) == (404, "no such route")


def test_a_date_time_in_a_query_is_iso_text_not_a_number(service: InProcessService) -> None:
    # Given the sessions page's `since` (the OpenAPI document says date-time)
    route = "/api/sessions/overview"

    # When it is a bare number (pydantic alone would read it as Unix time), and then ISO text
    number, refused = SessionsApi().call("GET", route, route, query={"project": "/p", "since": "5"})
    iso, _ = SessionsApi().call("GET", route, route, query={"project": "/p", "since": "2026-11-27T09:00:00Z"})

    # Then the number is refused as the schema says, with the other validation errors, and ISO is read
    assert (number, refused["error"]) == (422, ERROR_CODES[422])
    assert iso == 200
