"""Claude Code, headless: ``claude -p --input-format stream-json --output-format stream-json``.

A :class:`ClaudeSession` keeps one process and writes one user message at a time, waiting for the
turn's ``result`` event before the next, as a person typing would; ``/compact`` and ``/clear`` are
messages like any other. Pointed at the mock model with ``ANTHROPIC_BASE_URL`` and a dummy key,
with the updater, telemetry and other non-essential traffic off, it makes no other connection.
"""

from __future__ import annotations

import json
import queue
import subprocess
import threading
import time
from pathlib import Path
from typing import IO, Any

from tests.harness.machine import Machine

TURN_TIMEOUT_S = 90


def environment(machine: Machine, model_url: str, **extra: str) -> dict[str, str]:
    return {
        **machine.env,
        "ANTHROPIC_BASE_URL": model_url,
        "ANTHROPIC_API_KEY": "dummy",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        **extra,
    }


class ClaudeSession:
    """One ``claude -p`` process fed turn by turn; its stream-json events are kept."""

    def __init__(
        self, binary: Path, machine: Machine, env: dict[str, str], args: tuple[str, ...] = ()
    ) -> None:
        self.machine = machine
        self.events: list[dict[str, Any]] = []
        self.started = time.monotonic()
        self._lines: queue.Queue[str | None] = queue.Queue()
        command = [
            str(binary), "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
            # the user's own choice, not ours: let the agent call our MCP tools without a prompt
            "--allowedTools", "mcp__continuity", *args,
        ]  # fmt: skip
        self.process = subprocess.Popen(
            command,
            cwd=machine.project,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True).start()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            self._lines.put(line)
        self._lines.put(None)

    def send(self, prompt: str, timeout_s: float = TURN_TIMEOUT_S) -> list[dict[str, Any]]:
        """Type ``prompt``; the events up to and including the turn's ``result``."""
        assert self.process.stdin is not None
        message = {"type": "user", "message": {"role": "user", "content": prompt}}
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()
        turn: list[dict[str, Any]] = []
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no result for {prompt!r} within {timeout_s} s: {turn[-3:]}") from None
            if line is None:
                raise AssertionError(f"claude exited during {prompt!r}: {self.stderr()}")
            event = json.loads(line)
            turn.append(event)
            self.events.append(event)
            if event.get("type") == "result":
                return turn

    def close(self, timeout_s: float = 60) -> int:
        """End the input (Claude Code then ends the session: SessionEnd) and wait for the exit."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            code = self.process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise AssertionError(f"claude did not exit within {timeout_s} s of its input's end") from None
        while (line := self._lines.get()) is not None:
            self.events.append(json.loads(line))
        return code

    def stderr(self) -> str:
        return self.process.stderr.read() if self.process.stderr and self.process.poll() is not None else ""

    def session_ids(self) -> list[str]:
        """Claude Code's session ids, in the order they started (a /clear starts a new one)."""
        ids: list[str] = []
        for event in self.events:
            session = event.get("session_id")
            if event.get("subtype") == "init" and session and session not in ids:
                ids.append(session)
        return ids


def transcript_file(machine: Machine, session_id: str) -> Path:
    """Claude Code's own transcript of a session (``~/.claude/projects/<project>/<id>.jsonl``)."""
    found = list((machine.home / ".claude" / "projects").glob(f"*/{session_id}.jsonl"))
    assert len(found) == 1, f"no single transcript file for {session_id}: {found}"
    return found[0]
