"""Time spent inside AWS calls, and how many were made: to tell our own time apart from moto's."""

from __future__ import annotations

import threading
import time
from collections import Counter
from typing import Any


class AwsTime:
    """Wall time while at least one AWS call is in flight (moto's work included; calls made in
    parallel threads count once), and the calls, by service."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.calls: Counter[str] = Counter()
        self._in_flight = 0
        self._since = 0.0
        self._lock = threading.Lock()

    def attach(self, services: tuple[str, ...] = ("dynamodb", "s3")) -> AwsTime:
        from continuity_core.kernel.aws import client

        for name in services:
            events = client(name).meta.events
            events.register("before-call", self._before)
            events.register("after-call", self._after)
        return self

    def _before(self, model: Any = None, **_: Any) -> None:
        with self._lock:
            if self._in_flight == 0:
                self._since = time.perf_counter()
            self._in_flight += 1
            if model is not None:
                self.calls[model.service_model.service_name] += 1

    def _after(self, **_: Any) -> None:
        with self._lock:
            if self._in_flight == 0:
                return
            self._in_flight -= 1
            if self._in_flight == 0:
                self.seconds += time.perf_counter() - self._since

    def total_calls(self, services: tuple[str, ...] | None = None) -> int:
        return sum(n for name, n in self.calls.items() if services is None or name in services)
