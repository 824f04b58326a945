"""What reads the time takes a ``Clock`` (the handlers pass the real one, tests a fixed one)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

Clock = Callable[[], datetime]
