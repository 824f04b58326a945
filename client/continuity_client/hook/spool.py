"""Durable local state of the hook: sequence numbers, the offline spool and the back-off mark.

Layout under ``$CONTINUITY_HOME``:

- ``seq/<session>``: one byte appended per hook; the file offset after our append is the hook's
  sequence number. ``O_APPEND`` makes the append and the offset one atomic step, so concurrent
  hooks of one session never share a number, without a lock or a read-modify-write.
- ``spool/<session>.jsonl``: hooks not delivered yet, one JSON record a line, appended and
  fsync'd, replayed oldest first: those the service did not take, and those handed to a
  background delivery (``run``: the hook exits once its record is here). One file per session
  keeps a session's order without making sessions wait on each other; ``spool/.lock`` (flock)
  guards the short file mutations.
- ``spool/<session>.deliver``: the session's delivery lock (flock, ``claim``), held by whoever
  sends the session's spooled records, for the whole send: two deliveries of one session never
  interleave, so the service sees its hooks in the spool's order.
- ``down-until``: epoch seconds until which the service is presumed down, so hooks spool at
  once instead of each waiting out a timeout against a dead or hung service.
- ``origin``: this client's random id, made on first use, in every idempotency key
  (``hook_key``). Sequence numbers restart on another machine or after a reinstall wiped this
  folder, and a session key can outlive both (OpenClaw's ``agent:main:main`` is the same on every
  machine): without the origin, such a hook's key would repeat one the service already holds,
  and the service would drop it as a replay.

Replays may repeat a hook (a crash between delivery and removal): the idempotency key in each
record makes the server count it once.
"""

from __future__ import annotations

import os
import time

from continuity_client.hook import fastjson as json
from continuity_client.hook.privatefiles import FileLock, open_private, safe_name

TYPE_CHECKING = False  # typing costs milliseconds at import; mypy reads this as True
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any

SPOOL_DIR = "spool"
SEQ_DIR = "seq"
DOWN_FILE = "down-until"
ORIGIN_FILE = "origin"
LOCK_FILE = ".lock"
SUFFIX = ".jsonl"
DELIVER_SUFFIX = ".deliver"
CLAIM_POLL_S = 0.005

# replay() outcomes
DRAINED, FAILED, BUDGET = "drained", "failed", "budget"
# what a sender reports for one record
SENT, DROPPED, RETRY = "sent", "dropped", "retry"
GAP = "gap"  # a live post's 409 with the service's stored length (``delivery``)


def _open_append(path: str) -> int:
    return open_private(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)


def hook_key(home: str, session: str, event: str) -> str:
    """The idempotency key of a new hook: ``{session}:{event}:{origin}.{seq}``."""
    return f"{session or '-'}:{event}:{origin(home)}.{next_seq(home, session)}"


def origin(home: str) -> str:
    """This client's id (16 hex digits), made once. It appears whole or not at all (a hard link of a
    written file), so concurrent first hooks all read the one that won."""
    path = os.path.join(home, ORIGIN_FILE)
    found = _read_origin(path)
    if found:
        return found
    made = os.urandom(8).hex()
    temporary = f"{path}.{os.getpid()}.tmp"
    fd = open_private(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    try:
        os.write(fd, made.encode("ascii"))
    finally:
        os.close(fd)
    try:
        os.link(temporary, path)
    except FileExistsError:  # another hook made it first: its id is the one
        pass
    finally:
        os.unlink(temporary)
    return _read_origin(path) or made


def _read_origin(path: str) -> str:
    try:
        with open(path, "rb") as handle:
            return handle.read(64).decode("ascii", "replace").strip()
    except OSError:
        return ""


def next_seq(home: str, session: str) -> int:
    """The next sequence number of the session (1, 2, 3, ...), persisted on disk."""
    fd = _open_append(os.path.join(home, SEQ_DIR, safe_name(session)))
    try:
        os.write(fd, b".")
        return os.lseek(fd, 0, os.SEEK_CUR)
    finally:
        os.close(fd)


# ---------------------------------------------------------------------------------------------
# back-off mark
# ---------------------------------------------------------------------------------------------


def down_until(home: str) -> float:
    try:
        with open(os.path.join(home, DOWN_FILE), "rb") as handle:
            return float(handle.read().strip() or 0)
    except (OSError, ValueError):
        return 0.0


def mark_down(home: str, seconds: float) -> None:
    if seconds <= 0:
        return
    path = os.path.join(home, DOWN_FILE)
    try:
        os.makedirs(home, mode=0o700, exist_ok=True)
        with open(path + ".tmp", "w") as handle:
            handle.write(f"{time.time() + seconds:.3f}")
        os.replace(path + ".tmp", path)
    except OSError:
        pass


def mark_up(home: str) -> None:
    try:  # noqa: SIM105 - contextlib would be one more import on the hook path
        os.unlink(os.path.join(home, DOWN_FILE))
    except OSError:
        pass


# ---------------------------------------------------------------------------------------------
# spool
# ---------------------------------------------------------------------------------------------


def spool_dir(home: str) -> str:
    return os.path.join(home, SPOOL_DIR)


def spool_file(home: str, session: str) -> str:
    return os.path.join(home, SPOOL_DIR, safe_name(session) + SUFFIX)


def has_pending(path: str) -> bool:
    try:
        return os.path.getsize(path) > 0
    except OSError:
        return False


def pending_files(home: str) -> list[str]:
    """Spool files with records, least recently written first."""
    found: list[tuple[float, str]] = []
    try:
        entries = list(os.scandir(spool_dir(home)))
    except OSError:
        return []
    for entry in entries:
        if entry.name.endswith(SUFFIX):
            try:
                info = entry.stat()
            except OSError:
                continue
            if info.st_size > 0:
                found.append((info.st_mtime, entry.path))
    return [path for _, path in sorted(found)]


def encode(record: dict[str, Any]) -> bytes:
    return (json.dumps(record, separators=(",", ":")) + "\n").encode("utf-8")


def _decode(line: bytes) -> dict[str, Any] | None:
    try:
        record = json.loads(line)
    except ValueError:
        return None
    if not isinstance(record, dict) or not isinstance(record.get("key"), str):
        return None
    if not isinstance(record.get("event"), str) or not isinstance(record.get("body"), dict):
        return None
    return record


def _fsync_dir(directory: str) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _rewrite(path: str, lines: Iterable[bytes]) -> None:
    data = b"".join(lines)
    if not data:
        try:  # noqa: SIM105 - contextlib would be one more import on the hook path
            os.unlink(path)
        except FileNotFoundError:
            pass
        return
    temporary = path + ".tmp"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(temporary, path)


def _read_lines(path: str) -> list[bytes]:
    try:
        with open(path, "rb") as handle:
            return [line if line.endswith(b"\n") else line + b"\n" for line in handle.read().splitlines()]
    except OSError:
        return []


def append(home: str, session: str, record: dict[str, Any], max_bytes: int) -> list[dict[str, Any]]:
    """Append a record durably (write + fsync); return the records dropped to keep the cap."""
    directory = spool_dir(home)
    path = spool_file(home, session)
    line = encode(record)
    with FileLock(os.path.join(directory, LOCK_FILE)):
        created = not os.path.exists(path)
        fd = _open_append(path)
        try:
            os.write(fd, line)
            os.fsync(fd)
        finally:
            os.close(fd)
        if created:
            _fsync_dir(directory)
        return _enforce_cap(directory, max_bytes)


def _enforce_cap(directory: str, max_bytes: int) -> list[dict[str, Any]]:
    """Drop the oldest records (by hook time, across sessions) until the spool fits ``max_bytes``."""
    sizes: dict[str, int] = {}
    for entry in os.scandir(directory):
        if entry.name.endswith(SUFFIX):
            sizes[entry.path] = entry.stat().st_size
    total = sum(sizes.values())
    if total <= max_bytes:
        return []
    queues = {path: _read_lines(path) for path in sizes}
    total = sum(len(line) for lines in queues.values() for line in lines)
    dropped: list[dict[str, Any]] = []
    changed: set[str] = set()

    def first_time(path: str) -> float:
        record = _decode(queues[path][0])
        at = record.get("at") if record else None
        return float(at) if isinstance(at, (int, float)) else float("-inf")  # corrupt lines go first

    while total > max_bytes:
        candidates = [path for path, lines in queues.items() if lines]
        if not candidates:
            break
        oldest = min(candidates, key=first_time)
        line = queues[oldest].pop(0)
        total -= len(line)
        changed.add(oldest)
        dropped.append(_decode(line) or {"key": "<corrupt>", "event": "?"})
    for path in changed:
        _rewrite(path, queues[path])
    return dropped


def claim(path: str, stop_at: float) -> int:
    """Take the delivery lock of a spool file, waiting until ``stop_at`` (monotonic) at most: the
    lock's file descriptor (``release`` it), or -1 when someone else kept it that long."""
    lock = (path[: -len(SUFFIX)] if path.endswith(SUFFIX) else path) + DELIVER_SUFFIX
    fd = open_private(lock, os.O_RDWR | os.O_CREAT)
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return fd
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except OSError:
            if time.monotonic() >= stop_at:
                os.close(fd)
                return -1
            time.sleep(CLAIM_POLL_S)


def release(fd: int) -> None:
    if fd >= 0:
        os.close(fd)  # closing releases the flock


def find(path: str, key: str) -> dict[str, Any] | None:
    """The first record of a spool file with ``key``, or None."""
    return next((record for record in read_records(path)[0] if record["key"] == key), None)


def read_records(path: str) -> tuple[list[dict[str, Any]], int]:
    """(records in order, number of corrupt lines) of one spool file."""
    with FileLock(os.path.join(os.path.dirname(path), LOCK_FILE)):
        lines = _read_lines(path)
    records: list[dict[str, Any]] = []
    corrupt = 0
    for line in lines:
        record = _decode(line)
        if record is None:
            corrupt += 1
        else:
            records.append(record)
    return records, corrupt


def remove(path: str, keys: set[str]) -> None:
    """Remove delivered records (and corrupt lines) from a spool file, keeping the rest in order."""
    with FileLock(os.path.join(os.path.dirname(path), LOCK_FILE)):
        kept = []
        for line in _read_lines(path):
            record = _decode(line)
            if record is not None and record["key"] not in keys:
                kept.append(line)
        _rewrite(path, kept)


def replay(
    paths: Iterable[str],
    stop_at: float,
    send: Callable[[dict[str, Any]], str],
    on_corrupt: Callable[[str, int], None] | None = None,
    held: Iterable[str] = (),
    until_key: str | None = None,
) -> tuple[str, int]:
    """Send spooled records oldest first until done, a failure, or ``stop_at`` (monotonic).

    Each file is sent under its delivery lock (``claim``; ``held``: files whose lock the caller
    holds already); a lock not free by ``stop_at`` ends the replay as BUDGET. ``until_key``: stop
    before the record with this key (what precedes a hook goes first). No record is started after
    ``stop_at``; one in flight may finish later (``send`` owns its own deadline). ``send(record)``
    answers SENT, DROPPED (a 4xx: discarded) or RETRY.
    Returns (DRAINED | FAILED | BUDGET, number of records sent or dropped).
    """
    handled = 0
    held = set(held)
    for path in paths:
        lock = -1 if path in held else claim(path, stop_at)
        if lock < 0 and path not in held:
            return BUDGET, handled
        try:
            status, done = _replay_file(path, stop_at, send, on_corrupt, until_key)
        finally:
            release(lock)
        handled += done
        if status:
            return status, handled
    return DRAINED, handled


def _replay_file(
    path: str,
    stop_at: float,
    send: Callable[[dict[str, Any]], str],
    on_corrupt: Callable[[str, int], None] | None,
    until_key: str | None,
) -> tuple[str, int]:
    """('' when drained | FAILED | BUDGET, records sent or dropped) of one file, its lock held."""
    records, corrupt = read_records(path)
    if corrupt and on_corrupt is not None:
        on_corrupt(path, corrupt)
    done: set[str] = set()
    status = ""
    for record in records:
        if record["key"] == until_key:
            break
        if record["key"] in done:
            continue
        if time.monotonic() >= stop_at:
            status = BUDGET
            break
        if send(record) == RETRY:
            status = FAILED
            break
        done.add(record["key"])
    if done or corrupt:
        remove(path, done)
    return status, len(done)


def summary(home: str) -> dict[str, Any]:
    """Counts for ``doctor``: pending records, sessions, oldest hook time, bytes."""
    records = 0
    oldest: float | None = None
    size = 0
    files = pending_files(home)
    for path in files:
        for line in _read_lines(path):
            size += len(line)
            record = _decode(line)
            records += 1
            at = record.get("at") if record else None
            if isinstance(at, (int, float)) and (oldest is None or at < oldest):
                oldest = float(at)
    return {"records": records, "sessions": len(files), "oldest": oldest, "bytes": size}
