"""What the functions call is what CDK grants them: the access guard on moto.

Every test in the suite runs its functions under the grants read from the synthesized template
(``infra/local/access_guard.py``; the ``aws`` fixture installs it). These tests show that it
catches a call outside a grant, that each function's paths stay inside its own, and that the rate
counter works under its narrow grant — the defect the guard was built for: ``read_api`` and
``sessions`` only read the table, yet the rate-limit middleware updates a counter item in it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import boto3
import pytest

from continuity_core.kernel.names import RATE_PREFIX, TABLE_ENV
from infra import wiring
from infra.local import access_guard
from infra.local.access_guard import AccessDenied
from infra.local.access_policies import StackAccess
from infra.local.events import authorizer_event, scheduled_event
from tests.integration.conftest import prompt
from tests.support import on_aws
from tests.support.api import InProcessService
from tests.support.clock import Clock, install_clock, run_pruner
from tests.support.isolation import as_function
from tests.support.lambda_events import http_event, invoke
from tests.support.sessions import SessionsApi, Transcript

ADMIN = "declared-access-admin-token"
RATE_FLUSH_AFTER = timedelta(seconds=6)  # an instance adds its count at least every 5 s
# The functions that answer authorized requests count them (the rate-limit middleware).
COUNTING = {spec.key for spec in wiring.FUNCTIONS if any(route.authorized for route in spec.routes)}
# The functions with any AWS resource (the dashboard serves files only).
WITH_RESOURCES = {spec.key for spec in wiring.FUNCTIONS if spec.resources or spec.item_grants}


@pytest.fixture
def clock(service: InProcessService, monkeypatch: pytest.MonkeyPatch) -> Iterator[Clock]:
    monkeypatch.setenv("CONTINUITY_TRANSCRIPT_CHUNK_CHARS", "16384")  # bodies move to S3 early
    monkeypatch.setenv(wiring.API_TOKEN_ENV_VAR, _sha256(ADMIN))
    # At the start of a minute: the counters' one-minute windows do not turn over mid-test.
    clock = install_clock(monkeypatch, datetime.now(UTC).replace(second=0, microsecond=0))
    access_guard.take_allowed()
    yield clock


def test_a_call_outside_a_functions_grant_fails_naming_the_function_action_and_resource(
    service: InProcessService, monkeypatch: pytest.MonkeyPatch
) -> None:
    from continuity_core.checkpoints.dynamo_checkpoints import DynamoCheckpointStore
    from continuity_core.kernel.aws import call

    # Given read_api's checkpoint listing made to also write an item (its role only reads)
    listing = DynamoCheckpointStore.list_for_project

    def list_and_write(store: DynamoCheckpointStore, *args: Any) -> Any:
        item = {"pk": {"S": "A#default#P#/work/app"}, "sk": {"S": "NOTE"}}
        call("dynamodb", "put_item", TableName=os.environ[TABLE_ENV], Item=item)
        return listing(store, *args)

    monkeypatch.setattr(DynamoCheckpointStore, "list_for_project", list_and_write)
    # When the dashboard lists a project's checkpoints
    with pytest.raises(AccessDenied) as denied:
        service.get("/api/checkpoints", "/api/checkpoints", query={"project": "/work/app"})
    # Then the call fails as AWS would fail it, and says who did what on which resource
    table_arn = f"arn:aws:dynamodb:us-east-1:123456789012:table/{os.environ[TABLE_ENV]}"
    assert denied.value.response["Error"]["Code"] == "AccessDeniedException"
    message = str(denied.value)
    assert "function read_api" in message and "dynamodb:PutItem" in message and table_arn in message
    assert [d.function for d in access_guard.take_denials()] == [wiring.READ_API.key]
    # And once the write is gone, the same request answers
    monkeypatch.setattr(DynamoCheckpointStore, "list_for_project", listing)
    status, _ = service.get("/api/checkpoints", "/api/checkpoints", query={"project": "/work/app"})
    assert status == 200


def test_every_function_runs_its_paths_within_its_grant(service: InProcessService, clock: Clock) -> None:
    # Given each function driven through the paths it has: hooks with a transcript that moves to
    # S3, the writer, both read APIs, the agent API, tokens and the authorizer, a delete, the pruner
    transcript = Transcript("s1")
    service.hook("session-start", {"session_id": "s1", "cwd": "/work/app"})
    for n in range(1, 12):
        transcript.grow(f"User: step {n}\n\nAssistant: " + "checked the writer. " * 200 + "\n\n")
        service.hook(
            "user-prompt-submit", transcript.hook_body(hook_event_name="UserPromptSubmit", prompt="go")
        )
    service.drain_queue()
    service.get(
        "/api/checkpoints/s1", "/api/checkpoints/{session_key}", path_parameters={"session_key": "s1"}
    )
    service.digest("s1", {"summary": "writer checked", "decisions": [{"decision": "keep the writer"}]})
    service.agent_api("GET", "/api/ledger", "/api/ledger", query={"project": "/work/app"})
    service.recover(project="/work/app", query="writer")
    sessions = SessionsApi()
    sessions.sessions(project="/work/app")
    sessions.transcript("s1")
    sessions.search(query="writer", project="/work/app")
    token = _create_token()
    assert _authorize(token)["isAuthorized"] is True
    # the delete of a second session whose transcript went to S3 too
    other = Transcript("s2")
    for n in range(1, 4):
        other.grow(f"User: step {n}\n\nAssistant: " + "checked the reader. " * 400 + "\n\n")
        service.hook("user-prompt-submit", other.hook_body(hook_event_name="UserPromptSubmit", prompt="go"))
    assert _forget("/api/sessions/s2")["deleted"]["transcript_bodies"] >= 1
    # And every function that answers authorized requests adds to its rate counter (6 s apart)
    for call in _http_calls(service, sessions):
        call()
        clock.now += RATE_FLUSH_AFTER
        call()
    # the idle sweep's final checkpoint of a session that never ended (its digest reads the transcript)
    quiet = Transcript("s3")
    quiet.grow("User: step 1\n\nAssistant: " + "checked the sweep. " * 50 + "\n\n")
    service.hook("user-prompt-submit", quiet.hook_body(hook_event_name="UserPromptSubmit", prompt="go"))
    clock.now += timedelta(minutes=31)
    swept = invoke(wiring.IDLE_SWEEP.key, scheduled_event("continuity-test-idle", now=clock.now))
    clock.now += timedelta(days=400)
    report = run_pruner(clock)

    # Then no call was outside a grant (the aws fixture fails the test on any denial), and every
    # function made AWS calls, checked against its own grant
    allowed = access_guard.take_allowed()
    assert {function for function, _ in allowed} == WITH_RESOURCES
    assert report["deleted"] and swept["closed"] >= 1
    # And each such function's counter flush was an UpdateItem of a rate-counter item
    counted = {
        function
        for function, request in allowed
        if request.action == "dynamodb:UpdateItem"
        and request.leading_keys
        and all(key.startswith(RATE_PREFIX) for key in request.leading_keys)
    }
    assert counted == COUNTING


def test_read_only_functions_count_requests_under_their_narrow_grant(
    service: InProcessService, clock: Clock
) -> None:
    # Given the read-only functions, each answering two requests 6 s apart
    sessions = SessionsApi()
    answers = []
    for call in (_list_checkpoints(service), lambda: sessions.sessions(project="/work/app")):
        answers.append(call())
        clock.now += RATE_FLUSH_AFTER
        answers.append(call())
    # Then they answer, and the shared counter holds their requests
    assert [status for status, _ in answers] == [200] * 4
    assert _counted("default") == 4


def test_without_the_rate_counter_grant_read_api_fails_as_it_did_on_aws(
    service: InProcessService, clock: Clock, access: StackAccess
) -> None:
    # Given read_api's grant as it was before the rate counter had its statement: reads only
    grant = access.functions[wiring.READ_API.key]
    reads_only = replace(
        grant, statements=tuple(s for s in grant.statements if "dynamodb:UpdateItem" not in s.actions)
    )
    before = access_guard.installed()
    assert before is not None
    narrowed = replace(access, functions={**access.functions, wiring.READ_API.key: reads_only})
    access_guard.install(access_guard.AccessGuard(narrowed, access_guard.physical_names(os.environ)))
    try:
        # When the dashboard's first request of a minute is answered (its end adds the count)
        list_checkpoints = _list_checkpoints(service)
        with pytest.raises(AccessDenied, match=r"function read_api .* dynamodb:UpdateItem"):
            list_checkpoints()
    finally:
        access_guard.install(before, record=True)
    # Then it is the rate counter's UpdateItem that is refused
    [denial] = access_guard.take_denials()
    assert denial.request.leading_keys == (f"{RATE_PREFIX}default",)


def test_a_read_only_function_may_update_no_item_but_a_rate_counter(service: InProcessService) -> None:
    from continuity_core.kernel.aws import call

    table = os.environ[TABLE_ENV]
    for function in (wiring.READ_API.key, wiring.SESSIONS.key):
        with as_function(function):
            call(
                "dynamodb",
                "update_item",
                TableName=table,
                Key={"pk": {"S": f"{RATE_PREFIX}t"}, "sk": {"S": "1"}},
                UpdateExpression="ADD hits :one",
                ExpressionAttributeValues={":one": {"N": "1"}},
            )
            with pytest.raises(AccessDenied, match=rf"function {function} .* dynamodb:UpdateItem"):
                call(
                    "dynamodb",
                    "update_item",
                    TableName=table,
                    Key={"pk": {"S": "A#default#S#s1"}, "sk": {"S": "STATE"}},
                    UpdateExpression="SET ended = :yes",
                    ExpressionAttributeValues={":yes": {"BOOL": True}},
                )
    assert len(access_guard.take_denials()) == 2


def test_a_function_sees_only_its_own_environment(service: InProcessService) -> None:
    # Given the hook function, which has the checkpoint queue, can build its hook dispatcher
    with as_function(wiring.HOOKS.key):
        assert os.environ.get(wiring.CHECKPOINT_QUEUE.env_var)
        on_aws.hook_dispatcher()
    # When read_api runs, which CDK gives no queue
    with as_function(wiring.READ_API.key):
        # Then it sees no queue URL, and what needs one cannot be built from its environment
        assert wiring.CHECKPOINT_QUEUE.env_var not in os.environ
        assert wiring.TRANSCRIPT_BUCKET.env_var not in os.environ
        assert os.environ["AWS_LAMBDA_FUNCTION_NAME"].endswith("read-api")
        with pytest.raises(RuntimeError, match=wiring.CHECKPOINT_QUEUE.env_var):
            on_aws.hook_dispatcher()
    # And the test's own environment is back afterwards
    assert os.environ.get(wiring.CHECKPOINT_QUEUE.env_var)


def _list_checkpoints(service: InProcessService) -> Any:
    return lambda: service.get("/api/checkpoints", "/api/checkpoints", query={"project": "/work/app"})


def _http_calls(service: InProcessService, sessions: SessionsApi) -> list[Any]:
    return [
        lambda: service.hook("user-prompt-submit", prompt("counted", 1)),
        _list_checkpoints(service),
        lambda: service.recover(project="/work/app"),
        lambda: sessions.sessions(project="/work/app"),
        lambda: _tokens("GET", "/api/tokens"),
        lambda: _forget("/api/projects", {"project": "/work/elsewhere"}),
    ]


def _forget(path: str, query: dict[str, str] | None = None) -> dict[str, Any]:
    import json

    if query is None:
        route, parameters = "/api/sessions/{session_key}", {"session_key": path.rsplit("/", 1)[1]}
    else:
        route, parameters = path, None
    request = http_event("DELETE", path, route, path_parameters=parameters, query=query)
    answer = invoke(wiring.FORGET.key, request)
    assert answer["statusCode"] == 200, answer
    return dict(json.loads(answer["body"]))


def _tokens(method: str, path: str, body: Any = None) -> tuple[int, Any]:
    import json

    answer = invoke(wiring.TOKENS.key, http_event(method, path, path, body=body))
    return answer["statusCode"], json.loads(answer["body"]) if answer.get("body") else None


def _create_token() -> str:
    status, created = _tokens("POST", "/api/tokens", {"scopes": ["read"]})
    assert status == 201, created
    status, listed = _tokens("GET", "/api/tokens")
    assert status == 200 and listed["tokens"]
    token_id = listed["tokens"][0]["token_id"]
    assert _tokens("DELETE", f"/api/tokens/{token_id}")[0] == 200
    status, created = _tokens("POST", "/api/tokens", {"scopes": ["read"]})
    return str(created["token"])


def _authorize(token: str) -> dict[str, Any]:
    request = http_event("GET", "/api/checkpoints", "/api/checkpoints", agent_id=None)
    request["headers"]["authorization"] = f"Bearer {token}"
    event = authorizer_event(request, identity_source=[f"Bearer {token}"])
    answer: dict[str, Any] = invoke(wiring.AUTHORIZER.key, event)
    return answer


def _counted(key: str) -> int:
    items = boto3.client("dynamodb").query(
        TableName=os.environ[TABLE_ENV],
        KeyConditionExpression="pk = :pk",
        ExpressionAttributeValues={":pk": {"S": f"{RATE_PREFIX}{key}"}},
    )["Items"]
    return sum(int(item["hits"]["N"]) for item in items)


def _sha256(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode()).hexdigest()
