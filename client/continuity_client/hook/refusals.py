"""Hooks the service will not take: what ``continuity doctor`` reports, and the cap on server errors.

Also the hooks that never reached the service: stdin that is not JSON, no login saved (``kind``).

A 4xx answer is final: the same hook would be refused the same way, so it is dropped at once and
noted here (``refused.jsonl``), besides the log. A 5xx is retried from the spool, but a hook the
service failed on ``MAX_SERVER_ERRORS`` times is dropped too: replay keeps a session's order, so
one hook the service cannot take would otherwise hold every later hook of its session for ever.
Counts live in ``server-errors.json`` (the newest ``MAX_COUNTED`` keys). Only the error paths
import this module; nothing here raises.
"""

from __future__ import annotations

import os
import time

from continuity_client.hook import fastjson as json
from continuity_client.hook.privatefiles import FileLock, open_private, write_private

TYPE_CHECKING = False  # typing costs milliseconds at import; mypy reads this as True
if TYPE_CHECKING:
    from typing import Any

REFUSED_FILE = "refused.jsonl"
SERVER_ERRORS_FILE = "server-errors.json"
LOCK_FILE = ".refusals.lock"
MAX_SERVER_ERRORS = 5
MAX_COUNTED = 64
MAX_REFUSED_BYTES = 32 * 1024  # then the older half is dropped


def counts_toward_cap(status: int) -> bool:
    """A 5xx that says the service failed on this request. Not 503: the service is busy (its
    storage throttles, a session is being written) and says when to come back; not a missing
    answer (status 0): nothing was learnt about the hook."""
    return status >= 500 and status != 503


def server_error(home: str, key: str) -> int:
    """Count one server error of hook ``key``; the count so far (0 when it cannot be kept)."""
    path = os.path.join(home, SERVER_ERRORS_FILE)
    try:
        with FileLock(os.path.join(home, LOCK_FILE)):
            counts = _read_counts(path)
            counts[key] = counts.pop(key, 0) + 1  # popped first: the newest key goes last
            kept = dict(list(counts.items())[-MAX_COUNTED:])
            write_private(path, json.dumps(kept).encode("utf-8"))
            return int(counts[key])
    except OSError:
        return 0


REFUSED = "refused"  # the service answered 4xx, or failed on it MAX_SERVER_ERRORS times
NOT_JSON = "not_json"  # the harness's stdin was not a JSON object: nothing to post
NO_LOGIN = "no_login"  # no URL or token saved: nothing posted


def note(home: str, key: str, reason: str, kind: str = REFUSED) -> None:
    """Note a hook dropped for good (``recent`` reads it back)."""
    line = json.dumps({"at": time.time(), "key": key, "reason": reason, "kind": kind}) + "\n"
    path = os.path.join(home, REFUSED_FILE)
    try:
        with FileLock(os.path.join(home, LOCK_FILE)):
            if _size(path) > MAX_REFUSED_BYTES:
                lines = _read(path).splitlines(keepends=True)
                write_private(path, b"".join(lines[len(lines) // 2 :]))
            fd = open_private(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
            try:
                os.write(fd, line.encode("utf-8", "replace"))
            finally:
                os.close(fd)
    except OSError:
        pass


def recent(home: str, since: float, kind: str | None = None) -> list[dict[str, Any]]:
    """The hooks dropped for good since ``since`` (epoch seconds), oldest first; of ``kind`` only
    when given (a note without one is ``REFUSED``)."""
    found = []
    for line in _read(os.path.join(home, REFUSED_FILE)).splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if not isinstance(entry, dict) or not isinstance(entry.get("at"), (int, float)):
            continue
        if entry["at"] >= since and (kind is None or entry.get("kind", REFUSED) == kind):
            found.append(entry)
    return found


def _read_counts(path: str) -> dict[str, Any]:
    try:
        counts = json.loads(_read(path) or b"{}")
    except ValueError:
        return {}
    return counts if isinstance(counts, dict) else {}


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError:
        return b""


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0
