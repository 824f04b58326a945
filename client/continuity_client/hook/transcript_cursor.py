"""Live transcripts, the client half: the new part of a session's transcript, and where it starts.

Per session, ``$CONTINUITY_HOME/transcripts/<session>.json`` keeps a cursor: how far the
transcript file was read (``pos``: a byte offset, or a message index for Gemini CLI's older
single-JSON file), how many readable characters that gave (``chars``, the offset of the next
delta), how many characters of the record at ``pos`` were already sent when a delta stopped
inside it (``partial``), where the last compaction started (``boundary``), the renderer's state
(which also holds the context size the harness last recorded, ``context_usage``), and a few
``marks`` (positions at record starts) from which the text can be regenerated.

- Each hook reads only the lines added since the cursor, renders them (``transcript.render``) and
  sends at most ``budget`` bytes of JSON-encoded text; the rest goes with the next delta. The
  harness's context figure comes from the same pass, as of the cursor: no extra read.
- The cursor advances when the delta is built, not when it is delivered: a spooled hook carries
  its delta and replays in order; a delta that never arrives leaves a gap, which the service
  answers with 409 and its stored length, and ``rewind`` moves the cursor back there by
  re-rendering from the nearest mark (the text is deterministic given the file).
- A file that is replaced or shrinks (a different path for the session, or the byte before
  ``pos`` is no longer a line end) starts a new segment at the current offset: the service's
  copy only grows, so nothing already sent is overwritten. Two changes of path are the same file:
  Codex compresses a rollout idle for seven days to ``<name>.jsonl.zst`` (and writes the plain
  file back before it appends again), and Gemini CLI migrates an older ``<name>.json`` session
  to ``<name>.jsonl`` when it resumes it, copying every message: those are read where the older
  file left off, never twice.

On the hook path: imports ``json``, ``os`` and (for the lock) ``fcntl``; a compressed rollout
also ``zstandard`` (or Python 3.14's ``compression.zstd``).
"""

from __future__ import annotations

import importlib
import io
import os
import sys

from continuity_client.hook import context_usage, transcript
from continuity_client.hook import fastjson as json
from continuity_client.hook.harness import CLAUDE_CODE, GEMINI
from continuity_client.hook.privatefiles import FileLock, safe_name, write_private

TYPE_CHECKING = False  # typing costs milliseconds at import; mypy reads this as True
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any, BinaryIO

CURSOR_DIR = "transcripts"
MAX_DELTA_BYTES = 256 * 1024  # JSON-encoded text in one request: a body stays far under 1 MB
MAX_READ_BYTES = 8 * 1024 * 1024  # of transcript per hook; a catch-up continues on the next hooks
MAX_LINE_BYTES = 64 * 1024 * 1024  # a longer line is skipped (a pasted image, not conversation)
MAX_MARKS = 16
MIN_SPLIT_BYTES = 1024  # a record is split only to fill at least this much of what is left
ZSTD_SUFFIX = ".zst"  # Codex's compressed rollouts: rollout-*.jsonl.zst
MAX_DECOMPRESSED_BYTES = 1 << 30


class Delta:
    """What one request carries: ``text`` from ``offset``; ``more`` when the file has more.

    ``context_tokens``: the context size the harness recorded last, up to the cursor (None when
    it recorded none since the segment's start or the last compaction)."""

    __slots__ = ("chars_since_compact", "compacted", "context_tokens", "more", "offset", "text")

    def __init__(
        self,
        offset: int,
        text: str,
        chars_since_compact: int,
        more: bool,
        context_tokens: int | None = None,
        compacted: bool = False,
    ) -> None:
        self.offset = offset
        self.text = text
        self.chars_since_compact = chars_since_compact
        self.more = more
        self.context_tokens = context_tokens
        self.compacted = compacted  # the text shows a compaction (the harness's own record of it)

    def body(self) -> dict[str, Any]:
        return {"offset": self.offset, "text": self.text}


def json_size(text: str) -> int:
    """Bytes of ``text`` inside a JSON body as the hook encodes it (ASCII escapes)."""
    return len(json.dumps(text)) - 2


def fit(text: str, limit: int) -> str:
    """The longest prefix of ``text`` whose JSON size is at most ``limit``."""
    if json_size(text) <= limit:
        return text
    size = limit
    while size > 0:
        prefix = text[:size]
        encoded = json_size(prefix)
        if encoded <= limit:
            return prefix
        size = min(size - 1, size * limit // encoded)
    return ""


def _copy(state: dict[str, Any]) -> dict[str, Any]:
    return json.loads(json.dumps(state)) if state else {}


# ---------------------------------------------------------------------------------------------
# the cursor file
# ---------------------------------------------------------------------------------------------


def cursor_path(home: str, session: str) -> str:
    return os.path.join(home, CURSOR_DIR, safe_name(session) + ".json")


def new_cursor(path: str, harness: str, chars: int = 0, boundary: int = 0) -> dict[str, Any]:
    return {
        "path": path,
        "harness": harness,
        "pos": 0,
        "chars": chars,
        "partial": 0,
        "boundary": boundary,
        "state": {},
        "marks": [[0, chars, boundary, {}]],
        "sig": None,
    }


def load(home: str, session: str) -> dict[str, Any] | None:
    try:
        with open(cursor_path(home, session), "rb") as handle:
            data = json.loads(handle.read())
    except (OSError, ValueError):
        return None
    required = ("pos", "chars", "partial", "boundary")
    if not isinstance(data, dict) or not all(isinstance(data.get(k), int) for k in required):
        return None
    if not isinstance(data.get("state"), dict) or not isinstance(data.get("marks"), list):
        return None
    return data


def save(home: str, session: str, cursor: dict[str, Any]) -> None:
    """Atomic replace. Not fsync'd: a lost cursor costs a resend, never a loss (the 409 path)."""
    write_private(cursor_path(home, session), json.dumps(cursor, separators=(",", ":")).encode("utf-8"))


def _session_lock(home: str, session: str) -> FileLock:
    """An exclusive flock per session: two hooks of one session never build deltas at once."""
    return FileLock(os.path.join(home, CURSOR_DIR, safe_name(session) + ".lock"))


# ---------------------------------------------------------------------------------------------
# reading records
# ---------------------------------------------------------------------------------------------


def resolve(path: str) -> tuple[str, str] | None:
    """(the cursor's name for the file, the file to read now), or None when neither exists.

    Codex compresses a rollout idle for seven days to ``<name>.jsonl.zst`` and writes the plain
    file back before it appends to it again: one transcript, whichever form it has now (the plain
    one first, when both exist for a moment). The decompressed bytes are the plain file's, so the
    cursor's positions hold across the change."""
    name = path[: -len(ZSTD_SUFFIX)] if path.endswith(".jsonl" + ZSTD_SUFFIX) else path
    candidates = (name, name + ZSTD_SUFFIX) if name.endswith(".jsonl") else (name,)
    for candidate in candidates:
        if os.path.isfile(candidate):
            return name, candidate
    return None


def _decompress(path: str) -> bytes:
    """A zstd file's content (all frames: Codex appends frames to a compressed rollout)."""
    try:
        zstd = importlib.import_module("compression.zstd")  # Python 3.14+
    except ImportError:
        zstd = None
    if zstd is not None:
        with zstd.open(path, "rb") as handle:
            return bytes(handle.read(MAX_DECOMPRESSED_BYTES))
    if sys.flags.no_site:  # the hook runs without ``site`` (``hook_main``): third-party packages need it
        import site

        site.main()
    try:
        zstandard = importlib.import_module("zstandard")
    except ImportError:
        raise OSError(
            f"{path} is compressed (zstd): install the zstandard package to read it "
            "(pip install 'continuity-client[zstd]')"
        ) from None
    with open(path, "rb") as raw:
        reader = zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True)
        chunks, size = [], 0
        while size < MAX_DECOMPRESSED_BYTES:
            chunk = reader.read(1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)


def open_transcript(path: str) -> BinaryIO:
    """The file's bytes, decompressed when it is a ``.zst`` (read whole: only cold rollouts are)."""
    if path.endswith(ZSTD_SUFFIX):
        return io.BytesIO(_decompress(path))
    return open(path, "rb")


def is_legacy_json(harness: str, path: str) -> bool:
    """Gemini CLI before its JSONL chat files wrote one JSON object, rewritten on every change."""
    return harness == GEMINI and path.endswith(".json")


def _signature(path: str) -> list[Any] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return [info.st_size, info.st_mtime_ns]


class _Records:
    """Records from ``pos`` on, as (record, position after it); stops at an incomplete last line."""

    def __init__(self, path: str, harness: str, pos: int, final: bool, limit: int = MAX_READ_BYTES) -> None:
        self.path, self.harness, self.pos, self.final, self.limit = path, harness, pos, final, limit
        self.replaced = False  # the file no longer continues where the cursor stopped
        self.exhausted = False  # everything complete was read
        self.read_bytes = 0

    def __iter__(self) -> Iterator[tuple[object, int]]:
        if is_legacy_json(self.harness, self.path):
            yield from self._legacy()
            return
        with open_transcript(self.path) as handle:
            if self.pos > 0:
                handle.seek(self.pos - 1)
                if handle.read(1) != b"\n":
                    self.replaced = True
                    return
            position = self.pos
            while True:
                if self.read_bytes >= self.limit:
                    return
                line = handle.readline(MAX_LINE_BYTES)
                if not line.endswith(b"\n"):
                    if len(line) < MAX_LINE_BYTES:  # a line still being written, or the end
                        self.exhausted = True
                        return
                    while line and not line.endswith(b"\n"):  # too long: skip it whole
                        line = handle.readline(MAX_LINE_BYTES)
                        position += len(line)
                    position += MAX_LINE_BYTES
                    continue
                position += len(line)
                self.read_bytes += len(line)
                try:
                    record = json.loads(line)
                except ValueError:
                    record = None  # a corrupt line gives no text
                yield record, position

    def _legacy(self) -> Iterator[tuple[object, int]]:
        with open(self.path, "rb") as handle:
            data = handle.read()
        self.read_bytes = len(data)
        try:
            messages = json.loads(data).get("messages")
        except (ValueError, AttributeError):
            messages = None
        if not isinstance(messages, list):
            self.exhausted = True
            return
        if len(messages) < self.pos:
            self.replaced = True
            return
        # The last message is still being written (its tool calls complete later) unless the
        # session ends: it is read once another message follows it.
        settled = len(messages) if self.final else len(messages) - 1
        for index in range(self.pos, settled):
            yield messages[index], index + 1
        self.exhausted = True


# ---------------------------------------------------------------------------------------------
# building a delta
# ---------------------------------------------------------------------------------------------


def _is_migration(cursor: dict[str, Any], path: str, harness: str) -> bool:
    """Gemini CLI resuming an older ``<name>.json`` session writes ``<name>.jsonl``."""
    old = cursor.get("path") or ""
    return harness == GEMINI == cursor.get("harness") and old.endswith(".json") and path == old + "l"


def _migrate(cursor: dict[str, Any], path: str) -> dict[str, Any]:
    """Read the migrated file from its start, skipping the messages the older file gave already
    (``pos`` counts them there): the rest of the conversation continues the same segment."""
    state = _copy(cursor["state"])
    state["skip"] = cursor["pos"]
    migrated = new_cursor(path, GEMINI, cursor["chars"], cursor["boundary"])
    migrated["state"] = state
    migrated["marks"] = [[0, cursor["chars"], cursor["boundary"], _copy(state)]]
    return migrated


def _restart(cursor: dict[str, Any], path: str, harness: str) -> dict[str, Any]:
    """A new segment at the current offset: the file was replaced (or a new path), so the
    agent's context starts again there too."""
    return new_cursor(path, harness, cursor["chars"], cursor["chars"])


def _remember_mark(cursor: dict[str, Any]) -> None:
    if cursor["partial"]:
        return
    mark = [cursor["pos"], cursor["chars"], cursor["boundary"], _copy(cursor["state"])]
    marks = cursor["marks"]
    if marks and marks[-1][0] == mark[0] and marks[-1][1] == mark[1]:
        return
    marks.append(mark)
    if len(marks) > MAX_MARKS:  # keep the segment's start: the rewind of last resort
        del marks[1 : len(marks) - MAX_MARKS + 1]


def _advance(cursor: dict[str, Any], path: str, budget: int, final: bool) -> tuple[str, bool, bool]:
    """Read and render from the cursor, at most ``budget`` JSON bytes; (text, more, compacted)."""
    harness = cursor["harness"]
    records = _Records(path, harness, cursor["pos"], final)
    taken: list[str] = []
    used = 0
    more = False
    compacted = False
    for record, after in records:
        state_before = _copy(cursor["state"])
        rendered = transcript.render(harness, record, cursor["state"])
        skip = cursor["partial"]
        text = rendered.text[skip:]
        size = json_size(text) if text else 0
        if used + size > budget:
            room = budget - used
            piece = fit(text, room) if (room >= MIN_SPLIT_BYTES or not taken) else ""
            cursor["state"] = state_before  # the record is not done: render it again next time
            if piece:
                if rendered.boundary and not skip:
                    cursor["boundary"] = cursor["chars"]
                    compacted = True
                taken.append(piece)
                cursor["chars"] += len(piece)
                cursor["partial"] = skip + len(piece)
            more = True
            break
        if rendered.boundary and not skip:
            cursor["boundary"] = cursor["chars"]
            compacted = True
        taken.append(text)
        used += size
        cursor["chars"] += len(text)
        cursor["partial"] = 0
        cursor["pos"] = after
    else:
        more = not records.exhausted and not records.replaced
    if records.replaced:
        cursor.update(_restart(cursor, cursor["path"], harness))
        return "".join(taken), True, compacted
    return "".join(taken), more, compacted


def next_delta(
    home: str, session: str, path: str, harness: str, budget: int = MAX_DELTA_BYTES, final: bool = False
) -> Delta | None:
    """The session's next delta (text may be empty), advancing the cursor; None without a file.

    ``final`` (session end) also reads the last message of Gemini CLI's older JSON file.
    """
    found = resolve(path) if path else None
    if found is None:
        return None
    name, actual = found
    with _session_lock(home, session):
        cursor = load(home, session)
        if cursor is None:
            cursor = new_cursor(name, harness)
        elif _is_migration(cursor, name, harness):
            cursor = _migrate(cursor, name)
        elif cursor.get("path") != name or cursor.get("harness") != harness:
            cursor = _restart(cursor, name, harness)
        offset = cursor["chars"]
        signature = _signature(actual) if is_legacy_json(harness, actual) else None
        compacted = False
        if signature is not None and signature == cursor.get("sig") and not final:
            text, more = "", False  # the rewritten file did not change: nothing to parse
        else:
            _remember_mark(cursor)
            text, more, compacted = _advance(cursor, actual, budget, final)
            if more and not text:  # a restart: read the new segment now
                text, more, compacted = _advance(cursor, actual, budget, final)
            cursor["sig"] = signature
        save(home, session, cursor)
        figure = context_usage.context_tokens(cursor["state"])
        return Delta(offset, text, cursor["chars"] - cursor["boundary"], more, figure, compacted)


def rewind(home: str, session: str, stored: int) -> bool:
    """Move the cursor back to ``stored`` characters (the service's length after a 409).

    Re-renders from the nearest mark at or before ``stored``. Where nothing before ``stored`` can
    be regenerated (an older segment), the current segment is taken to start at ``stored``.
    False when there is no cursor.
    """
    with _session_lock(home, session):
        cursor = load(home, session)
        if cursor is None:
            return False
        if stored >= cursor["chars"]:
            return True  # the service holds all we sent: nothing to resend
        path, harness = cursor.get("path") or "", cursor.get("harness") or CLAUDE_CODE
        usable = [m for m in cursor["marks"] if isinstance(m, list) and len(m) == 4 and m[1] <= stored]
        if not usable:
            restarted = new_cursor(path, harness, stored, min(cursor["boundary"], stored))
            save(home, session, restarted)
            return True
        pos, chars, boundary, state = usable[-1]
        cursor.update(pos=pos, chars=chars, partial=0, boundary=boundary, state=_copy(state))
        cursor["marks"] = [m for m in cursor["marks"] if isinstance(m, list) and m[1] <= stored]
        if chars < stored:
            _skip_to(cursor, path, stored)
        save(home, session, cursor)
        return True


def _skip_to(cursor: dict[str, Any], path: str, stored: int) -> None:
    harness = cursor["harness"]
    found = resolve(path) if path else None
    path = found[1] if found else path
    try:
        # No read cap: stopping short would leave the cursor pointing at text the service holds.
        records = _Records(path, harness, cursor["pos"], final=True, limit=1 << 62)
        for record, after in records:
            state_before = _copy(cursor["state"])
            rendered = transcript.render(harness, record, cursor["state"])
            if rendered.boundary:
                cursor["boundary"] = cursor["chars"]
            if cursor["chars"] + len(rendered.text) > stored:
                cursor["state"] = state_before
                cursor["partial"] = stored - cursor["chars"]
                cursor["chars"] = stored
                return
            cursor["chars"] += len(rendered.text)
            cursor["pos"] = after
            if cursor["chars"] == stored:
                return
    except OSError:
        pass
    # The file gives less than the service holds: new text goes after what it holds.
    cursor["chars"] = stored
    cursor["partial"] = 0


LINEAGE_LINES = 64  # a fork's or resume's first records name where it came from


def continued_from(path: str, session: str) -> str | None:
    """The session a Claude Code transcript continues, from its first records: a fork's lines carry
    ``forkedFrom.sessionId``; a resume under a new id copies the old lines with their own
    ``sessionId``. None when the file is not there yet or names only ``session``."""
    found = resolve(path) if path else None
    if found is None:
        return None
    try:
        with open_transcript(found[1]) as handle:
            for _ in range(LINEAGE_LINES):
                line = handle.readline(MAX_LINE_BYTES)
                if not line:
                    return None
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                if not isinstance(record, dict):
                    continue
                fork = record.get("forkedFrom")
                origin = fork.get("sessionId") if isinstance(fork, dict) else None
                if not isinstance(origin, str) or not origin:
                    origin = record.get("sessionId") if record.get("type") in ("user", "assistant") else None
                if isinstance(origin, str) and origin and origin != session:
                    return origin
                if origin == session:
                    return None  # the conversation's own lines start here
    except OSError:
        return None
    return None


def peek(home: str, session: str) -> dict[str, Any] | None:
    """The cursor as stored (for ``continuity status``)."""
    return load(home, session)
