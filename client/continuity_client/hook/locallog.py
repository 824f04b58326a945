"""The client's local log: one line per failure or notable event, in ``$CONTINUITY_HOME/client.log``.

A hook must never write to stderr or stdout on failure (stdout is parsed by the harness), so
this file is where "why did nothing happen?" is answered. Writing it never raises.
"""

from __future__ import annotations

import os
import time

LOG_FILE = "client.log"
MAX_LOG_BYTES = 1024 * 1024  # then rotated once to client.log.1


def log_path(home: str) -> str:
    return os.path.join(home, LOG_FILE)


def utc_stamp(epoch: float | None = None) -> str:
    seconds = time.time() if epoch is None else epoch
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def write(home: str, message: str, event: str = "-", session: str = "-", level: str = "WARN") -> None:
    text = " ".join(str(message).split())
    line = f"{utc_stamp()} {level} event={event or '-'} session={session or '-'} {text}\n"
    path = log_path(home)
    try:
        try:
            if os.path.getsize(path) > MAX_LOG_BYTES:
                os.replace(path, path + ".1")
        except OSError:
            pass
        try:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        except FileNotFoundError:
            os.makedirs(home, mode=0o700, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line.encode("utf-8", "replace"))
        finally:
            os.close(fd)
    except Exception:  # the log is best effort by design
        pass


def tail(home: str, lines: int = 5) -> list[str]:
    try:
        with open(log_path(home), "rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - 16384))
            text = handle.read().decode("utf-8", "replace")
    except OSError:
        return []
    return [line for line in text.splitlines() if line][-lines:]
