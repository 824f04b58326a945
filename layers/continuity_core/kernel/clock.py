"""What reads the time takes a ``Clock`` (the handlers pass the real one, tests a fixed one)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    """The real clock."""
    return datetime.now(UTC)
