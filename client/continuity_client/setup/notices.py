"""What a person should hear at their next command: hooks that found no login and were dropped.

A hook never prints to the person (the harness shows its output to the agent, or nothing), so the
hooks that ran while no login was saved are noted (``refusals``) and told once, on stderr, by the
next interactive command; ``continuity doctor`` lists them too.
"""

from __future__ import annotations

import contextlib
import os

from continuity_client.hook import locallog, refusals
from continuity_client.hook.privatefiles import write_private

TOLD_FILE = "no-login-told"  # when the last no-login note was told (epoch seconds)


def missed_hooks(home: str) -> str | None:
    """The notice for no-login hooks not told yet (and remember them as told); None when none."""
    path = os.path.join(home, TOLD_FILE)
    try:
        with open(path, encoding="utf-8") as handle:
            told = float(handle.read().strip() or 0)
    except (OSError, ValueError):
        told = 0.0
    found = [n for n in refusals.recent(home, told, refusals.NO_LOGIN) if n["at"] > told]
    if not found:
        return None
    with contextlib.suppress(OSError):
        write_private(path, repr(found[-1]["at"]).encode())
    first, last = locallog.utc_stamp(found[0]["at"]), locallog.utc_stamp(found[-1]["at"])
    return (
        f"continuity: {len(found)} hook(s) found no login between {first} and {last}, and were dropped: "
        "`continuity login --url URL --token TOKEN` (then `continuity doctor`)"
    )
