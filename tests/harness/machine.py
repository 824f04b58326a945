"""One user's machine for a real harness CLI: a temporary HOME, a project, a clean environment.

The environment is built from nothing but PATH, so the developer's own keys, settings and
``CONTINUITY_*`` variables never reach the CLI under test; ``continuity login`` writes
``~/.continuity/config.json`` in the temporary HOME, as a user would (MCP servers started by a
harness see the file, where some harnesses pass them no environment at all).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CONTINUITY = str(Path(sys.executable).with_name("continuity"))


class Machine:
    def __init__(self, base: Path) -> None:
        self.home = base / "home"
        self.project = base / "project"
        self.home.mkdir(parents=True)
        self.project.mkdir(parents=True)
        self.env: dict[str, str] = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(self.home),
            "LANG": "C.UTF-8",
            "TERM": "dumb",
            "NO_COLOR": "1",
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            "XDG_DATA_HOME": str(self.home / ".local" / "share"),
            "XDG_CACHE_HOME": str(self.home / ".cache"),
            "XDG_STATE_HOME": str(self.home / ".local" / "state"),
        }

    @property
    def continuity_home(self) -> Path:
        return self.home / ".continuity"

    def continuity(self, *args: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [CONTINUITY, *args], env=self.env, cwd=self.project, capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, f"continuity {' '.join(args)}: {done.stdout}{done.stderr}"
        return done

    def login(self, url: str, token: str) -> None:
        # --no-check: some tests stop or silence the service first, and login would refuse it.
        self.continuity("login", "--url", url, "--token", token, "--no-check")

    def install(self, harness: str, *args: str) -> None:
        self.continuity("install", harness, "--scope", "user", *args)

    def write_json(self, relative: str, value: dict[str, Any]) -> Path:
        path = self.home / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value, indent=2))
        return path

    def spooled(self) -> list[dict[str, Any]]:
        """Every hook waiting in the client's spool (what a stopped service did not get)."""
        records = []
        for path in sorted((self.continuity_home / "spool").glob("*.jsonl")):
            records += [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        return records

    def wait_delivered(self, timeout_s: float = 30) -> None:
        """Until the spool is empty. A hook whose answer the harness does not need (a prompt, a stop)
        is delivered by a background process after the hook exits, so a CLI can end a moment before
        its last hooks reach the service."""
        deadline = time.monotonic() + timeout_s
        while self.spooled() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not self.spooled(), f"still spooled after {timeout_s} s: {self.client_log()[-2000:]}"

    def client_log(self) -> str:
        path = self.continuity_home / "client.log"
        return path.read_text() if path.exists() else ""


@dataclass
class Turn:
    """One headless run of a CLI: its JSON events (one a line), exit code and time."""

    prompt: str
    events: list[dict[str, Any]]
    exit_code: int
    seconds: float
    stderr: str

    def first(self, key: str) -> str:
        """The first value of ``key`` in the events (a session or thread id)."""
        return next(str(event[key]) for event in self.events if event.get(key))


def headless(
    command: Sequence[str], machine: Machine, env: dict[str, str], prompt: str, timeout_s: float
) -> Turn:
    started = time.monotonic()
    done = subprocess.run(
        list(command),
        cwd=machine.project,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout_s,
    )
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return Turn(prompt, events, done.returncode, time.monotonic() - started, done.stderr)


def assert_finished_promptly(
    machine: Machine, turns: Sequence[Turn], limit_s: float, spooled: set[str]
) -> None:
    """Every turn ended normally within ``limit_s``, and the hooks wait in the spool (none lost)."""
    assert [turn.exit_code for turn in turns] == [0] * len(turns), turns[-1].stderr
    assert max(turn.seconds for turn in turns) < limit_s, [round(turn.seconds, 1) for turn in turns]
    assert spooled <= {record["event"] for record in machine.spooled()}
