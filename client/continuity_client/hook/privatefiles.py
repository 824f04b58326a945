"""Private files under CONTINUITY_HOME: safe names, atomic writes (mode 0600) and exclusive flocks."""

from __future__ import annotations

import os


def safe_name(session: str) -> str:
    """A file name for a session id (ids come from the harness: anything may be in them)."""
    cleaned = "".join(c if c.isalnum() or c in "-_." else "_" for c in session)[:120]
    if not cleaned:
        return "_nosession"
    return "_" + cleaned if cleaned.startswith(".") else cleaned


def open_private(path: str, flags: int) -> int:
    """Open ``path`` with mode 0600, creating its folder (0700) on first use."""
    try:
        return os.open(path, flags, 0o600)
    except FileNotFoundError:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        return os.open(path, flags, 0o600)


def write_private(path: str, data: bytes) -> None:
    """Atomic replace through a per-process temporary file. Not fsync'd: callers that need it say so."""
    temporary = f"{path}.{os.getpid()}.tmp"
    fd = open_private(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)
    os.replace(temporary, path)


class FileLock:
    """An exclusive flock on ``path`` for the ``with`` block (no-op where fcntl is missing)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.fd = -1

    def __enter__(self) -> FileLock:
        self.fd = open_private(self.path, os.O_RDWR | os.O_CREAT)
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX
            return self
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.fd >= 0:
            os.close(self.fd)  # closing releases the flock
            self.fd = -1
