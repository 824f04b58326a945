"""A part built on its first use, once: what only some requests need stays off the cold start."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar, cast

Built = TypeVar("Built")


class Once(Generic[Built]):
    """``build()`` on the first call; the same value on every later one."""

    def __init__(self, build: Callable[[], Built]) -> None:
        self._build = build
        self._built: Built | None = None
        self._lock = threading.Lock()  # concurrent first calls build once

    def __call__(self) -> Built:
        built = self._built
        if built is None:
            with self._lock:
                if self._built is None:
                    self._built = self._build()
                built = self._built
        return built

    def forget(self) -> Built | None:
        """What was built, if anything; the next call builds again."""
        with self._lock:
            built, self._built = self._built, None
        return built


class _OnFirstUse:
    def __init__(self, build: Callable[[], object]) -> None:
        self._built = Once(build)

    def __getattr__(self, name: str) -> object:
        return getattr(self._built(), name)


def on_first_use(build: Callable[[], Built]) -> Built:
    """What ``build()`` returns, built when one of its attributes is first used (a method called).

    For a composition root: a port only some requests use is wired like any other, and a cold start
    does not pay for building it (nor for importing its module). Typed as what it stands for; it
    is not an instance of it (no ``isinstance``), only its attributes are."""
    return cast(Built, _OnFirstUse(build))
