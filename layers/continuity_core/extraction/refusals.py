"""A tool call the user turned down, and what they said when they did.

Claude Code answers a refused call with a tool result ("The user doesn't want to proceed with this
tool use. … The user provided the following reason for the rejection: use pnpm"). The reason is
the user's own words, usually a rule ("use pnpm", "don't touch the lockfile"); the refused command
never ran, so it says nothing of how the project works.
"""

from __future__ import annotations

import re

_REFUSED = "doesn't want to proceed with this tool use"
_REASON = re.compile(r"provided the following reason for the rejection:\s*(.+)", re.DOTALL)
REASON_CHARS = 300


def refused(output: str) -> bool:
    return _REFUSED in output[:300]


def refusal_reason(output: str) -> str | None:
    """What the user typed when turning the call down (short, and not system text)."""
    found = _REASON.search(output)
    reason = found.group(1).strip() if found else ""
    return reason if reason and len(reason) <= REASON_CHARS and not reason.startswith("<") else None
