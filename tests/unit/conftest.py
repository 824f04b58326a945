"""The core's services run here on in-memory stores (``tests/fakes``), under a clock the test moves."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tests.fakes.stores import Stores, in_memory_stores
from tests.support import unit_guard
from tests.support.clock import Clock

T0 = datetime(2026, 11, 22, 9, 0, tzinfo=UTC)


@pytest.fixture
def clock() -> Clock:
    return Clock(T0)


@pytest.fixture
def stores(clock: Clock) -> Stores:
    """Every store on one in-memory table, reading ``clock`` for expiry."""
    return in_memory_stores(clock)


@pytest.fixture(autouse=True)
def _unit_guard(monkeypatch: pytest.MonkeyPatch) -> None:
    """No sockets, processes, sleeps or AWS calls here (tests/support/unit_guard.py)."""
    unit_guard.install(monkeypatch)
