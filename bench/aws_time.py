"""Time spent inside AWS calls, and how many were made: to tell our own time apart from moto's."""

from __future__ import annotations

import threading
import time
from collections import Counter
from typing import Any


class AwsTime:
    """Wall time inside AWS calls (moto's work included) and the calls, by service."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.calls: Counter[str] = Counter()
        self._started: dict[int, float] = {}

    def attach(self, services: tuple[str, ...] = ("dynamodb", "s3")) -> AwsTime:
        from continuity_core.adapters.aws import client

        for name in services:
            events = client(name).meta.events
            events.register("before-call", self._before)
            events.register("after-call", self._after)
        return self

    def _before(self, model: Any = None, **_: Any) -> None:
        self._started[threading.get_ident()] = time.perf_counter()
        if model is not None:
            self.calls[model.service_model.service_name] += 1

    def _after(self, **_: Any) -> None:
        started = self._started.pop(threading.get_ident(), None)
        if started is not None:
            self.seconds += time.perf_counter() - started

    def total_calls(self, services: tuple[str, ...] | None = None) -> int:
        return sum(n for name, n in self.calls.items() if services is None or name in services)
