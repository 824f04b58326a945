"""The service's health for an admin (``GET /api/admin/health``), from what it already keeps.

Nothing here is counted for the purpose: the checkpoint queue's and its DLQ's depth are SQS's own
attributes, requests per minute are the rate limiter's shared windows (one item per token and
minute, written anyway), the pruner's progress is its cursor item. So the route adds no write to
any request, and reads: one token query, one batch read per 100 token-minutes, one item, two SQS
calls.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Protocol

from continuity_core.logic.ratelimit import WINDOW_SECONDS
from continuity_core.logic.tokens import BOOTSTRAP_ID
from continuity_core.models.health import HealthAnswer, PrunerStatus, QueueDepth, RequestMinute
from continuity_core.ports import Clock, TokenStore

MINUTES = 15
NOT_SHOWN = [
    "4xx/5xx answers and the last hook per harness and event: CloudWatch has them (API Gateway's "
    "4xx and 5xx metrics; the hooks function's HooksReceived by Event in the Continuity namespace); "
    "counting them in the table would add a write to every hook.",
]


class HealthSource(Protocol):
    def queue_depths(self) -> tuple[QueueDepth, QueueDepth]:
        """(the checkpoint queue, its DLQ)."""
        ...

    def request_counts(self, keys: list[str], windows: list[int]) -> dict[int, int]:
        """Requests per rate window, summed over the rate keys (token ids)."""
        ...

    def pruner(self) -> PrunerStatus: ...


class HealthReader:
    def __init__(self, tokens: TokenStore, source: HealthSource, clock: Clock) -> None:
        self._tokens = tokens
        self._source = source
        self._clock = clock

    def health(self) -> HealthAnswer:
        now = self._clock()
        current = int(now.timestamp() // WINDOW_SECONDS)
        windows = list(range(current - MINUTES + 1, current + 1))
        # Revoked tokens too: their requests before the revocation count.
        keys = [BOOTSTRAP_ID, *(t.token_id for t in self._tokens.all())]
        counts = self._source.request_counts(keys, windows)
        queue, dlq = self._source.queue_depths()
        return HealthAnswer(
            checked_at=now,
            checkpoint_queue=queue,
            dead_letter_queue=dlq,
            requests_per_minute=[
                RequestMinute(
                    minute=datetime.fromtimestamp(w * WINDOW_SECONDS, UTC), requests=counts.get(w, 0)
                )
                for w in windows
            ],
            pruner=self._source.pruner(),
            not_shown=NOT_SHOWN,
        )
