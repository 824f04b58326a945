"""The idle sweep through its handler on moto, under its declared access: a session whose end never
came gets its final checkpoint, racing prompts are never lost, a second run writes nothing.

Time moves with an injected clock (every service reads it), never by sleeping.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from infra import wiring
from infra.local.events import scheduled_event
from tests.integration.conftest import prompt
from tests.support.api import InProcessService
from tests.support.clock import Clock, install_clock
from tests.support.lambda_events import invoke

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


@pytest.fixture
def clock(service: InProcessService, monkeypatch: pytest.MonkeyPatch) -> Clock:
    return install_clock(monkeypatch, T0)


def sweep(clock: Clock) -> dict[str, Any]:
    report: dict[str, Any] = invoke(
        wiring.IDLE_SWEEP.key, scheduled_event("continuity-test-idle-sweep-schedule", now=clock.now)
    )
    return report


def send(service: InProcessService, clock: Clock, session: str, numbers: range) -> None:
    for n in numbers:
        clock.now += timedelta(seconds=20)
        assert service.hook("user-prompt-submit", prompt(session, n))[0] == 200


def summary(service: InProcessService, session: str) -> list[tuple[str, int, int]]:
    return [(c["trigger"], c["first_prompt"], c["last_prompt"]) for c in service.session_checkpoints(session)]


def test_a_session_without_an_end_gets_an_idle_checkpoint_naming_its_last_prompts(
    service: InProcessService, clock: Clock
) -> None:
    # Given 13 prompts (one periodic checkpoint of 10), then no hook: the harness never sent its end
    send(service, clock, "gone", range(1, 11))
    service.drain_queue()
    send(service, clock, "gone", range(11, 14))
    # When 31 minutes pass and the sweep runs, twice
    clock.now += timedelta(minutes=31)
    first, second = sweep(clock), sweep(clock)
    # Then the last 3 prompts are in an idle checkpoint, and the second run found nothing due
    checkpoints = service.session_checkpoints("gone")
    assert summary(service, "gone") == [("periodic", 1, 10), ("idle", 11, 13)]
    assert "step 13: refactor" in checkpoints[-1]["digest"]
    assert first["closed"] == 1 and second["looked_at"] == 0


def test_an_active_session_is_not_closed_and_one_that_ended_is_never_looked_at(
    service: InProcessService, clock: Clock
) -> None:
    send(service, clock, "active", range(1, 3))
    send(service, clock, "ended", range(1, 3))
    status, _ = service.hook("session-end", {"session_id": "ended", "cwd": "/work/app", "reason": "exit"})
    clock.now += timedelta(minutes=25)
    send(service, clock, "active", range(3, 4))  # first pending 25 min ago, last just now
    clock.now += timedelta(minutes=10)

    report = sweep(clock)

    assert status == 200
    assert (report["closed"], report["still_active"]) == (0, 1)
    assert summary(service, "active") == []
    assert summary(service, "ended") == [("session_end", 1, 2)]
    clock.now += timedelta(minutes=25)
    assert sweep(clock)["closed"] == 1
    assert summary(service, "active") == [("idle", 1, 3)]
