"""``continuity hook <event> [--harness H]``: one harness hook, posted to the service.

The rules, because this runs inside the agent's loop:

- It exits 0 whatever happens, prints nothing unless there is context to inject, and never
  writes to stderr. Failures go to ``$CONTINUITY_HOME/client.log``. (Exit 2 would block the
  user's prompt in Claude Code and Gemini CLI.)
- It has a deadline per event (``config.Settings.timeout_for``). Sockets get the time left; a
  watchdog thread covers what sockets cannot time out (DNS), spools the hook and exits 0.
- A hook that cannot be delivered (network, 5xx, 429, 401/403) goes to the spool and is replayed,
  in order, before the session's next hook; a session with a non-empty spool does not post
  around it. Other sessions' spools are replayed after a successful post, within half the budget.
- Every hook carries ``idempotency_key = "{session}:{event}:{seq}"``, fixed when the hook is
  first seen, so a replay is counted once by the server.
- ``user-prompt-submit``, ``pre-compaction`` and ``session-end`` also carry the new part of the
  transcript as readable text (``transcript_cursor``), its size since the last compaction
  (``transcript_chars``) and the context size the harness recorded (``context_tokens``), when it
  records one. A 409 (a gap: the service holds less than the delta's offset) moves the cursor
  back to the service's length and re-posts the same hook (same key, so nothing else counts
  twice) with the text from there. When the file has more than one request may carry,
  follow-ups (the same hook again, the next part) go within half the budget.
- Hooks that may inject context carry the harness's cap on it (``injection_cap_chars``).
- Every hook notes the project's current session (``current``) for the CLI and the MCP server.
"""

from __future__ import annotations

import _thread
import json
import os
import sys
import time
from collections.abc import Callable, Mapping

from continuity_client import config, current, harness, locallog, spool
from continuity_client.transport import Response, TransportError, request

TYPE_CHECKING = False  # typing costs milliseconds at import; mypy reads this as True
if TYPE_CHECKING:
    from typing import TextIO

WATCHDOG_GRACE_S = 0.25
MAX_RETRY_AFTER_S = 600.0
# Reads that matter most and happen rarely try the network even while the service is marked down.
BYPASS_BACKOFF = frozenset({"session-start", "pre-compaction"})
# Events that carry the transcript's new part.
TRANSCRIPT_EVENTS = frozenset({"user-prompt-submit", "pre-compaction", "session-end"})
MAX_BODY_BYTES = 900_000  # the service refuses bodies over 1 MB (413)
MIN_DELTA_BYTES = 4096  # with less room than this (a huge prompt), the delta waits for the next hook
MAX_RESENDS = 2  # re-posts after a 409 within one hook
MAX_FOLLOW_UPS = 8
GAP = "gap"  # post(): the service answered 409 with its stored length


def parse_args(argv: list[str]) -> tuple[str, str, list[str]]:
    """(event, harness, free text) from ``<event> [--harness H] [text...]``; '' where missing/invalid."""
    event, chosen, rest = "", harness.CLAUDE_CODE, []
    items = list(argv)
    while items:
        item = items.pop(0)
        if item == "--harness" and items:
            chosen = harness.canonical_harness(items.pop(0)) or ""
        elif item.startswith("--harness="):
            chosen = harness.canonical_harness(item.split("=", 1)[1]) or ""
        elif not event and not item.startswith("-"):
            event = harness.canonical_event(item) or ""
            if not event:
                rest.append(item)
        else:
            rest.append(item)
    return event, chosen, rest


def read_stdin() -> bytes:
    stream = sys.stdin
    try:
        if stream is None or stream.isatty():
            return b""
        return stream.buffer.read()
    except (OSError, ValueError):  # closed or unreadable: a hook without input
        return b""


def _settle_stdout() -> None:
    """Flush stdout now; if the harness closed the pipe, point it at /dev/null.

    Otherwise Python's flush at exit fails, prints to stderr and exits 120.
    """
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass


def classify(response: Response) -> str:
    """SENT for 2xx; RETRY for what a later attempt can fix; DROPPED for other 4xx."""
    status = response.status
    if 200 <= status < 300:
        return spool.SENT
    if status >= 500 or status in (401, 403, 408, 429):
        return spool.RETRY
    return spool.DROPPED


def stored_length(body: bytes) -> int | None:
    """``stored_length`` from a 409 answer, or None."""
    try:
        value = json.loads(body or b"{}").get("stored_length")
    except (ValueError, AttributeError):
        return None
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def retry_after(response: Response | None, default: float) -> float:
    """The service's Retry-After (429, 503) in seconds, capped; else the configured back-off."""
    if response is None:
        return default
    value = response.headers.get("retry-after", "").strip()
    if value.isdigit():
        return min(float(value), MAX_RETRY_AFTER_S)
    return default


class HookRun:
    """One hook invocation: state shared by the main thread and the watchdog."""

    def __init__(
        self,
        argv: list[str],
        stdin: bytes | None,
        stdout: TextIO,
        env: Mapping[str, str],
        exit_process: Callable[[int], object] = os._exit,
    ) -> None:
        self.started = time.monotonic()
        self.exit_process = exit_process
        self.argv = argv
        self.stdin = stdin
        self.stdout = stdout
        self.env = env
        self.lock = _thread.allocate_lock()
        self.finished = False
        self.settled = False  # the current hook was delivered, dropped or spooled
        self.home = config.home_dir(env)
        self.event = "-"
        self.session = ""
        self.record: dict | None = None
        self.settings: config.Settings | None = None
        self.deadline = self.started + config.DEFAULT_TIMEOUT_S
        self.transcript_more = False  # the transcript has more than the current delta carries

    # ---- logging and the watchdog ----------------------------------------------------------

    def log(self, message: str, level: str = "WARN") -> None:
        locallog.write(self.home, message, self.event, self.session, level)

    def _watchdog(self, at: float) -> None:
        time.sleep(max(0.0, at - time.monotonic()))
        if not self.lock.acquire(timeout=0.5):
            self.exit_process(0)
            return
        try:
            if not self.finished:
                if not self.settled and self.record is not None:
                    self._spool_locked("deadline passed (hook timeout)")
                else:
                    self.log("deadline passed (hook timeout); exiting")
                self.finished = True
                self.exit_process(0)
        finally:
            self.lock.release()

    # ---- the run ------------------------------------------------------------------------------

    def execute(self) -> None:
        event, chosen, rest = parse_args(self.argv)
        settings = self.settings = config.Settings(self.env)
        self.home = settings.home
        timeout = settings.timeout_for(event or "-")
        deadline = self.deadline = self.started + timeout
        half = self.started + timeout / 2  # no replay starts after half the budget
        # From here on nothing can hold the agent past the deadline, not even a stdin never closed.
        _thread.start_new_thread(self._watchdog, (deadline + WATCHDOG_GRACE_S,))
        # Read stdin before any early return: a harness writing to a hook that exited gets EPIPE.
        raw = read_stdin() if self.stdin is None else self.stdin
        if not event or not chosen:
            self.log(f"ignored: bad arguments {self.argv!r} (events: {', '.join(harness.EVENTS)})")
            return
        self.event = event
        if not settings.configured:
            self.log("not configured: run `continuity login --url URL --token TOKEN`", level="INFO")
            return
        payload = harness.parse_stdin(raw)
        if rest and "content" not in payload:
            payload["content"] = " ".join(rest)
        body = harness.build_body(payload, chosen, self.env)
        cap = harness.injection_cap(chosen, event, settings.injection_cap_chars)
        if cap is not None:
            body["injection_cap_chars"] = cap
        self.session = str(body.get("session_id") or "")
        key = f"{self.session or '-'}:{event}:{spool.next_seq(self.home, self.session)}"
        body["idempotency_key"] = key
        with self.lock:
            self.record = {"event": event, "key": key, "at": time.time(), "body": body}
        self.note_session(body, chosen)
        if event in TRANSCRIPT_EVENTS:
            # Built on a copy: the watchdog may spool the record meanwhile (then without the delta,
            # and the gap it leaves is mended through a 409 by a later hook).
            carried = dict(body)
            self.attach_transcript(carried)
            with self.lock:
                if self.settled or self.finished:
                    return
                self.record = {**self.record, "body": carried}

        own = spool.spool_file(self.home, self.session)
        down = spool.down_until(self.home)
        if event not in BYPASS_BACKOFF and down > time.time():
            self.spool(f"service marked unavailable for {down - time.time():.0f}s more")
            return
        if spool.has_pending(own):
            status, _ = self.replay([own], half)
            if status == spool.FAILED:
                self.spool("service unavailable while replaying the spool")
                return
            if status == spool.BUDGET and event != "session-start":
                self.spool("spool not drained within the time budget; keeping order")
                return
        outcome, answer = self.post(self.record, replayed=False)
        resends = 0
        while outcome == GAP and resends < MAX_RESENDS and isinstance(answer, int):
            resends += 1
            if not self.resend_from(answer):
                break
            outcome, answer = self.post(self.record, replayed=False)
        if outcome == GAP:  # the hook's own effect happened; the next hook mends the gap
            self.log(f"transcript gap not mended after {resends} resend(s); stored {answer}")
            outcome, answer = spool.SENT, None
        if outcome == spool.RETRY:
            self.spool(f"not delivered ({answer})")
            return
        self.settle(outcome, answer)
        if outcome != spool.SENT:
            return
        if self.transcript_more:
            self.follow_up(half)
        others = [path for path in spool.pending_files(self.home) if path != own]
        if others and time.monotonic() < half:
            self.replay(others, half)

    # ---- the transcript ------------------------------------------------------------------------

    def note_session(self, body: dict, chosen: str) -> None:
        project = body.get("project_normalized")
        if isinstance(project, str) and self.session:
            path = body.get("transcript_path")
            current.record(self.home, project, self.session, chosen, path if isinstance(path, str) else None)

    def attach_transcript(self, body: dict) -> None:
        """Add the transcript's new part, its size since the last compaction and the harness's own
        context figure (when it recorded one); never raises."""
        path = body.get("transcript_path")
        if not isinstance(path, str) or not path or not self.session:
            return
        room = MAX_BODY_BYTES - len(json.dumps(body))
        if room < MIN_DELTA_BYTES:
            self.log("transcript delta deferred: the hook's body leaves no room", level="INFO")
            return
        try:
            from continuity_client import transcript_cursor

            budget = min(transcript_cursor.MAX_DELTA_BYTES, room)
            delta = transcript_cursor.next_delta(
                self.home, self.session, path, body["harness"], budget, final=self.event == "session-end"
            )
        except Exception as error:  # an unreadable transcript must not cost the hook
            self.log(f"transcript not read: {type(error).__name__}: {error}")
            return
        if delta is None:
            return
        body["transcript_chars"] = delta.chars_since_compact
        if delta.context_tokens is not None:
            body["context_tokens"] = delta.context_tokens
        else:
            body.pop("context_tokens", None)
        if delta.text:
            body["transcript"] = delta.body()
        else:
            body.pop("transcript", None)
        self.transcript_more = delta.more

    def resend_from(self, stored: int) -> bool:
        """After a 409: move the cursor back to the service's length and put the text from there
        into the current record. False when there is nothing to resend with."""
        from continuity_client import transcript_cursor

        record = self.record
        if record is None:
            return False
        body = dict(record["body"])
        try:
            if not transcript_cursor.rewind(self.home, self.session, stored):
                return False
        except Exception as error:
            self.log(f"transcript rewind failed: {type(error).__name__}: {error}")
            return False
        self.log(f"transcript gap: the service holds {stored} characters; resending from there", "INFO")
        body.pop("transcript", None)
        self.attach_transcript(body)
        with self.lock:
            if self.finished or self.settled:
                return False
            self.record = {**record, "body": body}
        return True

    def follow_up(self, stop_at: float) -> None:
        """Post the rest of a transcript that did not fit, as repeats of this hook (same key)."""
        record = self.record
        sent = 0
        while self.transcript_more and record is not None and sent < MAX_FOLLOW_UPS:
            if time.monotonic() >= stop_at:
                return
            body = dict(record["body"])
            body.pop("transcript", None)
            self.transcript_more = False
            self.attach_transcript(body)
            if "transcript" not in body:
                return
            follow = {**record, "body": body}
            outcome, answer = self.post(follow, replayed=False)
            if outcome == GAP and isinstance(answer, int):
                from continuity_client import transcript_cursor

                transcript_cursor.rewind(self.home, self.session, answer)
                self.transcript_more = True
            elif outcome == spool.RETRY:
                self.spool_record(follow, f"transcript follow-up not delivered ({answer})")
                return
            elif outcome != spool.SENT:
                return
            sent += 1

    # ---- posting ------------------------------------------------------------------------------

    def post(self, record: dict, replayed: bool) -> tuple[str, object]:
        """(SENT, parsed answer) | (DROPPED, reason) | (RETRY, reason) | (GAP, stored length).

        Marks the service down on RETRY. A 409 on a replay counts as delivered: the hook's effect
        happened, and the next live hook mends the transcript's gap.
        """
        settings = self.settings
        assert settings is not None
        if record.get("event") not in harness.EVENTS:
            self.log(f"dropped {record.get('key')}: unknown event {record.get('event')!r}")
            return spool.DROPPED, "unknown event"
        headers = {
            "Authorization": f"Bearer {settings.token}",
            "Content-Type": "application/json",
            "Idempotency-Key": record["key"],
        }
        if replayed:
            headers["X-Continuity-Replay"] = "1"
            headers["X-Continuity-Occurred-At"] = locallog.utc_stamp(record.get("at"))
        body = json.dumps(record["body"]).encode("utf-8")
        response: Response | None = None
        try:
            response = request(
                "POST",
                settings.url,
                f"/api/hooks/{record['event']}",
                body,
                headers,
                self.deadline - time.monotonic(),
                self.env,
            )
        except TransportError as error:
            reason = str(error)
        else:
            if response.status == 409:
                stored = stored_length(response.body)
                if stored is None or replayed:
                    self.log(
                        f"{record['key']}: transcript gap (stored {stored}); delivered otherwise", "INFO"
                    )
                    return spool.SENT, None
                return GAP, stored
            outcome = classify(response)
            if outcome == spool.SENT:
                spool.mark_up(self.home)
                try:
                    return outcome, json.loads(response.body or b"{}")
                except ValueError:
                    self.log(f"malformed answer to {record['key']}: {response.body[:120]!r}")
                    return outcome, None
            reason = f"HTTP {response.status}: {response.body[:200].decode('utf-8', 'replace')}"
            if outcome == spool.DROPPED:
                self.log(f"dropped {record['key']}: the service refused it ({reason})")
                return outcome, reason
        spool.mark_down(self.home, retry_after(response, settings.backoff_s))
        return spool.RETRY, reason

    def replay(self, paths: list[str], stop_at: float) -> tuple[str, int]:
        def send(record: dict) -> str:
            outcome, answer = self.post(record, replayed=True)
            if outcome == spool.RETRY:
                self.log(f"replay of {record['key']} stopped: {answer}")
            return outcome

        def corrupt(path: str, count: int) -> None:
            self.log(f"dropped {count} corrupt line(s) from {path}")

        status, handled = spool.replay(paths, stop_at, send, corrupt)
        if handled:
            self.log(f"replayed {handled} spooled hook(s); status {status}", level="INFO")
        return status, handled

    # ---- settling the current hook -------------------------------------------------------------

    def settle(self, outcome: str, answer: object) -> None:
        with self.lock:
            if self.finished:  # the watchdog already settled the hook
                return
            self.settled = True
            if outcome != spool.SENT or self.record is None:
                return
            text = harness.render_output(self.record["body"]["harness"], self.event, answer)
            if text:
                self.stdout.write(text + "\n")
                self.stdout.flush()

    def spool(self, reason: str) -> None:
        with self.lock:
            if not self.settled:
                self._spool_locked(reason)

    def spool_record(self, record: dict, reason: str) -> None:
        """Spool a record other than the current hook's (a transcript follow-up)."""
        with self.lock:
            if not self.finished:
                self._spool_locked(reason, record)

    def _spool_locked(self, reason: str, other: dict | None = None) -> None:
        record, settings = other or self.record, self.settings
        if record is None or settings is None:
            return
        if other is None:
            self.settled = True
        try:
            dropped = spool.append(self.home, self.session, record, settings.spool_max_bytes)
        except OSError as error:
            self.log(f"lost {record['key']}: {reason}; spool write failed: {error}", level="ERROR")
            return
        self.log(f"spooled {record['key']}: {reason}")
        if dropped:
            keys = ", ".join(str(item.get("key")) for item in dropped[:5])
            more = f" and {len(dropped) - 5} more" if len(dropped) > 5 else ""
            self.log(f"spool full: dropped {len(dropped)} oldest hook(s): {keys}{more}", level="ERROR")


def main(
    argv: list[str],
    stdin: bytes | None = None,
    stdout: TextIO | None = None,
    env: Mapping[str, str] | None = None,
    exit_process: Callable[[int], object] = os._exit,
) -> int:
    """Run one hook; always 0. ``stdin``/``stdout``/``env`` default to the process's own.

    ``exit_process`` ends the process when the watchdog fires (tests running in-process replace it).
    """
    stream = sys.stdout if stdout is None else stdout
    run = HookRun(argv, stdin, stream, os.environ if env is None else env, exit_process)
    try:
        run.execute()
    except BaseException as error:  # a hook must never break the agent
        try:
            run.log(f"hook failed: {type(error).__name__}: {error}", level="ERROR")
            run.spool(f"hook failed: {type(error).__name__}")
        except BaseException:
            pass
    finally:
        with run.lock:
            run.finished = True
        if stdout is None:
            _settle_stdout()
    return 0
