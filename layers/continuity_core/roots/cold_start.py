"""A function's dependencies, built on its first invocation: once per cold start, never at import.

On Lambda a process runs one function, so the handler module's ``ColdStart`` is that function's one
build. Tests and the local stack run several functions in one process: each handler module holds
its own, so one function never uses what another built from its own environment, and
``reset`` (tests: a changed environment or clock) makes the next invocation build afresh.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import fields, is_dataclass
from typing import Generic, Protocol, TypeVar, runtime_checkable

from continuity_core.kernel.clock import Clock, utc_now
from continuity_core.kernel.once import Once

Deps = TypeVar("Deps")


@runtime_checkable
class Closable(Protocol):
    def close(self) -> None: ...


class ColdStart(Generic[Deps]):
    """``build(os.environ, clock)`` on the first call; the same instance on every later one."""

    def __init__(self, build: Callable[[Mapping[str, str], Clock], Deps], clock: Clock = utc_now) -> None:
        self.clock = clock
        # Concurrent first invocations build once.
        self._deps: Once[Deps] = Once(lambda: build(os.environ, self.clock))

    def __call__(self) -> Deps:
        return self._deps()

    def reset(self, clock: Clock | None = None) -> None:
        """Forget what was built (a part that holds memory, a search index, is closed); the next
        call builds again, with ``clock`` if given."""
        if clock is not None:
            self.clock = clock
        built = self._deps.forget()
        parts = [getattr(built, f.name) for f in fields(built)] if is_dataclass(built) else [built]
        for part in parts:
            if isinstance(part, Closable):
                part.close()
