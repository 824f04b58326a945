"""The service's health for an admin (``GET /api/admin/health``: its own agent's traffic) and for
the operator (every tenant's, ``python -m infra.operator health``), from what the service keeps.

The checkpoint queue's and its DLQ's depth are SQS's own attributes; requests, 4xx and 5xx answers
per minute and the hooks received are the rate limiter's shared windows (one item per token and
minute, written anyway: the answers and the hooks ride on the same writes, admin/ratelimit.py) and
each token's long-lived item of its hooks' last sightings; the pruner's progress is its cursor
item. The route reads: one token query (the operator: one a tenant), one batch read per 100 items
(15 windows and one item per token), one item, two SQS calls.
"""

from __future__ import annotations

from datetime import UTC, datetime

from continuity_core.admin.ports import HealthSource, TokenStore
from continuity_core.admin.ratelimit import KEPT_WINDOWS, WINDOW_SECONDS, split_hook_kind
from continuity_core.admin.tokens import BOOTSTRAP_ID, DEFAULT_AGENT
from continuity_core.kernel.clock import Clock
from continuity_core.models.health import HealthAnswer, LastHook, RequestMinute

MINUTES = KEPT_WINDOWS - 1  # every window shown still exists
NOT_SHOWN = [
    "Requests API Gateway refuses before a function runs (no token: 401; the authorizer's 403) "
    "and a function that times out or is killed: CloudWatch has them (API Gateway's 4xx and 5xx).",
    "Counts are added by each warm function instance every 20 requests, or at a request's end "
    "5 s after its last addition: an instance's last few seconds show once it serves again.",
]


class HealthReader:
    def __init__(self, tokens: TokenStore, source: HealthSource, clock: Clock) -> None:
        self._tokens = tokens
        self._source = source
        self._clock = clock

    def health(self, agent_id: str) -> HealthAnswer:
        """A tenant admin's: its own agent's tokens' traffic; the queues and the pruner, which are
        the service's (shared by every tenant, naming none)."""
        return self._answer(agent_id, self._keys([agent_id]))

    def fleet(self) -> HealthAnswer:
        """The operator's: every tenant's traffic."""
        agents = sorted({DEFAULT_AGENT, *self._tokens.tenants()})
        return self._answer(None, self._keys(agents))

    def _keys(self, agents: list[str]) -> list[str]:
        """The agents' rate keys (token ids). Revoked tokens too: their requests before the
        revocation count. The bootstrap token is the default agent's."""
        keys = [BOOTSTRAP_ID] if DEFAULT_AGENT in agents else []
        return keys + [t.token_id for agent in agents for t in self._tokens.for_agent(agent)]

    def _answer(self, agent_id: str | None, keys: list[str]) -> HealthAnswer:
        now = self._clock()
        current = int(now.timestamp() // WINDOW_SECONDS)
        windows = list(range(current - MINUTES + 1, current + 1))
        traffic = self._source.traffic(keys, windows)
        queue, dlq = self._source.queue_depths()
        return HealthAnswer(
            checked_at=now,
            agent_id=agent_id,
            checkpoint_queue=queue,
            dead_letter_queue=dlq,
            requests_per_minute=[
                RequestMinute(
                    minute=datetime.fromtimestamp(w * WINDOW_SECONDS, UTC),
                    requests=traffic.requests.get(w, 0),
                    client_errors=traffic.client_errors.get(w, 0),
                    server_errors=traffic.server_errors.get(w, 0),
                )
                for w in windows
            ],
            last_hooks=last_hooks(traffic.seen),
            pruner=self._source.pruner(),
            not_shown=NOT_SHOWN,
        )


def last_hooks(seen: dict[str, int]) -> list[LastHook]:
    """Each (harness, event) with when it was last received, by harness then event."""
    hooks = []
    for kind, at in seen.items():
        harness, event = split_hook_kind(kind)
        hooks.append(LastHook(harness=harness, event=event, at=datetime.fromtimestamp(at, UTC)))
    return sorted(hooks, key=lambda hook: (hook.harness, hook.event))
