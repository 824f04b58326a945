"""Per-token rate limit: a fixed one-minute window counted across every function instance, and
what rides on the same window writes for the health page (answers over 400, the hooks received).

Counting each request in DynamoDB would add a request to every hook. Instead each instance counts
locally and adds its count to the shared window in batches, reading back the window's total; the
limit is enforced on that total plus what the instance has not added yet. What the instances hold
unadded is what can pass the limit, so the batch shrinks as the window fills (``_batch``): an
instance adds its count once it took ``1 / HEADROOM`` of its even share of what the window has left,
``flush_every`` requests at most (far below the limit: as often as a fixed batch) and every request
at the end. The instances are counted on the window's item, by the same writes (each adds 1 at its
first add to a window; until then it takes the last window's count). With ``HEADROOM`` 2 the
instances together hold about half of what is left, so the total closes on the limit
geometrically; what remains over is about a request per instance, admitted on a total stale by
the others' adds in flight. At the end of a request that is the window's first or comes
``flush_after`` seconds after the last add, the instance adds what it holds (``settle``).

The same flush (one UpdateItem on the window's item, well under 1 KB) adds the window's 4xx and
5xx answers and when each (harness, event) hook was last received, so they cost no request of
their own. The window items expire ``KEPT_WINDOWS`` minutes on; a hook kind's last sighting is
also kept on one
long-lived item per token: an instance writes it at its second flush for the token (an instance
that served one lone request adds no second write to it), then once ``SEEN_REFRESH`` passed since
it last did, with every kind it saw since. So a warm instance adds one small write an hour per
token, never one per hook; a kind first seen after a write reaches the long-lived item within the
hour (the windows show it meanwhile).
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass, field
from datetime import timedelta

from continuity_core.admin.ports import RateCounter, WindowAdds
from continuity_core.kernel.clock import Clock

WINDOW_SECONDS = 60
# Windows a token's minute item outlives its own (the health page reads the last 15 minutes of
# them; DynamoDB's TTL deletes when it likes, so an older window could read as no traffic).
KEPT_WINDOWS = 16
# How often an instance refreshes the marks on a token's long-lived item.
SEEN_REFRESH = timedelta(hours=1)
# How long that item outlives its last write (a token unused this long shows no hooks).
SEEN_KEEP = timedelta(days=35)
# The harnesses the client installs into (client/continuity_client/hook/harness.py); any other
# name a client sends is marked as OTHER_HARNESS, so the marks on a token's items stay a bounded
# set (six harnesses by nine events) whatever strings a client posts.
KNOWN_HARNESSES = frozenset({"claude-code", "codex", "gemini", "opencode", "openclaw"})
OTHER_HARNESS = "other"
# A bound on the kinds an instance holds unwritten, should the events grow past it.
MAX_SEEN_KINDS = 64
# An instance adds its count once it took 1 / HEADROOM of its share of what the window has left
# (2: the instances together hold about half of it unadded; a larger one buys a closer limit
# with more writes near it).
HEADROOM = 2


def hook_kind(harness: str, event: str) -> str:
    """One (harness, event) as a mark's name (an unknown harness as ``other``)."""
    return f"{harness if harness in KNOWN_HARNESSES else OTHER_HARNESS}#{event}"


def split_hook_kind(kind: str) -> tuple[str, str]:
    harness, _, event = kind.rpartition("#")
    return harness, event


@dataclass
class _Window:
    window: int
    seen_total: int = 0  # the shared total at the last flush (includes our flushed counts)
    instances: int = 1  # the instances counted on the window at the last flush (or the last window's)
    joined: bool = False  # this instance is one of them
    pending: int = 0  # counted here, not yet added to the shared total
    flushed_at: float = 0.0
    client_errors: int = 0  # answers not yet added
    server_errors: int = 0
    seen: dict[str, int] = field(default_factory=dict)  # marks not yet added


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
        # Per key: its window flushes, when this instance last wrote the long-lived item, and what
        # it saw since.
        self._flushes: dict[str, int] = {}
        self._kept_at: dict[str, float] = {}
        self._unkept: dict[str, dict[str, int]] = {}
        self._lock = threading.Lock()

    def admit(self, key: str) -> int | None:
        """None when the request may go on; else the seconds until the window resets (Retry-After).
        Adds to the shared total once it holds a ``batch`` (``settle`` adds the rest)."""
        seconds = self._clock().timestamp()
        with self._lock:
            state = self._current(key, seconds)
            if state.seen_total + state.pending >= self._limit:
                return _retry_after(seconds, state.window)
            state.pending += 1
            if state.pending < self._batch(state):
                return None
        self._flush(key, state, seconds)
        return None

    def saw(self, key: str, harness: str, event: str) -> None:
        """A hook of ``harness`` and ``event`` was received (added at the window's next flush)."""
        kind = hook_kind(harness, event)
        seconds = self._clock().timestamp()
        with self._lock:
            state = self._current(key, seconds)
            if kind in state.seen or len(state.seen) < MAX_SEEN_KINDS:
                state.seen[kind] = int(seconds)

    def settle(self, key: str, status: int) -> None:
        """The request was answered with ``status``: count an error answer, and flush what is
        pending if ``flush_after`` seconds passed since this window's last flush."""
        seconds = self._clock().timestamp()
        with self._lock:
            state = self._current(key, seconds)
            if 400 <= status < 500:
                state.client_errors += 1
            elif status >= 500:
                state.server_errors += 1
            due = state.pending >= self._batch(state) or seconds - state.flushed_at >= self._flush_after
            if not due or not (state.pending or state.client_errors or state.server_errors or state.seen):
                return
        self._flush(key, state, seconds)

    def _batch(self, state: _Window) -> int:
        """How many requests this instance holds before adding them to the window: ``1 / HEADROOM``
        of its share of what the window has left (the others, as many each since its last add
        as it took, counted as gone), at most ``flush_every``, at least 1."""
        left = self._limit - state.seen_total - (state.instances - 1) * state.pending
        share = left // (HEADROOM * state.instances)
        return max(1, min(self._flush_every, share))

    def _current(self, key: str, seconds: float) -> _Window:
        window = int(seconds // WINDOW_SECONDS)
        state = self._windows.get(key)
        if state is None or state.window != window:
            # Never flushed: the window's first answered request flushes (a lone hook is seen).
            # The last window's instances are the best guess of this one's until it is read.
            instances = state.instances if state else 1
            state = self._windows[key] = _Window(window=window, flushed_at=-math.inf, instances=instances)
        return state

    def _flush(self, key: str, state: _Window, seconds: float) -> None:
        with self._lock:
            pending, state.pending, state.flushed_at = state.pending, 0, seconds
            adds = WindowAdds(state.client_errors, state.server_errors, state.seen, int(not state.joined))
            state.joined = True
            state.client_errors, state.server_errors, state.seen = 0, 0, {}
            unkept = self._unkept.setdefault(key, {})
            for kind, at in adds.seen.items():
                if kind in unkept or len(unkept) < MAX_SEEN_KINDS:
                    unkept[kind] = at
            flushes = self._flushes[key] = self._flushes.get(key, 0) + 1
            stale = seconds - self._kept_at.get(key, -math.inf) >= SEEN_REFRESH.total_seconds()
            refresh: dict[str, int] = {}
            if unkept and flushes >= 2 and stale:
                refresh, self._unkept[key] = unkept, {}
                self._kept_at[key] = seconds
        window = state.window
        totals = self._counter.add(key, window, pending, (window + KEPT_WINDOWS) * WINDOW_SECONDS, adds)
        if refresh:
            self._counter.keep_seen(key, refresh, int(seconds + SEEN_KEEP.total_seconds()))
        with self._lock:
            state.seen_total = max(state.seen_total, totals.requests)
            state.instances = max(state.instances, totals.instances)


def _retry_after(seconds: float, window: int) -> int:
    return max(1, math.ceil((window + 1) * WINDOW_SECONDS - seconds))
