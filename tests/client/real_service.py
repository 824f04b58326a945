"""The real service for the client tests, in this process: every function of the wiring behind the
local stack's gateway and authorizer, on moto, served over HTTP on 127.0.0.1.

The client talks to it as to a deployment, so what a user reads after an error is what the service
really answers (the fake in ``fake_continuity_service`` is for faults the service cannot be made to
show: hangs, 5xx, malformed answers). Each function runs under its own grant, and requests come
one at a time (functions sharing a process must not run at once: ``tests/support/isolation.py``).
``stop()`` closes the port, ``restart()`` opens it again on the same port with the data kept, as a
restarted local stack does.
"""

from __future__ import annotations

import hashlib
import json
import os
import urllib.request
from dataclasses import dataclass, field

from continuity_core.admin.tokens import DEFAULT_AGENT
from continuity_core.kernel.names import DLQ_ENV, QUEUE_ENV, TABLE_ENV
from infra import wiring
from infra.local.authorization import AuthorizerGate
from infra.local.gateway import Gateway, GatewayServer
from infra.local.routes import RouteTable
from infra.local.runtime import InProcessRuntime
from infra.operator import Operator, Target
from tests.support.isolation import as_function

ADMIN_TOKEN = "client-tests-admin-token"


def admin_token_sha256() -> str:
    return hashlib.sha256(ADMIN_TOKEN.encode()).hexdigest()


@dataclass
class RealService:
    port: int = 0
    gateway: Gateway | None = None
    _server: GatewayServer | None = field(default=None, repr=False)
    _admins: dict[str, str] = field(default_factory=dict, repr=False)  # agent -> its admin token

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> RealService:
        # Each function under its synthesized grant (the access guard the ``aws`` fixture installs).
        runtime = InProcessRuntime(wiring.FUNCTIONS, enforce_timeouts=False, scope=as_function)
        no_cache = wiring.AuthorizerSpec(function=wiring.API_AUTHORIZER.function, cache_ttl_s=0)
        self.gateway = Gateway(runtime, RouteTable(wiring.FUNCTIONS), AuthorizerGate(runtime, no_cache))
        return self._serve()

    def _serve(self) -> RealService:
        assert self.gateway is not None
        self._server = GatewayServer(self.gateway, "127.0.0.1", self.port)
        self.port = int(self._server.url.rsplit(":", 1)[1])
        self._server.start()
        return self

    def stop(self) -> None:
        """Close the port: the client then sees 'connection refused'."""
        if self._server is not None:
            self._server.stop()
            self._server = None

    def restart(self) -> None:
        self._serve()

    def create_token(self, agent: str, scopes: str = "hooks,read") -> dict:
        """A token of ``agent``, created by its admin (the operator makes the agent a tenant first)."""
        body = json.dumps({"scopes": scopes.split(",")}).encode()
        request = urllib.request.Request(
            self.url + "/api/tokens",
            data=body,
            method="POST",
            headers={"Authorization": f"Bearer {self.admin_of(agent)}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=30) as answer:
            return dict(json.loads(answer.read()))

    def admin_of(self, agent: str) -> str:
        if agent == DEFAULT_AGENT:
            return ADMIN_TOKEN
        if agent not in self._admins:
            operator = Operator(Target(os.environ[TABLE_ENV], os.environ[QUEUE_ENV], os.environ[DLQ_ENV]))
            self._admins[agent] = operator.tenants.create_tenant(agent).token
        return self._admins[agent]

    def deliver_flushes(self) -> int:
        """The checkpoint writer takes the queued flushes (tests run with no debounce delay)."""
        from tests.support.api import InProcessService

        return InProcessService().drain_queue()
