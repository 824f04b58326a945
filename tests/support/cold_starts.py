"""Each function's handler module holds its own built dependencies (a ``ColdStart``: ``deps``, or
the one service, ``writer``, ``pruner``, ...);
tests that change the environment or the clock make the next invocations cold starts again.

On Lambda a changed environment means new instances; here it means ``reset_functions()``.
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType

import pytest

from continuity_core.kernel.clock import Clock
from continuity_core.kernel.config import get_config
from continuity_core.roots.cold_start import ColdStart
from infra import wiring
from infra.local.runtime import handler_module


def _cold_starts(import_all: bool) -> list[ColdStart[object]]:
    found: list[ColdStart[object]] = []
    for spec in wiring.FUNCTIONS:
        name = handler_module(spec)
        module: ModuleType | None = importlib.import_module(name) if import_all else sys.modules.get(name)
        found += [value for value in vars(module).values() if isinstance(value, ColdStart)] if module else []
    return found


def reset_functions() -> None:
    """Every function imported so far builds afresh on its next invocation (and the config
    tests read through ``get_config`` is read again)."""
    for deps in _cold_starts(import_all=False):
        deps.reset()
    get_config.cache_clear()


def use_clock(monkeypatch: pytest.MonkeyPatch, clock: Clock) -> None:
    """Every function builds with ``clock`` from its next invocation on, until the test ends."""
    for deps in _cold_starts(import_all=True):
        monkeypatch.setattr(deps, "clock", clock)
        deps.reset()
