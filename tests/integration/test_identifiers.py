"""Identifiers checked at the door (issue 22, part 3), through the handlers on moto.

Every session id the hooks accept can be read and deleted through every ``/api/sessions/{key}/…``
route; an id outside the rule is refused with a 422 that names the rule and stores nothing; an id
stored before the rule stays reachable; no answer echoes an id; token names are never listed raw.
"""

from __future__ import annotations

import json
import os
from typing import Any
from urllib.parse import quote

import pytest

from continuity_core.admin.dynamo_tokens import DynamoTokenStore
from continuity_core.kernel.clock import utc_now
from continuity_core.kernel.names import TABLE_ENV
from continuity_core.models.hooks import Hook, HookEvent, TranscriptDelta
from continuity_core.models.ids import SESSION_ID_MAX, SESSION_ID_RULE
from continuity_core.models.scopes import Scope
from continuity_core.models.tokens import TokenRecord
from infra import wiring
from tests.support import on_aws
from tests.support.api import InProcessService
from tests.support.lambda_events import http_event, invoke

PROJECT = "/work/app"
GITHUB_TOKEN = "ghp_" + "Z3x9" * 9

# What the harnesses send (models/ids.py), and ids that use every character of the alphabet.
ACCEPTED = [
    "9f1c2a7e-4b1d-4c55-9a39-2d5e8f0b6c11",  # Claude Code, Codex, Gemini CLI
    "9f1c2a7e-4b1d-4c55-9a39-2d5e8f0b6c11:subagent:agent-7c1e",  # a sub-agent's own session
    "ses_5f2b8c1e0ffeQk3TzYb7mN1aRd",  # OpenCode
    "agent:main:telegram:group:-1001234567890:topic:42",  # OpenClaw
    "agent:main:whatsapp:dm:+15551234567",
    "agent:main:matrix:channel:!room~x=y:matrix.org",
    "0._:@+=!~-",
    "a" * SESSION_ID_MAX,
]

REFUSED = {
    "slash": "a/b",
    "quote": 'a"b',
    "hash": "a#b",
    "question mark": "a?b",
    "backslash": "a\\b",
    "backquote": "a`b",
    "tab": "a\tb",
    "nul": "a\x00b",
    "space": "a b",
    "percent": "a%41",
    "non-ascii": "sessión",
    "dots only": "..",
    "dot first": ".hidden",
    "too long": "a" * (SESSION_ID_MAX + 1),
}


def sessions_call(method: str, route: str, key: str, function: str = wiring.SESSIONS.key) -> tuple[int, Any]:
    """``route`` with ``{session_key}`` filled in as a client sends it (percent-encoded)."""
    path = route.replace("{session_key}", quote(key, safe=""))
    request = http_event(method, path, route, path_parameters={"session_key": key})
    response = invoke(function, request)
    body = response.get("body")
    return response["statusCode"], json.loads(body) if body else None


READ_ROUTES = [
    ("/api/sessions/{session_key}/transcript", wiring.SESSIONS.key),
    ("/api/sessions/{session_key}/timeline", wiring.SESSIONS.key),
    ("/api/sessions/{session_key}/checkpoints/1", wiring.SESSIONS.key),
    ("/api/sessions/{session_key}/injections", wiring.SESSIONS.key),
    ("/api/sessions/{session_key}/lineage", wiring.SESSIONS.key),
    ("/api/checkpoints/{session_key}", wiring.READ_API.key),
]


def lived(service: InProcessService, key: str) -> None:
    """A prompt with its transcript, and an explicit checkpoint."""
    body = {
        "session_id": key,
        "cwd": PROJECT,
        "prompt": "refactor the writer",
        "transcript": {"offset": 0, "text": "User: refactor the writer\n"},
    }
    status, answer = service.hook("user-prompt-submit", body)
    assert status == 200, answer
    route = "/api/sessions/{session_key}/checkpoint"
    assert sessions_call("POST", route, key, wiring.AGENT_API.key)[0] == 200


def assert_readable_and_deletable(key: str) -> None:
    for route, function in READ_ROUTES:
        status, answer = sessions_call("GET", route, key, function)
        assert status == 200, (route, answer)
    assert sessions_call("GET", READ_ROUTES[0][0], key)[1]["text"] == "User: refactor the writer\n"

    status, answer = sessions_call("DELETE", "/api/sessions/{session_key}", key, wiring.FORGET.key)

    assert status == 200, answer
    assert answer["deleted"]["checkpoints"] == 1
    assert sessions_call("GET", "/api/sessions/{session_key}/transcript", key)[0] == 404


@pytest.mark.parametrize("key", ACCEPTED)
def test_every_accepted_session_id_is_readable_and_deletable_on_every_session_route(
    service: InProcessService, key: str
) -> None:
    # Given a session under an id the hooks accept
    lived(service, key)

    # Then every read route answers it, and DELETE takes it all
    assert_readable_and_deletable(key)


@pytest.mark.parametrize("key", list(REFUSED.values()), ids=list(REFUSED))
def test_an_id_outside_the_rule_is_refused_at_ingest_naming_the_rule_and_nothing_is_stored(
    service: InProcessService, key: str
) -> None:
    status, answer = service.hook("user-prompt-submit", {"session_id": key, "cwd": PROJECT, "prompt": "hi"})

    assert status == 422
    assert SESSION_ID_RULE in answer["detail"]
    assert key not in json.dumps(answer)
    assert on_aws.state_store().get("default", key.strip()) is None


@pytest.mark.parametrize("field", ["session_id", "agent_id", "parent_session_key", "previous_session_key"])
def test_an_id_holding_a_secret_is_refused_without_echoing_it(service: InProcessService, field: str) -> None:
    body = {"session_id": "s1", "cwd": PROJECT, "prompt": "hi", field: f"sess-{GITHUB_TOKEN}"}

    status, answer = service.hook("user-prompt-submit", body)

    assert status == 422
    assert "github_token" in answer["detail"] and "secret" in answer["detail"]
    assert GITHUB_TOKEN not in json.dumps(answer)


def test_a_digest_under_a_refused_id_is_a_422_naming_the_rule(service: InProcessService) -> None:
    route = "/api/sessions/{session_key}/digest"
    key = 'a"b'
    request = http_event(
        "POST",
        route.replace("{session_key}", quote(key, safe="")),
        route,
        body={"summary": "did things", "project": PROJECT},
        path_parameters={"session_key": key},
    )

    response = invoke(wiring.AGENT_API.key, request)

    assert response["statusCode"] == 422
    assert SESSION_ID_RULE in json.loads(response["body"])["detail"]


@pytest.mark.parametrize("key", ['legacy "quoted"', "legacy\ttab", "legacy`tick", "legacy\\back", "legacy é"])
def test_a_session_stored_before_the_rule_stays_readable_and_deletable(
    service: InProcessService, key: str
) -> None:
    # Given a session written under an id the rule now refuses (as the version before it accepted)
    hook = Hook(
        event=HookEvent.USER_PROMPT_SUBMIT,
        session_key=key,
        harness="claude-code",
        project=PROJECT,
        project_normalized=PROJECT,
        prompt="refactor the writer",
        transcript=TranscriptDelta(offset=0, text="User: refactor the writer\n"),
    )
    on_aws.hook_dispatcher().handle("default", hook)
    route = "/api/sessions/{session_key}/checkpoint"
    assert sessions_call("POST", route, key, wiring.AGENT_API.key)[0] == 200

    # Then it is reachable on every route, and deletable
    assert_readable_and_deletable(key)


def test_a_missing_session_is_a_404_that_does_not_echo_its_id(service: InProcessService) -> None:
    key = f"s-{GITHUB_TOKEN}"
    for route, function in READ_ROUTES:
        status, answer = sessions_call("GET", route, key, function)

        assert status in (200, 404), answer  # lists answer empty, single reads 404
        assert GITHUB_TOKEN not in json.dumps(answer)


def test_a_token_name_holding_a_secret_is_refused_and_one_stored_before_is_listed_redacted(
    service: InProcessService,
) -> None:
    # Given a token created before the name rule, named after a key
    old = TokenRecord(
        token_id="0123456789abcdef",
        token_sha256="0" * 64,
        agent_id="default",
        scopes=[Scope.READ],
        name=f"ci {GITHUB_TOKEN}",
        created_at=utc_now(),
    )
    DynamoTokenStore(os.environ[TABLE_ENV]).put(old)

    # When a new token is asked for under such a name, and the tokens are listed
    body = {"agent_id": "default", "scopes": ["read"], "name": f"ci {GITHUB_TOKEN}"}
    created = invoke(wiring.TOKENS.key, http_event("POST", "/api/tokens", "/api/tokens", body=body))
    listed = invoke(wiring.TOKENS.key, http_event("GET", "/api/tokens", "/api/tokens"))

    # Then the new one is refused naming the rule, and the old one's name is shown redacted
    assert created["statusCode"] == 422
    assert "github_token" in json.loads(created["body"])["detail"]
    names = [t["name"] for t in json.loads(listed["body"])["tokens"]]
    assert GITHUB_TOKEN not in listed["body"]
    assert "ci [REDACTED:github_token]" in names


@pytest.mark.parametrize("agent_id", [GITHUB_TOKEN, "a#b", "a:b", "-lead"])
def test_an_agent_id_outside_the_rule_is_refused_naming_it(service: InProcessService, agent_id: str) -> None:
    body = {"agent_id": agent_id, "scopes": ["read"]}

    created = invoke(wiring.TOKENS.key, http_event("POST", "/api/tokens", "/api/tokens", body=body))

    assert created["statusCode"] == 422
    assert agent_id not in created["body"]
