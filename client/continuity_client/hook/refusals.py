"""Hooks the service will not take: what ``continuity doctor`` reports, and the cap on server errors.

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


def note(home: str, key: str, reason: str) -> None:
    """Note a hook dropped for good (``recent`` reads it back)."""
    line = json.dumps({"at": time.time(), "key": key, "reason": reason}) + "\n"
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


def recent(home: str, since: float) -> list[dict]:
    """The hooks dropped for good since ``since`` (epoch seconds), oldest first."""
    found = []
    for line in _read(os.path.join(home, REFUSED_FILE)).splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and isinstance(entry.get("at"), (int, float)) and entry["at"] >= since:
            found.append(entry)
    return found


def _read_counts(path: str) -> dict:
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
