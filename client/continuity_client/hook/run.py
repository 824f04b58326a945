"""``continuity hook <event> [--harness H]``: one harness hook, posted to the service.

The rules, because this runs inside the agent's loop:

- It exits 0 whatever happens, prints nothing unless there is context to inject, and never
  writes to stderr. Failures go to ``$CONTINUITY_HOME/client.log``. (Exit 2 would block the
  user's prompt in Claude Code and Gemini CLI.) The one exception is ``remember``, which no
  harness fires (a person or an agent runs it): without a session to file it under, found in
  the input, ``CONTINUITY_SESSION_ID`` or the project's current session, it says so on stderr
  and exits 1 instead of losing the text.
- It has a deadline per event (``config.Settings.timeout_for``). Sockets get the time left; a
  watchdog thread covers what sockets cannot time out (DNS), spools the hook and exits 0.
- Nothing is lost quietly: a hook is delivered, refused by the service (logged), or spooled; a
  spool that cannot be written is logged as a loss.
- A hook that cannot be delivered (network, 5xx, 429, 401/403) goes to the spool and is replayed,
  in order, before the session's next hook; a session with a non-empty spool does not post
  around it. Other sessions' spools are replayed after a successful post, within half the budget.
- Every hook carries ``idempotency_key = "{session}:{event}:{origin}.{seq}"`` (``spool.hook_key``:
  this client's id and the session's next number), fixed when the hook is first seen, so a replay
  is counted once by the server (``delivery``) and another machine's hook never looks like one.
- Transcript events carry the transcript's new part (``delta``). A 409 (a gap: the service holds
  less than the delta's offset) moves the cursor back to the service's length and re-posts the
  same hook (same key, so nothing else counts twice) with the text from there. When the file has
  more than one request may carry, follow-ups (the same hook again, the next part) go within half
  the budget.
- Hooks that may inject context carry the harness's cap on it (``injection_cap_chars``).
- Every hook notes the project's current session (``current``) for the CLI and the MCP server.
- Hooks whose answer the harness does not need (``BACKGROUND_EVENTS``: a prompt that cannot be
  answered with context, ``stop``, ``subagent-stop``) are spooled first (write + fsync) and handed
  to a detached delivery (``background``: a fork in a session of its own); the hook exits without
  waiting for the network. The delivery holds the session's delivery lock
  (``spool.claim``) while it sends what the spool holds before the hook, then the hook itself (a
  live post: a 409 is mended), then what came after; every replay takes the same lock, so a
  session's hooks reach the service in the spool's order whoever sends them. A prompt waits for
  the service when its answer may carry context (``late_context``: Gemini CLI's ``compacted``,
  a context figure in the compaction nudge's zone); an answer with context that reaches a
  background delivery anyway is printed by the session's next prompt.

The run is a small state machine: each step is a method that does one thing and answers the
name of the next step. The failure edges are the arrows to the side::

    read_input ──── bad arguments, not configured ──────────────────────────► done
        │
    normalise ───── the watchdog spooled the hook meanwhile ────────────────► done
        │
    hand_off ────── the harness needs no answer: spooled, delivery forked ─► done
        │  ──────── (in the forked delivery) ──► claim (lock; what precedes it) ─► post
    catch_up ────── service marked down, own spool failed or not drained ──► spool ─► done
        │
    post ────────── not delivered ─────────────────────────────────────────► spool ─► done
        │  ──────── refused (4xx), logged ─────────────────────────────────────────► done
    emit ────────── the watchdog ended the run ─────────────────────────────────────► done
        │
    follow_up ───── a follow-up not delivered (it is spooled) ─────────────────────► done
        │
    replay_others ──────────────────────────────────────────────────────────────────► done

An exception in any step is logged and spools the hook (``main``).
"""

from __future__ import annotations

import _thread
import os
import sys
import time

from continuity_client.hook import background, current, delta, harness, late_context, locallog, spool
from continuity_client.hook.spool import GAP
from continuity_client.setup import config

TYPE_CHECKING = False  # typing costs milliseconds at import; mypy reads this as True
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any, TextIO

    from continuity_client.hook.delivery import Delivery

WATCHDOG_GRACE_S = 0.25
# Reads that matter most and happen rarely try the network even while the service is marked down.
BYPASS_BACKOFF = frozenset({"session-start", "pre-compaction"})
# Claude Code session starts that continue another session (``/branch``, ``--fork-session``, a
# resume under a new id): the client names that session as ``previous_session_key``.
CONTINUING_SOURCES = frozenset({"fork", "resume"})
MAX_RESENDS = 2  # re-posts after a 409 within one hook
MAX_FOLLOW_UPS = 8
# Hooks the harness does not wait on for an answer, unless it may carry context (``in_background``).
BACKGROUND_EVENTS = frozenset({"user-prompt-submit", "stop", "subagent-stop"})

# The steps (see the module's docstring).
READ_INPUT, NORMALISE, CATCH_UP, POST = "read_input", "normalise", "catch_up", "post"
HAND_OFF, CLAIM = "hand_off", "claim"
EMIT, FOLLOW_UP, REPLAY_OTHERS, SPOOL, DONE = "emit", "follow_up", "replay_others", "spool", "done"


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


class HookRun:
    """One hook invocation: its steps, and the state they share with the watchdog thread.

    ``lock`` guards ``record``, ``settled`` (the hook was delivered, refused or spooled) and
    ``finished`` (the run, or the watchdog, ended it): whichever comes first settles the hook.
    """

    def __init__(
        self,
        argv: list[str],
        stdin: bytes | None,
        stdout: TextIO,
        env: Mapping[str, str],
        exit_process: Callable[[int], object] = os._exit,
        started: float | None = None,
        detach: bool = False,
    ) -> None:
        self.started = time.monotonic() if started is None else started
        # May hand the hook to a background delivery (the installed command; not in-process callers).
        self.detach = detach
        self.delivering = False  # the record is in the spool; this run delivers it (``claim``)
        self.detached = False  # this process is the background delivery: no harness reads stdout
        self.claimed = -1  # the session's delivery lock, while held
        self.exit_process = exit_process
        self.argv = argv
        self.stdin = stdin
        self.stdout = stdout
        self.env = env
        self.lock = _thread.allocate_lock()
        self.finished = False
        self.settled = False
        self.home = config.home_dir(env)
        self.step = READ_INPUT
        self.event = "-"
        self.harness = ""
        self.session = ""
        self.raw = b""
        self.rest: list[str] = []
        self.record: dict[str, Any] | None = None
        self.settings: config.Settings | None = None
        self.delivery: Delivery | None = None
        self.deadline = self.started + config.DEFAULT_TIMEOUT_S
        self.half = self.deadline  # no replay or follow-up starts after half the budget
        self.own_spool = ""
        self.answer: object = None  # the service's answer to the post
        self.reason = ""  # why the hook goes to the spool
        self.transcript_more = False  # the transcript has more than the current delta carries
        self.exit_code = 0  # 1 only for a ``remember`` that has no session to go to

    # ---- the machine ------------------------------------------------------------------------

    def execute(self) -> None:
        while self.step != DONE:
            self.step = STEPS[self.step](self)

    def log(self, message: str, level: str = "WARN") -> None:
        locallog.write(self.home, message, self.event, self.session, level)

    def to_spool(self, reason: str) -> str:
        self.reason = reason
        return SPOOL

    # ---- the steps ----------------------------------------------------------------------------

    def read_input(self) -> str:
        """Arguments, settings and deadline, the watchdog, stdin."""
        event, self.harness, self.rest = parse_args(self.argv)
        settings = self.settings = config.Settings(self.env)
        self.home = settings.home
        timeout = settings.timeout_for(event or "-")
        # The work (sockets, replays) ends a grace before the deadline, so a hook that has to spool
        # still does so and exits within its budget; the watchdog fires at the deadline itself.
        self.deadline = self.started + timeout - min(WATCHDOG_GRACE_S, timeout / 4)
        self.half = self.started + timeout / 2
        # From here on nothing can hold the agent past the deadline, not even a stdin never closed.
        _thread.start_new_thread(self._watchdog, (self.started + timeout,))
        # Read stdin before any early return: a harness writing to a hook that exited gets EPIPE.
        self.raw = read_stdin() if self.stdin is None else self.stdin
        if not event or not self.harness:
            self.log(f"ignored: bad arguments {self.argv!r} (events: {', '.join(harness.EVENTS)})")
            return DONE
        self.event = event
        if not settings.configured:
            self.log("not configured: run `continuity login --url URL --token TOKEN`", level="INFO")
            from continuity_client.hook import refusals

            # Counted: `continuity doctor` and the next command a person runs say so.
            refusals.note(self.home, f"{self.harness}:{event}", "no login", refusals.NO_LOGIN)
            return DONE
        return NORMALISE

    def normalise(self) -> str:
        """The request body, its idempotency key and the record the spool would keep."""
        settings = self.settings
        assert settings is not None
        try:
            payload = harness.parse_stdin(self.raw, plain_text=self.event == "remember")
        except harness.NotJSONError as error:
            # Nothing to post: the harness sent something else, or the hook command is miswired.
            self.log(f"ignored: {error}; the harness sends its hook as a JSON object on stdin")
            from continuity_client.hook import refusals

            refusals.note(self.home, f"{self.harness}:{self.event}", str(error), refusals.NOT_JSON)
            return DONE
        gemini_auto = self.harness == harness.GEMINI and payload.get("trigger") != "manual"
        if self.event == "pre-compaction" and gemini_auto:
            # Gemini CLI fires PreCompress on every turn, before it decides whether to compress: a
            # compression that happens shows in its chat file, and the next BeforeAgent recovers it
            # (``compacted``). Posting this would checkpoint every turn.
            return DONE
        if self.rest and "content" not in payload:
            payload["content"] = " ".join(self.rest)
        body = harness.build_body(payload, self.harness, self.env)
        harness.add_origin(body, self.home, self.env, settings.file_values)
        harness.route_subagent(body, self.event, self.harness)
        self.link_origin(body)
        user = "".join(c for c in self.env.get("CONTINUITY_USER", "") if c.isprintable()).strip()[:128]
        if self.event == "session-start" and user:
            # Who works here, for a hand-off addressed by name (else the token's name counts).
            body["user"] = user
        if self.event == "remember" and not body.get("session_id") and not self.find_session(body):
            return DONE
        cap = harness.injection_cap(self.harness, self.event, settings.injection_cap_chars)
        if cap is not None:
            body["injection_cap_chars"] = cap
        self.session = str(body.get("session_id") or "")
        key = spool.hook_key(self.home, self.session, self.event)
        body["idempotency_key"] = key
        with self.lock:
            self.record = {"event": self.event, "key": key, "at": time.time(), "body": body}
        self.note_session(body)
        if self.event in delta.TRANSCRIPT_EVENTS:
            # Built on a copy: the watchdog may spool the record meanwhile (then without the delta,
            # and the gap it leaves is mended through a 409 by a later hook).
            carried = dict(body)
            self.transcript_more = delta.attach(carried, self.home, self.session, self.event, self.log)
            with self.lock:
                if self.settled or self.finished:
                    return DONE
                self.record = {**self.record, "body": carried}
        return HAND_OFF

    def hand_off(self) -> str:
        """A hook whose answer the harness does not need: spool it (write + fsync: from here on it
        cannot be lost), print what an earlier background delivery kept for this prompt, start the
        delivery and exit. Anything else, or a spool that cannot be written, goes on in this run."""
        settings, record = self.settings, self.record
        assert settings is not None and record is not None
        if self.event == "session-start":
            late_context.drop(self.home, self.session)
        if not self.in_background(settings, record["body"]):
            self.open_delivery()
            return CATCH_UP
        with self.lock:
            if self.settled or self.finished:
                return DONE
            try:
                dropped = spool.append(self.home, self.session, record, settings.spool_max_bytes)
            except OSError as error:
                self.log(f"not handed to the background ({error}); delivering now")
                self.open_delivery()
                return CATCH_UP
            self.settled = True
        if dropped:
            self.log_dropped(dropped)
        if self.event == "user-prompt-submit":
            self.emit_answer(late_context.take(self.home, self.session))
        down = spool.down_until(self.home)
        if down > time.time():
            left = down - time.time()
            self.log(f"spooled {record['key']}: service marked unavailable for {left:.0f}s more")
            return DONE
        try:
            if background.detach():
                return DONE  # the hook; the delivery goes on in the child
        except OSError as error:
            self.log(f"background delivery not started ({error}); delivering now")
            self.delivering = True
            self.open_delivery()
            return CLAIM
        self.become_delivery()
        return CLAIM

    def become_delivery(self) -> None:
        """In the forked delivery: the event's deadline from now, a watchdog of its own (the hook's
        thread did not survive the fork) and a lock no other thread can hold."""
        assert self.settings is not None
        self.lock = _thread.allocate_lock()
        self.detached = self.delivering = True
        self.started = time.monotonic()
        timeout = self.settings.timeout_for(self.event)
        self.deadline = self.started + timeout - min(WATCHDOG_GRACE_S, timeout / 4)
        self.half = self.started + timeout / 2
        self.open_delivery()
        _thread.start_new_thread(self._watchdog, (self.started + timeout,))

    def open_delivery(self) -> None:
        """The sockets, for a run that posts (a hook handed to the background never imports them)."""
        from continuity_client.hook.delivery import Delivery

        assert self.settings is not None
        self.delivery = Delivery(self.settings, self.env, self.log, self.deadline)

    def in_background(self, settings: config.Settings, body: dict[str, Any]) -> bool:
        if not (self.detach and settings.background) or self.event not in BACKGROUND_EVENTS:
            return False
        if self.transcript_more:  # its follow-ups are this run's to send
            return False
        if self.event != "user-prompt-submit":
            return True
        if body.get("compacted"):  # answered with the recovery block
            return False
        threshold = late_context.wait_from(self.home, settings.sync_context_tokens, settings.sync_context_set)
        return not late_context.may_nudge(self.home, self.session, body, threshold)

    def claim(self) -> str:
        """Take the session's delivery lock, send what the spool holds before this hook, and find
        the hook still there (a sync hook's replay may have sent it meanwhile)."""
        assert self.delivery is not None and self.record is not None
        self.own_spool = spool.spool_file(self.home, self.session)
        key = self.record["key"]
        self.claimed = spool.claim(self.own_spool, self.half)
        if self.claimed < 0:
            self.log(f"{key} left in the spool: another delivery of the session held it", "INFO")
            return DONE
        status, _ = self.delivery.replay([self.own_spool], self.half, (self.own_spool,), key)
        if status != spool.DRAINED:
            self.log(f"{key} left in the spool: the hooks before it were not delivered ({status})", "INFO")
            return DONE
        found = spool.find(self.own_spool, key)
        if found is None:
            return DONE
        with self.lock:
            self.record = found
        return POST

    def catch_up(self) -> str:
        """Keep the session's order: a marked-down service or an undrained own spool means spool.

        A session start first replays the other sessions' spools (within half its budget): its
        recovery reads what they carry, e.g. the end of the session that ran while the service was
        away."""
        assert self.delivery is not None
        self.own_spool = spool.spool_file(self.home, self.session)
        down = spool.down_until(self.home)
        if self.event not in BYPASS_BACKOFF and down > time.time():
            return self.to_spool(f"service marked unavailable for {down - time.time():.0f}s more")
        if self.event == "session-start":
            others = [path for path in spool.pending_files(self.home) if path != self.own_spool]
            if others:
                self.delivery.replay(others, self.half)
        if not spool.has_pending(self.own_spool):
            return POST
        status, _ = self.delivery.replay([self.own_spool], self.half)
        if status == spool.FAILED:
            return self.to_spool("service unavailable while replaying the spool")
        if status == spool.BUDGET and self.event != "session-start":
            return self.to_spool("spool not drained within the time budget; keeping order")
        return POST

    def post(self) -> str:
        """Post the hook; after a 409, resend from the service's length (at most MAX_RESENDS)."""
        assert self.delivery is not None and self.record is not None
        outcome, answer = self.delivery.post(self.record, replayed=False)
        resends = 0
        while outcome == GAP and resends < MAX_RESENDS and isinstance(answer, int):
            resends += 1
            if not self.resend_from(answer):
                break
            outcome, answer = self.delivery.post(self.record, replayed=False)
        if outcome == GAP:  # the hook's own effect happened; the next hook mends the gap
            self.log(f"transcript gap not mended after {resends} resend(s); stored {answer}")
            outcome, answer = spool.SENT, None
        if outcome == spool.RETRY:
            if self.delivering:  # it stays where it is, in order
                self.log(f"{self.record['key']} left in the spool: not delivered ({answer})")
                return DONE
            return self.to_spool(f"not delivered ({answer})")
        if self.delivering:
            spool.remove(self.own_spool, {self.record["key"]})
        if outcome != spool.SENT:  # refused, and logged by the delivery
            with self.lock:
                self.settled = True
            return REPLAY_OTHERS if self.delivering else DONE
        self.answer = answer
        return EMIT

    def emit(self) -> str:
        """Print the harness's output at once: the watchdog's exit must not lose it. In the
        background delivery no harness reads it: an answer with context waits for the next prompt."""
        with self.lock:
            if self.finished:  # the watchdog already settled the hook
                return DONE
            self.settled = True
            assert self.record is not None
            if self.detached:
                chosen = str(self.record["body"].get("harness"))
                text = harness.render_output(chosen, self.event, self.answer)
                if text and self.event == "user-prompt-submit":
                    late_context.keep(self.home, self.session, self.answer)
                    self.log("the answer carried context after the prompt went on: kept for the next", "INFO")
            else:
                text = self.emit_answer(self.answer)
            late_context.note_answer(self.home, self.session, self.event, bool(text))
        return FOLLOW_UP if self.transcript_more else REPLAY_OTHERS

    def emit_answer(self, answer: object) -> str | None:
        """Print the harness's output for ``answer`` (nothing when it has no context)."""
        chosen = self.record["body"].get("harness") if self.record else self.harness
        text = harness.render_output(str(chosen), self.event, answer) if answer else None
        if text:
            self.stdout.write(text + "\n")
            self.stdout.flush()
        return text

    def follow_up(self) -> str:
        """Post the rest of a transcript that did not fit, as repeats of this hook (same key)."""
        assert self.delivery is not None
        record = self.record
        sent = 0
        while self.transcript_more and record is not None and sent < MAX_FOLLOW_UPS:
            if time.monotonic() >= self.half:
                return REPLAY_OTHERS
            body = dict(record["body"])
            body.pop("transcript", None)
            self.transcript_more = delta.attach(body, self.home, self.session, self.event, self.log)
            if "transcript" not in body:
                return REPLAY_OTHERS
            follow = {**record, "body": body}
            outcome, answer = self.delivery.post(follow, replayed=False)
            if outcome == GAP and isinstance(answer, int):
                self.transcript_more = delta.rewind(self.home, self.session, answer, self.log)
            elif outcome == spool.RETRY:  # the service is failing: no more requests this run
                self.spool_other(follow, f"transcript follow-up not delivered ({answer})")
                return DONE
            elif outcome != spool.SENT:  # refused, and logged by the delivery
                return REPLAY_OTHERS
            sent += 1
        return REPLAY_OTHERS

    def replay_others(self) -> str:
        """Other sessions' spools, with what is left of the first half of the budget. A delivery
        first sends what its session's spool gained meanwhile, and lets the session go."""
        assert self.delivery is not None
        if self.claimed >= 0:
            if time.monotonic() < self.half:
                self.delivery.replay([self.own_spool], self.half, (self.own_spool,))
            spool.release(self.claimed)
            self.claimed = -1
        others = [path for path in spool.pending_files(self.home) if path != self.own_spool]
        if others and time.monotonic() < self.half:
            self.delivery.replay(others, self.half)
        return DONE

    def spool(self) -> str:
        with self.lock:
            if not self.settled:
                self._spool_locked(self.reason)
        return DONE

    # ---- helpers --------------------------------------------------------------------------------

    def link_origin(self, body: dict[str, Any]) -> None:
        """A Claude Code fork (or resume under a new id) names the session it continues, so its
        recovery finds that session's checkpoints: from the transcript's first records, else, for a
        fork whose transcript is not written yet, the project's session the hooks saw last."""
        if self.harness != harness.CLAUDE_CODE or self.event != "session-start":
            return
        source = body.get("source")
        if source not in CONTINUING_SOURCES or body.get("previous_session_key"):
            return
        session, path = str(body.get("session_id") or ""), body.get("transcript_path")
        origin = None
        try:
            from continuity_client.hook import transcript_cursor

            origin = transcript_cursor.continued_from(path, session) if isinstance(path, str) else None
        except Exception as error:  # a transcript that cannot be read must not cost the hook
            self.log(f"transcript not read for the session's origin: {type(error).__name__}: {error}")
        project = harness.local_project(body)
        if origin is None and source == "fork" and project:
            last = current.read(self.home, project)
            seen = str(last.get("session_id") or "") if last else ""
            origin = seen if seen and seen != session else None
        if origin:
            body["previous_session_key"] = origin

    def find_session(self, body: dict[str, Any]) -> bool:
        """A ``remember`` run by hand: the project's current session (what its hooks last saw), as
        every other command finds it; False, said on stderr, when there is none."""
        project = harness.local_project(body)
        root, seen = current.find(self.home, project) if project else (project, None)
        if seen is not None:
            body["session_id"] = str(seen["session_id"])
            return True
        self.exit_code = 1
        sys.stderr.write(
            f"continuity hook remember: nothing remembered: no current session for {root or 'this folder'} "
            "(no hook has reported one there yet). Run it in the project's folder, or set "
            "CONTINUITY_SESSION_ID to the session's id.\n"
        )
        self.log("remember without a session: refused, said on stderr")
        return False

    def note_session(self, body: dict[str, Any]) -> None:
        project = harness.local_project(body)
        if harness.SUBAGENT_KEY_PART in self.session:
            return  # a sub-agent's own hook: the project's current session stays its parent
        if project and self.session:
            path = body.get("transcript_path")
            current.record(
                self.home, project, self.session, self.harness, path if isinstance(path, str) else None
            )

    def resend_from(self, stored: int) -> bool:
        """After a 409: move the cursor back to the service's length and put the text from there
        into the current record. False when there is nothing to resend with."""
        record = self.record
        if record is None or not delta.rewind(self.home, self.session, stored, self.log):
            return False
        self.log(f"transcript gap: the service holds {stored} characters; resending from there", "INFO")
        body = dict(record["body"])
        body.pop("transcript", None)
        self.transcript_more = delta.attach(body, self.home, self.session, self.event, self.log)
        with self.lock:
            if self.finished or (self.settled and not self.delivering):
                return False
            self.record = {**record, "body": body}
        return True

    def spool_other(self, record: dict[str, Any], reason: str) -> None:
        """Spool a record other than the current hook's (a transcript follow-up)."""
        with self.lock:
            if not self.finished:
                self._spool_locked(reason, record)

    def _spool_locked(self, reason: str, other: dict[str, Any] | None = None) -> None:
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
            self.log_dropped(dropped)

    def log_dropped(self, dropped: list[dict[str, Any]]) -> None:
        keys = ", ".join(str(item.get("key")) for item in dropped[:5])
        more = f" and {len(dropped) - 5} more" if len(dropped) > 5 else ""
        self.log(f"spool full: dropped {len(dropped)} oldest hook(s): {keys}{more}", level="ERROR")

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


STEPS: dict[str, Callable[[HookRun], str]] = {
    READ_INPUT: HookRun.read_input,
    NORMALISE: HookRun.normalise,
    HAND_OFF: HookRun.hand_off,
    CLAIM: HookRun.claim,
    CATCH_UP: HookRun.catch_up,
    POST: HookRun.post,
    EMIT: HookRun.emit,
    FOLLOW_UP: HookRun.follow_up,
    REPLAY_OTHERS: HookRun.replay_others,
    SPOOL: HookRun.spool,
}


def process_started() -> float:
    """When this process started, on the ``time.monotonic()`` clock: the interpreter's start-up
    (tens of ms, far more on a loaded machine) is the agent's wait too. Now, where /proc is not."""
    now = time.monotonic()
    try:
        with open("/proc/self/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()  # the name may hold spaces
        start_s = int(fields[19]) / os.sysconf("SC_CLK_TCK")  # field 22: start time after boot
        age = time.clock_gettime(time.CLOCK_BOOTTIME) - start_s
    except (OSError, ValueError, IndexError, AttributeError):
        return now
    return now - min(max(age, 0.0), 5.0)  # a bound: a wrong reading must not void the budget


def main(
    argv: list[str],
    stdin: bytes | None = None,
    stdout: TextIO | None = None,
    env: Mapping[str, str] | None = None,
    exit_process: Callable[[int], object] = os._exit,
    started: float | None = None,
    detach: bool = False,
) -> int:
    """Run one hook; 0 (1 only for a ``remember`` with no session). ``stdin``/``stdout``/``env``
    default to the process's own.

    ``exit_process`` ends the process when the watchdog fires (tests running in-process replace it).
    ``started``: when the hook's time began (``time.monotonic()``; default: now).
    ``detach``: hooks the harness needs no answer to may go to a background delivery (the
    installed command; in-process callers deliver in the run).
    """
    stream = sys.stdout if stdout is None else stdout
    run = HookRun(argv, stdin, stream, os.environ if env is None else env, exit_process, started, detach)
    try:
        run.execute()
    except BaseException as error:  # a hook must never break the agent
        try:
            run.log(f"hook failed in {run.step}: {type(error).__name__}: {error}", level="ERROR")
            run.reason = f"hook failed: {type(error).__name__}"
            run.spool()
        except BaseException:
            pass
    finally:
        with run.lock:
            run.finished = True
        spool.release(run.claimed)
        if stdout is None:
            _settle_stdout()
    return run.exit_code
