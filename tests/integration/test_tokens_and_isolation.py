"""Tokens, scopes and tenant isolation through the gateway path (authorizer → handler) on moto.

The matrix: every authorized route by own data / another agent's data (its hooks/read token and
its admin) / no token / wrong scope / revoked / expired; and every token and health route by one
tenant's admin against another's. Requests go through the local stack's gateway in-process (the
same authorizer invocation and context hand-off API Gateway does), with the authorizer cache off.
Tenants are created as the operator creates them (``infra/operator.py``, on the same table).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from werkzeug.test import Client

from continuity_core.kernel.names import DLQ_ENV, QUEUE_ENV, TABLE_ENV
from continuity_core.models.scopes import Scope
from continuity_core.models.tokens import CreateTokenRequest
from infra import wiring
from infra.local.authorization import AuthorizerGate
from infra.local.gateway import Gateway
from infra.local.routes import RouteTable
from infra.local.runtime import InProcessRuntime
from infra.operator import Operator, Target
from tests.support import on_aws
from tests.support.clock import install_clock
from tests.support.cold_starts import reset_functions
from tests.support.isolation import as_function

ADMIN = "bootstrap-admin-token"  # the default agent's admin
PROJECT = "/work/app"


@dataclass
class Api:
    client: Client
    operator: Operator

    def call(self, method: str, path: str, token: str | None, body: Any = None) -> tuple[int, Any]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        data = json.dumps(body) if body is not None else None
        response = self.client.open(
            path, method=method, headers=headers, data=data, content_type="application/json"
        )
        text = response.get_data(as_text=True)
        return response.status_code, json.loads(text) if text else None


@pytest.fixture
def api(aws: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Iterator[Api]:
    monkeypatch.setenv("CONTINUITY_FLUSH_DELAY_SECONDS", "0")
    monkeypatch.setenv(wiring.API_TOKEN_ENV_VAR, hashlib.sha256(ADMIN.encode()).hexdigest())
    reset_functions()
    runtime = InProcessRuntime(wiring.FUNCTIONS, enforce_timeouts=False, scope=as_function)
    no_cache = wiring.AuthorizerSpec(function=wiring.API_AUTHORIZER.function, cache_ttl_s=0)
    gateway = Gateway(runtime, RouteTable(wiring.FUNCTIONS), AuthorizerGate(runtime, no_cache))
    operator = Operator(Target(aws[TABLE_ENV], aws[QUEUE_ENV], aws[DLQ_ENV]))
    yield Api(Client(gateway), operator)
    reset_functions()


def tenant(api: Api, agent: str) -> str:
    """The operator creates the tenant: its first admin token."""
    return api.operator.tenants.create_tenant(agent).token


def create_token(api: Api, admin: str, scopes: str, **extra: Any) -> str:
    status, body = api.call("POST", "/api/tokens", admin, {"scopes": scopes.split(","), **extra})
    assert status == 201, body
    return str(body["token"])


def token_ids(api: Api, admin: str) -> set[str]:
    status, listed = api.call("GET", "/api/tokens", admin)
    assert status == 200, listed
    return {record["token_id"] for record in listed["tokens"]}


def test_a_created_token_is_shown_once_and_stored_only_as_a_hash(api: Api) -> None:
    alice_admin = tenant(api, "alice")
    token = create_token(api, alice_admin, "hooks,read", name="laptop")

    status, listed = api.call("GET", "/api/tokens", alice_admin)

    assert status == 200
    admin_record, record = listed["tokens"]
    assert record["agent_id"] == "alice" and record["scopes"] == ["hooks", "read"]
    assert admin_record["agent_id"] == "alice" and admin_record["scopes"] == ["admin", "hooks", "read"]
    assert token not in json.dumps(listed) and "token_sha256" not in record
    stored = on_aws.token_service().authorize(token)
    assert stored is not None and stored.token_sha256 == hashlib.sha256(token.encode()).hexdigest()


@pytest.mark.parametrize(
    "body",
    [
        {"scopes": []},
        {"scopes": ["everything"]},
        {"agent_id": "bad agent id!", "scopes": ["read"]},
        {"scopes": ["read"], "expires_in_days": 0},
    ],
)
def test_bad_token_requests_are_refused(api: Api, body: dict[str, Any]) -> None:
    status, _ = api.call("POST", "/api/tokens", ADMIN, body)
    assert status == 422


def test_only_admins_manage_tokens(api: Api) -> None:
    token = create_token(api, tenant(api, "alice"), "hooks,read")

    assert api.call("GET", "/api/tokens", token)[0] == 403
    assert api.call("POST", "/api/tokens", token, {"scopes": ["hooks"]})[0] == 403


def test_revoking_an_unknown_token_is_404(api: Api) -> None:
    assert api.call("DELETE", "/api/tokens/nope", ADMIN)[0] == 404


def test_the_operator_creates_a_tenant_once(api: Api) -> None:
    from continuity_core.admin.tokens import TenantExistsError

    tenant(api, "alice")

    with pytest.raises(TenantExistsError):
        tenant(api, "alice")
    assert api.operator.tenants.tenants() == ["alice", "default"]


# -- admin against admin: every token and health route ------------------------------------------


@pytest.fixture
def admins(api: Api) -> dict[str, str]:
    """Two tenants, each with its admin and a hooks/read token that has posted a prompt."""
    tokens = {"alice_admin": tenant(api, "alice"), "bob_admin": tenant(api, "bob")}
    for agent in ("alice", "bob"):
        tokens[agent] = create_token(api, tokens[f"{agent}_admin"], "hooks,read")
        harness = {"alice": "codex", "bob": "claude-code"}[agent]
        body = {"session_id": f"{agent}-s", "cwd": PROJECT, "prompt": "hi", "harness": harness}
        assert api.call("POST", "/api/hooks/user-prompt-submit", tokens[agent], body)[0] == 200
    return tokens


@pytest.mark.parametrize("other_admin", ["bob_admin", "bootstrap"])
def test_an_admin_lists_only_its_own_agents_tokens(
    api: Api, admins: dict[str, str], other_admin: str
) -> None:
    other = admins.get(other_admin, ADMIN)
    alice_ids = token_ids(api, admins["alice_admin"])

    status, listed = api.call("GET", "/api/tokens", other)

    assert status == 200 and len(alice_ids) == 2
    assert not alice_ids & {record["token_id"] for record in listed["tokens"]}
    assert "alice" not in {record["agent_id"] for record in listed["tokens"]}


@pytest.mark.parametrize("other_admin", ["bob_admin", "bootstrap"])
def test_an_admin_cannot_mint_a_token_for_another_agent(
    api: Api, admins: dict[str, str], other_admin: str
) -> None:
    other = admins.get(other_admin, ADMIN)
    before = token_ids(api, admins["alice_admin"])

    for scopes in (["read"], ["admin"]):
        status, answer = api.call("POST", "/api/tokens", other, {"agent_id": "alice", "scopes": scopes})
        assert status == 403, answer
        assert "operator" in answer["detail"] and "alice" not in answer["detail"]
    for new_tenant in ("carol", "alice"):  # nor a new tenant's first token
        assert api.call("POST", "/api/tokens", other, {"agent_id": new_tenant, "scopes": ["admin"]})[0] == 403
    assert token_ids(api, admins["alice_admin"]) == before


def test_a_token_an_admin_mints_is_its_own_agents_and_reads_nothing_of_another(
    api: Api, admins: dict[str, str]
) -> None:
    status, created = api.call("POST", "/api/tokens", admins["bob_admin"], {"scopes": ["read"]})
    assert status == 201 and created["agent_id"] == "bob"

    sessions = api.call("GET", f"/api/sessions?project={PROJECT}", created["token"])

    assert sessions[0] == 200 and [s["session_key"] for s in sessions[1]["sessions"]] == []
    assert api.call("GET", "/api/sessions/alice-s/timeline", created["token"])[0] == 404


@pytest.mark.parametrize("other_admin", ["bob_admin", "bootstrap"])
def test_an_admin_cannot_revoke_another_agents_token(
    api: Api, admins: dict[str, str], other_admin: str
) -> None:
    other = admins.get(other_admin, ADMIN)
    path = f"/api/checkpoints?project={PROJECT}"
    for token_id in token_ids(api, admins["alice_admin"]):
        status, answer = api.call("DELETE", f"/api/tokens/{token_id}", other)
        # the same answer as for an id no one has: whether alice has it is not bob's to learn
        assert (status, answer) == api.call("DELETE", "/api/tokens/0123456789abcdef", other)
        assert status == 404
    assert api.call("GET", path, admins["alice"])[0] == 200
    assert api.call("GET", "/api/tokens", admins["alice_admin"])[0] == 200


@pytest.mark.parametrize("other_admin", ["bob_admin", "bootstrap"])
def test_an_admins_health_counts_only_its_own_agents_traffic(
    api: Api, admins: dict[str, str], other_admin: str
) -> None:
    # Given alice's 24 more prompts (the rate windows take an instance's count every 20 requests)
    body = {"session_id": "alice-s", "cwd": PROJECT, "prompt": "step", "harness": "codex"}
    for _ in range(24):
        assert api.call("POST", "/api/hooks/user-prompt-submit", admins["alice"], body)[0] == 200
    # When alice's admin and another admin ask for their health
    own = api.call("GET", "/api/admin/health", admins["alice_admin"])[1]
    other = api.call("GET", "/api/admin/health", admins.get(other_admin, ADMIN))[1]
    fleet = api.operator.health.fleet()
    # Then alice's traffic and her hooks' last sightings are hers and the operator's only
    assert own["agent_id"] == "alice" and sum(m["requests"] for m in own["requests_per_minute"]) >= 20
    assert sum(m["requests"] for m in other["requests_per_minute"]) < 20
    assert "codex" in {h["harness"] for h in own["last_hooks"]}
    assert "codex" not in {h["harness"] for h in other["last_hooks"]}
    assert sum(m.requests for m in fleet.requests_per_minute) >= 20 and fleet.agent_id is None


# -- the isolation matrix -------------------------------------------------------------------


def seed(api: Api, token: str, session: str) -> None:
    """A session with a checkpoint, a digest with a decision, for the token's agent."""
    body = {"session_id": session, "cwd": PROJECT, "prompt": f"secret plans of {session}"}
    transcript = {"offset": 0, "text": f"User: secret plans of {session}\n"}
    assert (
        api.call("POST", "/api/hooks/user-prompt-submit", token, {**body, "transcript": transcript})[0] == 200
    )
    for _ in range(9):
        assert api.call("POST", "/api/hooks/user-prompt-submit", token, body)[0] == 200
    from tests.support.api import InProcessService

    InProcessService().drain_queue()
    digest = {"summary": f"{session} summary", "decisions": [{"decision": f"{session} decided"}]}
    assert api.call("POST", f"/api/sessions/{session}/digest", token, digest)[0] == 201
    # A resume: the injection inspector keeps the block it got (the digest above).
    start = {"session_id": session, "cwd": PROJECT, "source": "resume"}
    assert api.call("POST", "/api/hooks/session-start", token, start)[0] == 200


# (method, path template, scope it needs, expected status for the owner)
ROUTES = [
    ("POST", "/api/hooks/user-prompt-submit", "hooks", 200),
    ("POST", "/api/hooks/session-start", "hooks", 200),
    ("POST", "/api/sessions/{session}/digest", "hooks", 201),
    ("POST", "/api/sessions/{session}/checkpoint", "hooks", 200),
    ("GET", "/api/checkpoints?project=/work/app", "read", 200),
    ("GET", "/api/checkpoints/{session}", "read", 200),
    ("GET", "/api/ledger?project=/work/app", "read", 200),
    ("GET", "/api/recovery?project=/work/app&level=1", "read", 200),
    ("GET", "/api/recovery?session_key={session}&level=3", "read", 200),
    ("GET", "/api/sessions?project=/work/app", "read", 200),
    ("GET", "/api/sessions/{session}/transcript", "read", 200),
    ("POST", "/api/sessions/search", "read", 200),
    # The dashboard's reads.
    ("GET", "/api/projects", "read", 200),
    ("GET", "/api/projects/activity?project=/work/app", "read", 200),
    ("GET", "/api/sessions/overview?project=/work/app", "read", 200),
    ("GET", "/api/sessions/{session}/timeline", "read", 200),
    ("GET", "/api/sessions/{session}/checkpoints/1", "read", 200),
    ("GET", "/api/sessions/{session}/injections", "read", 200),
    ("GET", "/api/sessions/{session}/lineage", "read", 200),
    ("GET", "/api/preview?project=/work/app", "read", 200),
    ("DELETE", "/api/sessions/{session}", "hooks", 200),
    ("DELETE", "/api/projects?project=/work/app", "hooks", 200),
]


def request_body(path: str, session: str) -> Any:
    if path.startswith("/api/hooks/"):
        return {"session_id": session, "cwd": PROJECT, "prompt": "hello", "source": "resume"}
    if path.endswith("/digest"):
        return {"summary": "more"}
    if path.endswith("/search"):
        return {"query": "secret plans", "project": PROJECT}
    return None


@pytest.fixture
def tenants(api: Api) -> dict[str, str]:
    alice_admin, bob_admin = tenant(api, "alice"), tenant(api, "bob")
    tokens = {
        "alice": create_token(api, alice_admin, "hooks,read"),
        "bob": create_token(api, bob_admin, "hooks,read"),
        "bob_admin": bob_admin,
        "alice_hooks_only": create_token(api, alice_admin, "hooks"),
        "alice_read_only": create_token(api, alice_admin, "read"),
        "alice_revoked": create_token(api, alice_admin, "hooks,read"),
    }
    seed(api, tokens["alice"], "alice-session")
    revoked_id = api.call("GET", "/api/tokens", alice_admin)[1]["tokens"][-1]["token_id"]
    assert api.call("DELETE", f"/api/tokens/{revoked_id}", alice_admin)[0] == 200
    return tokens


@pytest.mark.parametrize(("method", "template", "scope", "owner_status"), ROUTES, ids=lambda v: str(v))
def test_the_isolation_matrix(
    api: Api, tenants: dict[str, str], method: str, template: str, scope: str, owner_status: int
) -> None:
    path = template.format(session="alice-session")
    body = request_body(path, "alice-session")

    # Another agent first (its token, then its admin): their deletes must leave alice's data for
    # alice's own call to find.
    other_admin = api.call(method, path, tenants["bob_admin"], body)
    other = api.call(method, path, tenants["bob"], body)
    own = api.call(method, path, tenants["alice"], body)
    wrong_scope = api.call(
        method, path, tenants["alice_read_only" if scope == "hooks" else "alice_hooks_only"], body
    )

    assert own[0] == owner_status, own
    assert api.call(method, path, None, body)[0] == 401
    assert wrong_scope[0] == 403
    assert api.call(method, path, tenants["alice_revoked"], body)[0] == 403
    assert api.call(method, path, "ctn_made-up", body)[0] == 403
    # Another agent, even its admin, never sees alice's data: reads are empty or 404, writes land
    # in bob's own space.
    for theirs in (other, other_admin):
        assert "alice-session summary" not in json.dumps(theirs[1])
        assert "secret plans of alice-session" not in json.dumps(theirs[1])
        assert "alice-session decided" not in json.dumps(theirs[1])
        if method == "GET":
            assert theirs[0] in (200, 404)
            if theirs[0] == 200:
                answer = theirs[1]
                assert not (answer.get("checkpoints") or answer.get("entries") or answer.get("sessions"))
                assert not (answer.get("events") or answer.get("turns") or answer.get("checkpoint"))
                assert not (answer.get("injections") or answer.get("links") or answer.get("projects"))
                assert not (
                    answer.get("starts")
                    or any(d["prompts"] or d["checkpoints"] for d in answer.get("days", []))
                )
        if path.endswith("/search"):
            assert not theirs[1]["results"]
        if path.startswith("/api/preview"):
            assert theirs[1]["text"] is None
        if method == "DELETE":
            assert theirs[1]["deleted"]["checkpoints"] == theirs[1]["deleted"]["ledger_entries"] == 0
    if path.endswith("/injections"):
        assert "alice-session summary" in json.dumps(own[1]["injections"])
    if path.endswith("/search"):
        assert own[1]["results"]
    if path.startswith("/api/projects/activity"):
        assert [row["session_key"] for row in own[1]["sessions"]] == ["alice-session"]
    if path == "/api/projects":  # the agent's own records only
        assert [row["last_session_key"] for row in own[1]["projects"]] == ["alice-session"]
    if "/overview" in path:  # listed from the project's session notes: the agent's own only
        assert [row["session_key"] for row in own[1]["sessions"]] == ["alice-session"]
    if path.startswith("/api/preview"):
        assert "alice-session" in json.dumps(own[1])
    if method == "DELETE":
        assert own[1]["deleted"]["checkpoints"] >= 1 and own[1]["deleted"]["ledger_entries"] == 1


def test_an_expired_token_is_refused(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = install_clock(monkeypatch, datetime.now(UTC))
    token = create_token(api, ADMIN, "read", expires_in_days=1)
    path = "/api/checkpoints?project=/work/app"
    assert api.call("GET", path, token)[0] == 200

    clock.now += timedelta(days=1, minutes=1)

    assert api.call("GET", path, token)[0] == 403


def test_the_bootstrap_token_is_the_default_agents_admin(api: Api) -> None:
    record = on_aws.token_service().authorize(ADMIN)

    assert record is not None
    assert (record.agent_id, set(record.scopes)) == ("default", set(Scope))
    assert on_aws.token_service().authorize("not-it") is None
    assert CreateTokenRequest(scopes=[Scope.READ, Scope.READ]).scopes == [Scope.READ]


def test_the_health_route_is_admin_only_and_reads_queue_depth_and_requests_per_minute(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a token of the admin's agent that posted 25 prompts (10 make a checkpoint due: its flush
    # waits in the queue), on a clock stopped a second into the current minute
    start = datetime.now(UTC).replace(second=1, microsecond=0)
    clock = install_clock(monkeypatch, start)
    token = create_token(api, ADMIN, "hooks,read")
    body = {"session_id": "healthy", "cwd": PROJECT, "prompt": "step"}
    for _ in range(25):
        assert api.call("POST", "/api/hooks/user-prompt-submit", token, body)[0] == 200
    # and, seconds apart, a Codex session start and a read of a session that does not exist (404)
    codex = {"session_id": "other", "cwd": PROJECT, "harness": "codex", "source": "startup"}
    clock.now += timedelta(seconds=6)
    assert api.call("POST", "/api/hooks/session-start", token, codex)[0] == 200
    clock.now += timedelta(seconds=6)
    assert api.call("GET", "/api/sessions/nobody/timeline", token)[0] == 404
    # When the agent's admin asks for the health
    status, health = api.call("GET", "/api/admin/health", ADMIN)
    # Then the queue holds the flush, and the rate windows hold the prompts (each instance adds its
    # count every 20 requests, so at least 20 of the 25 show)
    assert status == 200, health
    assert health["checkpoint_queue"]["visible"] >= 1 and health["dead_letter_queue"]["visible"] == 0
    assert len(health["requests_per_minute"]) == 15
    assert sum(m["requests"] for m in health["requests_per_minute"]) >= 20
    assert health["pruner"]["pruned_before"] is None and health["not_shown"]
    # and the 404 is counted as a 4xx, and each harness and event shows when it was last received
    # (an instance adds its counts at a request's end 5 s after its last addition)
    assert sum(m["client_errors"] for m in health["requests_per_minute"]) >= 1
    assert sum(m["server_errors"] for m in health["requests_per_minute"]) == 0
    last = {(h["harness"], h["event"]): h["at"] for h in health["last_hooks"]}
    assert last[("codex", "session-start")] == f"{start + timedelta(seconds=6):%Y-%m-%dT%H:%M:%S}Z"
    assert ("claude-code", "user-prompt-submit") in last
    # And a token without the admin scope is refused
    assert api.call("GET", "/api/admin/health", token)[0] == 403
    assert api.call("GET", "/api/admin/health", None)[0] == 401
