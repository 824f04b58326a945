"""What a session start costs in AWS requests (issue 20: at most 3), counted at botocore as
``bench/bench_requests.py`` counts them: every request our DynamoDB, SQS and S3 clients send.

The rate window's write is left out here: it is the instance's, once a minute at most (the bench's
one start is its instance's first request of the minute, and counts it: 3 with it)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from continuity_core.kernel.names import RATE_PREFIX
from tests.integration.conftest import prompt
from tests.support.api import InProcessService

LIMIT = 3


class Requests:
    def __init__(self) -> None:
        self.sent: list[str] = []

    def __call__(self, params: dict[str, Any], model: Any, **_: Any) -> None:
        key = params.get("Key", {}).get("pk", {}).get("S", "")
        if not key.startswith(RATE_PREFIX):
            self.sent.append(model.name)


@pytest.fixture
def requests(service: InProcessService) -> Iterator[Requests]:
    from continuity_core.kernel.aws import client

    counter = Requests()
    for name in ("dynamodb", "sqs", "s3"):
        client(name).meta.events.register("before-parameter-build", counter)
    yield counter
    for name in ("dynamodb", "sqs", "s3"):
        client(name).meta.events.unregister("before-parameter-build", counter)


def start(service: InProcessService, counter: Requests, session: str, **fields: Any) -> tuple[str, list[str]]:
    counter.sent.clear()
    body = {"session_id": session, "cwd": "/work/app", "hook_event_name": "SessionStart", **fields}
    status, answer = service.hook("session-start", body)
    assert status == 200, answer
    return answer.get("hookSpecificOutput", {}).get("additionalContext", ""), list(counter.sent)


def checkpointed(service: InProcessService, session: str) -> None:
    for n in range(1, 11):
        service.hook("user-prompt-submit", prompt(session, n))
    assert service.drain_queue() == 1


def test_a_compaction_start_costs_at_most_three_requests(
    service: InProcessService, requests: Requests
) -> None:
    checkpointed(service, "s1")
    block, sent = start(service, requests, "s1", source="compact")
    assert "_Recovered from this session: " in block
    assert len(sent) <= LIMIT, sent


def test_a_new_session_recovering_its_project_costs_at_most_three(
    service: InProcessService, requests: Requests
) -> None:
    checkpointed(service, "s1")
    block, sent = start(service, requests, "s2", source="startup")
    assert "session s1" in block
    assert len(sent) <= LIMIT, sent
    # And it is noted under its project and its injection kept for the inspector
    assert sent == ["Query", "TransactWriteItems"]


def test_a_start_after_clear_costs_at_most_three(service: InProcessService, requests: Requests) -> None:
    checkpointed(service, "s1")
    service.hook("session-end", {"session_id": "s1", "cwd": "/work/app", "reason": "clear"})
    block, sent = start(service, requests, "s2", source="clear")
    assert "the session you just cleared" in block
    assert len(sent) <= LIMIT, sent


def test_a_startup_with_nothing_to_recover_costs_at_most_three(
    service: InProcessService, requests: Requests
) -> None:
    _, sent = start(service, requests, "fresh", source="startup")
    assert len(sent) <= LIMIT, sent


def test_a_resumed_session_whose_checkpoints_the_listing_misses_is_still_recovered(
    service: InProcessService, requests: Requests
) -> None:
    # Given a session's checkpoint and newer ones of other sessions that push it out of the listing
    checkpointed(service, "old")
    for n in range(5):
        checkpointed(service, f"other-{n}")
    # When the old session starts again (a resume): its own checkpoint, found through its state
    block, sent = start(service, requests, "old", source="startup")
    assert "_Recovered from this session: " in block
    # the guess (new) was wrong: the tombstone check, the session's read, its two writes
    assert len(sent) <= LIMIT + 3, sent


def test_a_new_session_receiving_a_handoff_costs_at_most_three(
    service: InProcessService, requests: Requests
) -> None:
    # Given a session that handed off (the hand-off sits in the project index beside the checkpoints)
    checkpointed(service, "s1")
    status, answer = service.handoff("s1", {"note": "over to you", "branch": "main"})
    assert status == 201, answer
    # When the next session starts: the project's one query reads it, the start's one write takes it
    block, sent = start(service, requests, "s2", source="startup")
    assert block.startswith("## Hand-off from session s1: over to you")
    assert sent == ["Query", "TransactWriteItems"]
