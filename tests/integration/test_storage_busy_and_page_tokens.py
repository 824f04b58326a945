"""What a caller gets when the store is too busy, or hands back a page token it should not:
a JSON 503 with Retry-After to retry on, a JSON 400 that says what to do. Never a 500."""

from __future__ import annotations

import json
from typing import Any

import pytest

from continuity_core.kernel import aws, dynamo_batch
from continuity_core.kernel.dynamo_batch import Backoff
from infra import wiring
from tests.support.api import InProcessService
from tests.support.lambda_events import http_event, invoke

DECISION = {"summary": "chose the queue", "decisions": [{"decision": "Use SQS for flushes"}]}


@pytest.fixture
def throttled_batch_writes(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Every BatchWriteItem comes back with all its items unprocessed (as under throttling);
    the waits between attempts are recorded instead of slept."""
    real_call = aws.call  # what dynamo_batch calls, before the patch

    def throttling(service: str, operation: str, **kwargs: Any) -> Any:
        if operation == "batch_write_item":
            return {"UnprocessedItems": kwargs["RequestItems"]}
        return real_call(service, operation, **kwargs)

    waits: list[float] = []
    monkeypatch.setattr(dynamo_batch, "call", throttling)
    monkeypatch.setattr(dynamo_batch, "BACKOFF", Backoff(sleep=waits.append))
    return waits


def post_digest(session_key: str) -> dict[str, Any]:
    event = http_event(
        "POST",
        f"/api/sessions/{session_key}/digest",
        "/api/sessions/{session_key}/digest",
        body={**DECISION},
        path_parameters={"session_key": session_key},
    )
    answer: dict[str, Any] = invoke(wiring.AGENT_API.key, event)
    return answer


def test_decisions_the_store_keeps_throttling_are_a_503_to_retry_not_a_500(
    service: InProcessService, throttled_batch_writes: list[float]
) -> None:
    # Given a session of a project, and a ledger whose batch writes stay throttled
    service.hook("session-start", {"session_id": "s1", "cwd": "/work/app"})
    # When the agent records a decision
    answer = post_digest("s1")
    # Then it is told the storage is busy and when to retry, after the writer backed off 5 times
    assert answer["statusCode"] == 503
    assert answer["headers"]["Retry-After"] == "2"
    assert json.loads(answer["body"]) == {"error": "unavailable", "detail": "storage is busy; retry shortly"}
    assert len(throttled_batch_writes) == 5


@pytest.mark.parametrize(
    ("path", "route", "query"),
    [
        ("/api/ledger", "/api/ledger", {"project": "/work/app"}),
        ("/api/sessions", "/api/sessions", {"project": "/work/app"}),
    ],
    ids=["ledger", "sessions"],
)
def test_a_garbage_page_token_is_a_400_that_says_to_start_again(
    service: InProcessService, path: str, route: str, query: dict[str, str]
) -> None:
    function = wiring.AGENT_API.key if path == "/api/ledger" else wiring.SESSIONS.key
    event = http_event("GET", path, route, query={**query, "next_token": "not-a-token"})

    answer = invoke(function, event)

    assert answer["statusCode"] == 400
    assert json.loads(answer["body"]) == {
        "error": "bad_request",
        "detail": "next_token is not one this API handed out; leave it out to start from the first page",
    }
