"""The HTTP API Lambda authorizer step: REQUEST type, payload 2.0, simple responses, cached per identity.

As API Gateway: a missing or empty identity source answers 401 without invoking the authorizer;
``{"isAuthorized": false}`` answers 403; an authorizer error or a malformed answer answers 500;
answers are cached per identity-source value for ``cache_ttl_s`` and apply to every route.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from infra.local.events import authorizer_event
from infra.local.runtime import Runtime
from infra.wiring import AuthorizerSpec


@dataclass(frozen=True)
class Decision:
    status: int  # 200 authorized, 401 no identity, 403 denied, 500 authorizer failed
    context: dict[str, Any] = field(default_factory=dict)

    @property
    def allowed(self) -> bool:
        return self.status == 200


UNAUTHORIZED = Decision(401)
FORBIDDEN = Decision(403)
FAILED = Decision(500)


class AuthorizerGate:
    def __init__(
        self,
        runtime: Runtime,
        spec: AuthorizerSpec,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._runtime = runtime
        self._spec = spec
        self._clock = clock
        self._cache: dict[str, tuple[float, Decision]] = {}
        self._lock = threading.Lock()

    def authorize(self, request: dict[str, Any]) -> Decision:
        """Decide for an ``http_event``; the caller puts ``context`` at ``authorizer.lambda``."""
        identity = (request.get("headers") or {}).get(self._spec.identity_header.lower(), "")
        if not identity.strip():
            return UNAUTHORIZED
        cached = self._cached(identity)
        if cached is not None:
            return cached
        event = authorizer_event(request, identity_source=[identity])
        invocation = self._runtime.invoke(self._spec.function, event)
        decision = self._decision(invocation.result) if invocation.ok else FAILED
        if decision.status in (200, 403) and self._spec.cache_ttl_s > 0:
            with self._lock:
                self._cache[identity] = (self._clock() + self._spec.cache_ttl_s, decision)
        return decision

    def clear(self) -> None:
        with self._lock:
            self._cache.clear()

    def _cached(self, identity: str) -> Decision | None:
        with self._lock:
            entry = self._cache.get(identity)
            if entry is None:
                return None
            if entry[0] <= self._clock():
                del self._cache[identity]
                return None
            return entry[1]

    @staticmethod
    def _decision(result: Any) -> Decision:
        if not isinstance(result, dict) or not isinstance(result.get("isAuthorized"), bool):
            return FAILED
        context = result.get("context") or {}
        if not isinstance(context, dict):
            return FAILED
        return Decision(200, dict(context)) if result["isAuthorized"] else FORBIDDEN
