"""Smoke test of a running Continuity: ``python -m infra.smoke --url URL`` (token in ``CONTINUITY_TOKEN``).

Checks, in order, and stops at the first failure with a message naming the step:

1. ``GET /api/health`` answers 200 ``{"status": "ok"}`` without a token;
2. a hook without a token is refused (401): the authorizer guards the API;
3. a hook round trip in a fresh session: session-start, a few user-prompt-submit, pre-compaction
   → ``GET /api/checkpoints/{session}`` lists a ``pre_compaction`` checkpoint; then session-start
   with ``source=compact`` answers a recovery block carrying this run's marker;
4. ``GET /api/recovery?session_key=…&level=1`` answers level 1 within its 1,500 characters;
5. session-end (``reason=clear``) closes the session.

Each run uses its own session id and project path (``/continuity-smoke/<run id>``), so it never
mixes with real sessions and is safe against production; what it writes expires with the
retention TTL. Exit status: 0 passed, 1 a check failed, 2 bad arguments. The token needs the
``hooks`` and ``read`` scopes. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

RECOVERY_HEADER = "## Session Recovery Context"
LEVEL_1_MAX_CHARS = 1500  # the service's LEVEL_LIMITS[1] (recovery/tiers.py)
PROMPTS = 3


class SmokeFailure(Exception):
    """A check failed; the message says which and what came back."""


@dataclass(frozen=True)
class Answer:
    status: int
    body: Any  # parsed JSON, or the raw text when it was not JSON

    def brief(self) -> str:
        text = self.body if isinstance(self.body, str) else json.dumps(self.body)
        return f"HTTP {self.status}: {text[:300]}"


class Client:
    def __init__(self, url: str, token: str | None, timeout_s: float = 15.0) -> None:
        self.url = url.rstrip("/")
        self.token = token
        self.timeout_s = timeout_s

    def request(
        self,
        method: str,
        path: str,
        body: dict[str, Any] | None = None,
        query: dict[str, str] | None = None,
        *,
        auth: bool = True,
    ) -> Answer:
        url = f"{self.url}{path}"
        if query:
            url += "?" + urllib.parse.urlencode(query)
        headers = {"Accept": "application/json", "User-Agent": "continuity-smoke"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if auth and self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        request = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                return Answer(response.status, _decode(response.read()))
        except urllib.error.HTTPError as error:
            return Answer(error.code, _decode(error.read()))
        except (urllib.error.URLError, TimeoutError, ConnectionError) as error:
            raise SmokeFailure(
                f"{method} {url}: cannot connect ({getattr(error, 'reason', error)})"
            ) from error


def _decode(raw: bytes) -> Any:
    text = raw.decode("utf-8", errors="replace")
    try:
        return json.loads(text) if text else None
    except json.JSONDecodeError:
        return text


def expect(condition: bool, message: str, answer: Answer | None = None) -> None:
    if not condition:
        raise SmokeFailure(f"{message}" + (f" — got {answer.brief()}" if answer else ""))


class Smoke:
    """The checks against one service; ``run_id`` makes the session and project unique."""

    def __init__(self, client: Client, run_id: str | None = None, settle_s: float = 10.0) -> None:
        self.client = client
        self.run_id = run_id or uuid.uuid4().hex[:12]
        self.session = f"smoke-{self.run_id}"
        self.project = f"/continuity-smoke/{self.run_id}"
        self.marker = f"smoke marker {self.run_id}"
        self.settle_s = settle_s

    def steps(self) -> list[tuple[str, Callable[[], None]]]:
        return [
            ("health", self.health),
            ("auth required", self.auth_required),
            ("session-start", self.session_start),
            (f"{PROMPTS} prompts", self.prompts),
            ("pre-compaction checkpoint", self.pre_compaction),
            ("recovery after compaction", self.recovery_after_compaction),
            ("recovery level 1", self.recovery_level_1),
            ("session-end", self.session_end),
        ]

    def hook(self, event: str, **fields: Any) -> Answer:
        body = {"session_id": self.session, "cwd": self.project, "harness": "claude-code", **fields}
        return self.client.request("POST", f"/api/hooks/{event}", body)

    def health(self) -> None:
        answer = self.client.request("GET", "/api/health", auth=False)
        expect(answer.status == 200 and answer.body == {"status": "ok"}, "health is not ok", answer)

    def auth_required(self) -> None:
        answer = self.client.request("POST", "/api/hooks/user-prompt-submit", {"session_id": "x"}, auth=False)
        expect(answer.status == 401, "a hook without a token was not refused with 401", answer)

    def session_start(self) -> None:
        answer = self.hook("session-start", hook_event_name="SessionStart", source="startup")
        expect(
            answer.status == 200, "session-start failed (is the token valid, with the hooks scope?)", answer
        )
        expect(isinstance(answer.body, dict), "session-start did not answer a JSON object", answer)

    def prompts(self) -> None:
        for n in range(1, PROMPTS + 1):
            prompt = f"step {n}: {self.marker}, check the deployment end to end"
            answer = self.hook("user-prompt-submit", hook_event_name="UserPromptSubmit", prompt=prompt)
            expect(answer.status == 200, f"user-prompt-submit {n} failed", answer)

    def pre_compaction(self) -> None:
        answer = self.hook(
            "pre-compaction",
            hook_event_name="PreCompact",
            trigger="manual",
            custom_instructions=f"keep the {self.marker}",
        )
        expect(answer.status == 200, "pre-compaction failed", answer)
        checkpoints = self.wait_for_checkpoints()
        triggers = [c.get("trigger") for c in checkpoints]
        expect(
            "pre_compaction" in triggers,
            f"no pre_compaction checkpoint for {self.session} (found {triggers})",
        )

    def wait_for_checkpoints(self) -> list[dict[str, Any]]:
        deadline = time.monotonic() + self.settle_s
        path = f"/api/checkpoints/{urllib.parse.quote(self.session, safe='')}"
        while True:
            answer = self.client.request("GET", path)
            expect(answer.status == 200, "reading the session's checkpoints failed (read scope?)", answer)
            found = answer.body.get("checkpoints") if isinstance(answer.body, dict) else None
            expect(isinstance(found, list), "the checkpoints answer has no list", answer)
            if found or time.monotonic() >= deadline:
                return list(found or [])
            time.sleep(0.5)

    def recovery_after_compaction(self) -> None:
        answer = self.hook("session-start", hook_event_name="SessionStart", source="compact")
        expect(answer.status == 200, "session-start after compaction failed", answer)
        output = answer.body.get("hookSpecificOutput") if isinstance(answer.body, dict) else None
        context = output.get("additionalContext", "") if isinstance(output, dict) else ""
        expect(RECOVERY_HEADER in context, f"no '{RECOVERY_HEADER}' after compaction", answer)
        expect(self.marker in context, "the recovery block does not carry this run's prompts", answer)

    def recovery_level_1(self) -> None:
        query = {"session_key": self.session, "project": self.project, "level": "1"}
        answer = self.client.request("GET", "/api/recovery", query=query)
        expect(answer.status == 200, "GET /api/recovery level 1 failed", answer)
        body = answer.body if isinstance(answer.body, dict) else {}
        text = str(body.get("text") or "")
        expect(body.get("level") == 1 and text != "", "level 1 has no text", answer)
        expect(
            len(text) <= LEVEL_1_MAX_CHARS, f"level 1 is {len(text)} chars (> {LEVEL_1_MAX_CHARS})", answer
        )

    def session_end(self) -> None:
        answer = self.hook("session-end", hook_event_name="SessionEnd", reason="clear")
        expect(answer.status == 200, "session-end failed", answer)


def run(smoke: Smoke, out: Any = sys.stdout) -> int:
    print(f"smoke test of {smoke.client.url} (session {smoke.session})", file=out, flush=True)
    for name, step in smoke.steps():
        started = time.perf_counter()
        try:
            step()
        except SmokeFailure as failure:
            print(f"FAIL  {name}: {failure}", file=out, flush=True)
            return 1
        print(f"ok    {name} ({(time.perf_counter() - started) * 1000:.0f} ms)", file=out, flush=True)
    print("passed", file=out, flush=True)
    return 0


def resolve_url(args: argparse.Namespace) -> str:
    if args.url:
        return str(args.url)
    if args.stage:
        import boto3

        from infra.outputs import API_URL, describe_outputs, require

        session = boto3.session.Session(profile_name=args.profile, region_name=args.region)
        return require(describe_outputs(args.stage, session.client("cloudformation")), API_URL, args.stage)
    return os.environ.get("CONTINUITY_URL", "")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m infra.smoke", description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="base URL (default: CONTINUITY_URL, or --stage's ApiUrl output)")
    parser.add_argument("--stage", help="read the URL from the stack Continuity-{stage} (AWS credentials)")
    parser.add_argument("--token", help="bearer token (default: CONTINUITY_TOKEN; prefer the environment)")
    parser.add_argument("--profile", help="AWS profile for --stage")
    parser.add_argument("--region", help="AWS region for --stage")
    parser.add_argument("--timeout", type=float, default=15.0, help="seconds per request (default 15)")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        url = resolve_url(args)
    except Exception as error:  # no credentials, no stack: say so, do not trace back
        print(f"smoke: cannot find the URL of stage {args.stage}: {error}", file=sys.stderr)
        return 2
    token = args.token or os.environ.get("CONTINUITY_TOKEN", "")
    if not url or not token:
        print(
            "smoke: give --url (or CONTINUITY_URL, or --stage) and a token (CONTINUITY_TOKEN)",
            file=sys.stderr,
        )
        return 2
    return run(Smoke(Client(url, token, timeout_s=args.timeout)))


if __name__ == "__main__":
    sys.exit(main())
