"""Per-token rate limit: a fixed one-minute window counted across every function instance.

Counting each request in DynamoDB would add a request to every hook. Instead each instance counts
locally and adds its count to the shared window every ``flush_every`` requests (or ``flush_after``
seconds), reading back the global total; the limit is enforced on that total plus what it has
not flushed yet. The overshoot is bounded by ``flush_every`` per warm instance.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from continuity_core.ports import Clock

WINDOW_SECONDS = 60


class RateCounter(Protocol):
    def add(self, key: str, window: int, count: int, expires_at: int) -> int:
        """Add ``count`` to the key's window; returns the window's total."""
        ...


@dataclass
class _Window:
    window: int
    seen_total: int = 0  # the shared total at the last flush (includes our flushed counts)
    pending: int = 0  # counted here, not yet added to the shared total
    flushed_at: float = 0.0


class RateLimiter:
    def __init__(
        self,
        counter: RateCounter,
        limit_per_minute: int,
        clock: Clock,
        flush_every: int = 20,
        flush_after: float = 5.0,
    ) -> None:
        self._counter = counter
        self._limit = limit_per_minute
        self._clock = clock
        self._flush_every = flush_every
        self._flush_after = flush_after
        self._windows: dict[str, _Window] = {}
        self._lock = threading.Lock()

    def admit(self, key: str) -> int | None:
        """None when the request may go on; else the seconds until the window resets (Retry-After)."""
        now = self._clock()
        seconds = now.timestamp()
        window = int(seconds // WINDOW_SECONDS)
        with self._lock:
            state = self._windows.get(key)
            if state is None or state.window != window:
                state = self._windows[key] = _Window(window=window, flushed_at=seconds)
            if state.seen_total + state.pending >= self._limit:
                return _retry_after(now, window)
            state.pending += 1
            due = state.pending >= self._flush_every or seconds - state.flushed_at >= self._flush_after
            if not due:
                return None
            pending, state.pending, state.flushed_at = state.pending, 0, seconds
        total = self._counter.add(key, window, pending, expires_at=(window + 2) * WINDOW_SECONDS)
        with self._lock:
            if state.window == window:
                state.seen_total = max(state.seen_total, total)
        return None


def _retry_after(now: datetime, window: int) -> int:
    return max(1, math.ceil((window + 1) * WINDOW_SECONDS - now.timestamp()))
