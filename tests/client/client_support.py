"""Helpers for the client tests: run a hook (as a process or in-process) and read its traces."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from continuity_client.hook import run

T = TypeVar("T")

# What a busy shared machine may add to a hook's own deadline (interpreter start-up, scheduling).
# Deadlines are checked against the fake service's HANG_S (30 s): a hook that waited for a hung
# service's answer overshoots by far more than this, a punctual one on a loaded machine does not.
SLACK_S = 10.0


@dataclass
class HookResult:
    code: int
    stdout: str
    stderr: str = ""

    @property
    def output(self) -> dict | None:
        return json.loads(self.stdout) if self.stdout.strip() else None


def run_hook_cli(args: list[str], payload: dict | str | None, env: dict[str, str]) -> HookResult:
    """``continuity hook ...`` as the harness runs it: a process, JSON on stdin."""
    data = payload if isinstance(payload, str) else json.dumps(payload) if payload is not None else ""
    done = subprocess.run(
        [sys.executable, "-m", "continuity_client", "hook", *args],
        input=data.encode(),
        capture_output=True,
        env=env,
        timeout=30,
    )
    return HookResult(done.returncode, done.stdout.decode(), done.stderr.decode())


def run_cli(
    args: list[str], env: dict[str, str], cwd: Path | None = None, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    """Any ``continuity`` command as a person runs it: a process, its output as text."""
    return subprocess.run(
        [sys.executable, "-m", "continuity_client", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=60,
    )


def run_hook(args: list[str], payload: dict | str | None, env: dict[str, str]) -> HookResult:
    """The same hook in-process (fast); the watchdog's process exit is replaced by a no-op."""
    data = payload if isinstance(payload, str) else json.dumps(payload) if payload is not None else ""
    out = io.StringIO()
    code = run.main(args, stdin=data.encode(), stdout=out, env=env, exit_process=lambda _code: None)
    return HookResult(code, out.getvalue())


def eventually(check: Callable[[], T], timeout_s: float = 20.0) -> T:
    """``check()`` once it is truthy (its last value at the timeout). A hook process whose answer
    the harness does not need hands its delivery to a background process and exits first: what
    it sends lands a moment after."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = check()
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(0.02)


def log_text(home: Path) -> str:
    path = home / "client.log"
    return path.read_text() if path.exists() else ""


def spooled(home: Path) -> list[dict]:
    """All spooled records, file by file, in order."""
    records = []
    for path in sorted((home / "spool").glob("*.jsonl")) if (home / "spool").exists() else []:
        try:
            text = path.read_text()
        except FileNotFoundError:  # delivered and removed by a background delivery since the listing
            continue
        records += [json.loads(line) for line in text.splitlines() if line.strip()]
    return records


_ORIGIN = re.compile(r":[0-9a-f]{16}\.(\d+)\b")


def plain(text: str) -> str:
    """Idempotency keys in ``text`` without this client's origin: ``s:event:{origin}.3`` reads
    ``s:event:3`` (the origin is random per CONTINUITY_HOME; tests name the sequence)."""
    return _ORIGIN.sub(r":\1", text)
