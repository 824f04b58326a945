"""The timer: invokes each scheduled function with an EventBridge "Scheduled Event" at its rate.

As a rate rule does, the first run comes one period after start. ``run_now`` runs one immediately
(``POST /local/schedules/{key}`` on the gateway); it shares the function's invocation lock.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable

from infra.local.context import NAME_PREFIX
from infra.local.events import scheduled_event
from infra.local.runtime import Invocation, Runtime
from infra.wiring import FunctionSpec

log = logging.getLogger(__name__)


class Scheduler:
    def __init__(
        self,
        functions: Iterable[FunctionSpec],
        runtime: Runtime,
        *,
        minute_seconds: float = 60.0,
        rule_prefix: str = NAME_PREFIX,
    ) -> None:
        self._specs = {spec.key: spec for spec in functions if spec.schedule is not None}
        self._runtime = runtime
        self._minute_seconds = minute_seconds
        self._rule_prefix = rule_prefix
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(self._specs)

    def period_s(self, key: str) -> float:
        schedule = self._specs[key].schedule
        assert schedule is not None
        return schedule.rate_minutes * self._minute_seconds

    def start(self) -> None:
        for key in self._specs:
            thread = threading.Thread(target=self._loop, args=(key,), name=f"timer-{key}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=30)
        self._threads.clear()

    def run_now(self, key: str) -> Invocation:
        """Invoke the scheduled function ``key`` now; KeyError if it has no schedule."""
        spec = self._specs[key]
        rule = f"{self._rule_prefix}-{spec.key.replace('_', '-')}-schedule"
        invocation = self._runtime.invoke(key, scheduled_event(rule))
        if not invocation.ok:
            log.error("scheduled run of %s failed: %s", key, invocation.error)
        return invocation

    def _loop(self, key: str) -> None:
        period = self.period_s(key)
        while not self._stop.wait(period):
            self.run_now(key)
