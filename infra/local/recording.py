"""Persistence across restarts: moto's request recording, compacted, replayed at the next start.

moto records every request it serves (``MOTO_ENABLE_RECORDING``) as one JSON line in
``<data-dir>/moto-recording.log``; at start the local stack replays the file through
``POST /moto-api/recorder/replay-recording`` before provisioning, so tables, items and queues come
back as they were. Replaying every request would be slow and wrong (receives would redeliver, old
receipt handles would not delete), so the file is compacted before each start and after each stop:

- requests that change nothing are dropped: reads (Get*/List*/Describe*/Query/Scan...) and the SQS
  consumer calls (ReceiveMessage, DeleteMessage*, ChangeMessageVisibility*);
- every state-changing request is kept, in order (DynamoDB writes replay to the same result because
  they carry their own values and run in the same order);
- ``SendMessage``/``SendMessageBatch`` are kept only if the message may still be pending. A poller
  that finds its queue empty (nothing visible, in flight or delayed, after a 1 s long poll) records
  the recording's size it measured before that poll in ``moto-recording.drained.json``; sends before
  that offset were consumed and are dropped. Sends after it are replayed, so a flush that was still
  delayed or failing at shutdown is delivered again after the restart (the writer is idempotent on
  the flush token). Messages already moved to a DLQ are not restored.

The file is appended to by moto's server threads; a write of more than 8 KiB can land between
another entry and its newline, so entries are read as a stream of JSON values, not one per line.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

log = logging.getLogger(__name__)

RECORDING_FILE = "moto-recording.log"
DRAIN_MARKS_FILE = "moto-recording.drained.json"

_READ_PREFIXES = ("Get", "List", "Describe", "BatchGet", "TransactGet")
_READ_ACTIONS = frozenset({"Query", "Scan"})
_SQS_CONSUMER_ACTIONS = frozenset(
    {
        "ReceiveMessage",
        "DeleteMessage",
        "DeleteMessageBatch",
        "ChangeMessageVisibility",
        "ChangeMessageVisibilityBatch",
    }
)
_SQS_SENDS = frozenset({"SendMessage", "SendMessageBatch"})


@dataclass(frozen=True)
class Entry:
    offset: int  # byte offset of the entry in the recording
    data: dict[str, Any]
    text: str


@dataclass(frozen=True)
class Compaction:
    kept: int
    dropped_reads: int
    dropped_sends: int
    unreadable: int


def read_entries(path: Path) -> tuple[list[Entry], int]:
    """The recorded requests in order, and the number of unreadable fragments (logged, skipped)."""
    if not path.exists():
        return [], 0
    # moto writes json.dumps output (ASCII only), so one byte is one character: offsets match sizes.
    text = path.read_bytes().decode("ascii", errors="replace")
    decoder = json.JSONDecoder()
    entries: list[Entry] = []
    unreadable = 0
    position = 0
    while True:
        while position < len(text) and text[position] in " \t\r\n":
            position += 1
        if position >= len(text):
            return entries, unreadable
        try:
            value, end = decoder.raw_decode(text, position)
        except json.JSONDecodeError:
            newline = text.find("\n", position)
            end = len(text) if newline < 0 else newline + 1
            log.warning("recording: skipped an unreadable fragment at byte %d of %s", position, path)
            unreadable += 1
            position = end
            continue
        if isinstance(value, dict):
            entries.append(Entry(position, value, text[position:end]))
        position = end


def request_action(entry: Mapping[str, Any]) -> tuple[str, str] | None:
    """(service, action) of a recorded request: from X-Amz-Target, or a query-protocol Action."""
    headers = {str(k).lower(): str(v) for k, v in (entry.get("headers") or {}).items()}
    target = headers.get("x-amz-target")
    if target and "." in target:
        prefix, action = target.rsplit(".", 1)
        service = "sqs" if prefix == "AmazonSQS" else prefix.split("_")[0].lower()
        return service, action
    query = parse_qs(urlparse(str(entry.get("url", ""))).query)
    body = request_body(entry)
    if body and not body.lstrip().startswith("{"):
        query.update(parse_qs(body))
    if query.get("Action"):
        service = _credential_service(headers.get("authorization", "")) or "query"
        return service, query["Action"][0]
    return None


def request_body(entry: Mapping[str, Any]) -> str:
    """The recorded body as text (moto base64-encodes bodies it read as bytes)."""
    body = entry.get("body")
    if not isinstance(body, str):
        return ""
    if entry.get("body_encoded"):
        try:
            return base64.b64decode(body).decode("utf-8", errors="replace")
        except ValueError:
            return ""
    return body


def sent_queue_name(entry: Mapping[str, Any]) -> str | None:
    """The queue a recorded SendMessage/SendMessageBatch went to."""
    url: str | None = None
    body = request_body(entry)
    if body:
        try:
            url = json.loads(body).get("QueueUrl")
        except (ValueError, AttributeError):
            url = _first(parse_qs(body), "QueueUrl")
    if not url:
        url = _first(parse_qs(urlparse(str(entry.get("url", ""))).query), "QueueUrl")
    if not url:
        return None
    return url.rstrip("/").rsplit("/", 1)[-1]


def is_read(entry: Mapping[str, Any]) -> bool:
    action = request_action(entry)
    if action is None:
        return str(entry.get("method", "")).upper() in ("GET", "HEAD", "OPTIONS")
    service, name = action
    if name in _READ_ACTIONS or name.startswith(_READ_PREFIXES):
        return True
    return service == "sqs" and name in _SQS_CONSUMER_ACTIONS


def compact(path: Path, drained: Mapping[str, int]) -> Compaction:
    """Rewrite the recording with only the requests a replay needs (see the module docstring).

    Only call it while nothing records to ``path``.
    """
    entries, unreadable = read_entries(path)
    kept: list[str] = []
    reads = sends = 0
    for entry in entries:
        if is_read(entry.data):
            reads += 1
            continue
        action = request_action(entry.data)
        if action and action[0] == "sqs" and action[1] in _SQS_SENDS:
            queue = sent_queue_name(entry.data)
            if queue is not None and entry.offset < drained.get(queue, 0):
                sends += 1
                continue
        kept.append(entry.text)
    if path.exists():
        tmp = path.with_suffix(path.suffix + ".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # the prompts in it are private
        with os.fdopen(fd, "w", encoding="ascii") as file:
            file.write("".join(line + "\n" for line in kept))
        os.replace(tmp, path)
    return Compaction(len(kept), reads, sends, unreadable)


def wipe(data_dir: Path) -> None:
    """Delete the recorded data of ``data_dir`` (other files, such as the token, stay)."""
    for name in (RECORDING_FILE, DRAIN_MARKS_FILE, f"{RECORDING_FILE}.tmp", f"{DRAIN_MARKS_FILE}.tmp"):
        (data_dir / name).unlink(missing_ok=True)


class DrainMarks:
    """Per queue, the recording offset before which every send was consumed (see ``compact``)."""

    def __init__(self, recording: Path, marks_file: Path) -> None:
        self._recording = recording
        self._file = marks_file
        self._lock = threading.Lock()
        self._marks = self._read()

    @property
    def marks(self) -> dict[str, int]:
        with self._lock:
            return dict(self._marks)

    def mark(self) -> int:
        try:
            return self._recording.stat().st_size
        except FileNotFoundError:
            return 0

    def drained(self, queue_name: str, mark: int) -> None:
        with self._lock:
            if mark <= self._marks.get(queue_name, 0):
                return
            self._marks[queue_name] = mark
            self._write()

    def reset(self) -> None:
        with self._lock:
            self._marks = {}
            self._write()

    def _read(self) -> dict[str, int]:
        try:
            data = json.loads(self._file.read_text())
        except (FileNotFoundError, ValueError):
            return {}
        return {str(k): int(v) for k, v in data.items()} if isinstance(data, dict) else {}

    def _write(self) -> None:
        tmp = self._file.with_suffix(self._file.suffix + ".tmp")
        tmp.write_text(json.dumps(self._marks, sort_keys=True))
        os.replace(tmp, self._file)


def _credential_service(authorization: str) -> str | None:
    # "AWS4-HMAC-SHA256 Credential=key/20250101/us-east-1/sqs/aws4_request, ..."
    marker = "Credential="
    if marker not in authorization:
        return None
    scope = authorization.split(marker, 1)[1].split(",", 1)[0].split("/")
    return scope[3] if len(scope) > 3 else None


def _first(values: Mapping[str, list[str]], name: str) -> str | None:
    found = values.get(name)
    return found[0] if found else None
