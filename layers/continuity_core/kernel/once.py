"""A part built on its first use, once: what only some requests need stays off the cold start."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

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
