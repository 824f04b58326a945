"""Moving time in tests: an injected clock for every service, and the pruner run at that time."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest


class Clock:
    """A clock tests set (never sleep): ``clock.now += timedelta(days=8)``."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def install_clock(monkeypatch: pytest.MonkeyPatch, start: datetime) -> Clock:
    """Every function builds its services with this clock from its next invocation on."""
    from tests.support.cold_starts import use_clock

    clock = Clock(start)
    use_clock(monkeypatch, clock)
    return clock


def run_pruner(clock: Clock) -> dict[str, Any]:
    """One scheduled run of the pruner handler at the clock's time; its report."""
    from infra import wiring
    from infra.local.events import scheduled_event
    from tests.support.lambda_events import invoke

    event = scheduled_event("continuity-test-pruner-schedule", now=clock.now)
    report: dict[str, Any] = invoke(wiring.PRUNER.key, event)
    return report
