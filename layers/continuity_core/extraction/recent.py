"""Small list rules shared by digests and checkpoints."""

from __future__ import annotations


def distinct_recent(items: list[str], limit: int) -> list[str]:
    """The last ``limit`` distinct items, oldest first (a repeated item counts at its latest place)."""
    latest: dict[str, None] = {}
    for item in items:
        latest.pop(item, None)
        latest[item] = None
    return list(latest)[-limit:]
