"""Delivering hooks: post one record, read the service's answer, replay a spool in order.

A record is ``{"event", "key", "at", "body"}``: the hook as first seen, with its idempotency key
``"{session}:{event}:{seq}"``, so a replay is counted once by the server. The outcome of a post:

- SENT: a 2xx (the parsed answer goes with it), or a 409 gap on a replay (the hook's effect
  happened; the next live hook mends the transcript's gap);
- GAP: a live hook's 409 with the service's ``stored_length`` (the caller resends from there);
- RETRY: what a later attempt can fix (network, 5xx, 401, 403, 408, 429): the service is marked
  down for its Retry-After or the configured back-off, except after a refused connection (nothing
  listened: it cost no time, and the service may be back a moment later, when the next
  session-start must reach it for its recovery). 401 and 403 are about the token, not the hook:
  the hooks wait in the spool (within its cap) until the token is fixed;
- DROPPED: any other 4xx (a later attempt would be refused the same way: a 409 without
  ``stored_length`` is an idempotency key used for another request), or a hook the service
  failed on ``refusals.MAX_SERVER_ERRORS`` times (not counting 503s): logged and noted for
  ``continuity doctor`` (``refusals``).

Used by the hook run and by ``continuity flush``.
"""

from __future__ import annotations

import time

from continuity_client.hook import fastjson as json
from continuity_client.hook import harness, late_context, locallog, refusals, spool
from continuity_client.hook.transport import Response, TransportError, request
from continuity_client.setup import config

TYPE_CHECKING = False  # typing costs milliseconds at import; mypy reads this as True
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, Protocol

    class Log(Protocol):
        def __call__(self, message: str, level: str = ...) -> None: ...


MAX_RETRY_AFTER_S = 600.0
GAP = spool.GAP  # the service answered 409 with its stored length


def retryable(status: int) -> bool:
    """Whether a later attempt can fix an error answer (or no answer: status 0)."""
    return not status or status >= 500 or status in (401, 403, 408, 429)


def classify(response: Response) -> str:
    """SENT for 2xx; RETRY for what a later attempt can fix; DROPPED for other 4xx."""
    status = response.status
    if 200 <= status < 300:
        return spool.SENT
    return spool.RETRY if retryable(status) else spool.DROPPED


def _json(body: bytes) -> object:
    try:
        return json.loads(body or b"{}")
    except ValueError:
        return None


def stored_length(body: bytes) -> int | None:
    """``stored_length`` from a 409 answer, or None."""
    try:
        value = json.loads(body or b"{}").get("stored_length")
    except (ValueError, AttributeError):
        return None
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def describe_error(status: int, parsed: object, raw: bytes) -> str:
    """An error answer in words: the service's ``detail`` ({"error", "detail"}), or API Gateway's
    own ``message`` (its 401/403 for a missing or refused token, 404 for no route)."""
    answer = parsed if isinstance(parsed, dict) else {}
    detail = answer.get("detail") or answer.get("message")
    if "error" not in answer and status in (401, 403):
        return f"HTTP {status}: the service refused the token (`continuity login`, or check CONTINUITY_TOKEN)"
    if "error" not in answer and status == 404:
        return "HTTP 404: no such route at this URL (is it the service's base URL? `continuity doctor`)"
    text = detail if isinstance(detail, str) and detail else raw[:200].decode("utf-8", "replace")
    return f"HTTP {status}: {text or 'no message'}"


def retry_after(response: Response | None, default: float) -> float:
    """The service's Retry-After (429, 503) in seconds, capped; else the configured back-off."""
    if response is None:
        return default
    value = response.headers.get("retry-after", "").strip()
    if value.isdigit():
        return min(float(value), MAX_RETRY_AFTER_S)
    return default


class Delivery:
    """Posts records to the service until ``deadline`` (monotonic); logs through ``log``."""

    def __init__(self, settings: config.Settings, env: Mapping[str, str], log: Log, deadline: float) -> None:
        self.settings = settings
        self.env = env
        self.log = log
        self.deadline = deadline

    def post(self, record: dict[str, Any], replayed: bool) -> tuple[str, object]:
        """(SENT, parsed answer) | (DROPPED, reason) | (RETRY, reason) | (GAP, stored length)."""
        if record.get("event") not in harness.EVENTS:
            return self._drop(record, f"unknown event {record.get('event')!r}")
        try:
            response = self._send(record, replayed)
        except TransportError as error:
            return self._retry(None, str(error), back_off=not error.refused)
        if response.status == 409:
            return self._gap(record, response, replayed)
        outcome = classify(response)
        if outcome == spool.SENT:
            spool.mark_up(self.settings.home)
            late_context.learn(self.settings.home, response.headers)
            return outcome, self._parse(record, response)
        reason = describe_error(response.status, _json(response.body), response.body)
        if outcome == spool.DROPPED:
            return self._drop(record, f"the service refused it ({reason})")
        if refusals.counts_toward_cap(response.status):
            failures = refusals.server_error(self.settings.home, record["key"])
            if failures >= refusals.MAX_SERVER_ERRORS:
                return self._drop(record, f"the service failed on it {failures} times (last: {reason})")
        return self._retry(response, reason)

    def _drop(self, record: dict[str, Any], reason: str) -> tuple[str, object]:
        """DROPPED for good: logged, and noted for ``continuity doctor``."""
        self.log(f"dropped {record['key']}: {reason}")
        refusals.note(self.settings.home, str(record["key"]), reason)
        return spool.DROPPED, reason

    def _send(self, record: dict[str, Any], replayed: bool) -> Response:
        headers = {
            "Authorization": f"Bearer {self.settings.token}",
            "Content-Type": "application/json",
            "Idempotency-Key": record["key"],
        }
        if replayed:
            headers["X-Continuity-Replay"] = "1"
            headers["X-Continuity-Occurred-At"] = locallog.utc_stamp(record.get("at"))
        body = json.dumps(record["body"]).encode("utf-8")
        path = f"/api/hooks/{record['event']}"
        timeout = self.deadline - time.monotonic()
        return request("POST", self.settings.url, path, body, headers, timeout, self.env)

    def _gap(self, record: dict[str, Any], response: Response, replayed: bool) -> tuple[str, object]:
        """A 409: GAP with the stored length for a live hook; on a replay the hook's effect happened,
        and the next live hook mends the transcript's gap. A 409 without a length is no gap: the key
        was used for another request (DROPPED, for ``doctor``: a resend would be refused the same)."""
        stored = stored_length(response.body)
        if stored is None:
            reason = describe_error(response.status, _json(response.body), response.body)
            return self._drop(record, f"the service refused it ({reason})")
        if replayed:
            self.log(f"{record['key']}: transcript gap (stored {stored}); delivered otherwise", "INFO")
            return spool.SENT, None
        return GAP, stored

    def _parse(self, record: dict[str, Any], response: Response) -> object:
        try:
            return json.loads(response.body or b"{}")
        except ValueError:
            self.log(f"malformed answer to {record['key']}: {response.body[:120]!r}")
            return None

    def _retry(self, response: Response | None, reason: str, back_off: bool = True) -> tuple[str, object]:
        """RETRY, and (``back_off``) the service marked down for its Retry-After or the configured
        back-off."""
        if back_off:
            spool.mark_down(self.settings.home, retry_after(response, self.settings.backoff_s))
        return spool.RETRY, reason

    def replay(
        self, paths: list[str], stop_at: float, held: tuple[str, ...] = (), until_key: str | None = None
    ) -> tuple[str, int]:
        """Replay spool files oldest first until drained, a RETRY, or ``stop_at`` (``spool.replay``:
        each under its delivery lock, ``held`` ones already taken; ``until_key`` stops before that
        record)."""

        def send(record: dict[str, Any]) -> str:
            outcome, answer = self.post(record, replayed=True)
            if outcome == spool.RETRY:
                self.log(f"replay of {record['key']} stopped: {answer}")
            return outcome

        def corrupt(path: str, count: int) -> None:
            self.log(f"dropped {count} corrupt line(s) from {path}")

        status, handled = spool.replay(paths, stop_at, send, corrupt, held, until_key)
        if handled:
            self.log(f"replayed {handled} spooled hook(s); status {status}", "INFO")
        return status, handled


def logger(home: str) -> Log:
    """A ``log`` for a ``Delivery`` outside a hook run (``continuity flush``)."""

    def log(message: str, level: str = "WARN") -> None:
        locallog.write(home, message, level=level)

    return log
