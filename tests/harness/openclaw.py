"""OpenClaw, headless: ``openclaw agent --local --message PROMPT --session-id ID --json``.

Each turn is its own process running the embedded agent (no Gateway), as a cron job or a script
would run it; our plugin is loaded afresh in each. The mock model is an OpenAI-compatible provider
(``api: openai-completions``) declared in ``~/.openclaw/openclaw.json`` before
``continuity install openclaw`` adds the plugin and the MCP server. OpenClaw needs Node >= 24.16:
the runtime installed with it from the npm registry comes first on PATH.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

from tests.harness.clis import OPENCLAW
from tests.harness.machine import Machine, Turn

MODEL = "mock-model"
TURN_TIMEOUT_S = 240


class OpenClaw:
    def __init__(self, binary: Path, machine: Machine, model_url: str) -> None:
        self.binary = binary
        self.machine = machine
        node_bin = OPENCLAW.node_bin
        assert node_bin is not None
        self.env = {**machine.env, "PATH": f"{node_bin}:{machine.env['PATH']}"}
        provider = {
            "baseUrl": f"{model_url}/v1",
            "apiKey": "dummy",
            "api": "openai-completions",
            "models": [
                {
                    "id": MODEL,
                    "name": "Mock",
                    "reasoning": False,
                    "input": ["text"],
                    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
                    "contextWindow": 60_000,
                    "maxTokens": 4_000,
                }
            ],
        }
        agents = {"defaults": {"model": {"primary": f"mock/{MODEL}"}, "workspace": str(machine.project)}}
        settings = {"models": {"providers": {"mock": provider}}, "agents": agents}
        machine.write_json(".openclaw/openclaw.json", settings)
        self.turns: list[Turn] = []

    def run(self, prompt: str, session_id: str, timeout_s: float = TURN_TIMEOUT_S) -> Turn:
        command = [
            str(self.binary), "agent", "--local", "--message", prompt, "--session-id", session_id, "--json",
        ]  # fmt: skip
        started = time.monotonic()
        done = subprocess.run(
            command,
            cwd=self.machine.project,
            env=self.env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout_s,
        )
        # --json prints one (indented) object: the run's payloads and meta.
        start = done.stdout.find("{")
        events: list[dict[str, Any]] = [json.loads(done.stdout[start:])] if start >= 0 else []
        turn = Turn(prompt, events, done.returncode, time.monotonic() - started, done.stderr)
        self.turns.append(turn)
        return turn

    def plugin_inspect(self) -> dict[str, Any]:
        """OpenClaw's own view of our plugin (``openclaw plugins inspect continuity --json``)."""
        done = subprocess.run(
            [str(self.binary), "plugins", "inspect", "continuity", "--json"],
            cwd=self.machine.project,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        return dict(json.loads(done.stdout[done.stdout.index("{") :]))


def session_key(session_id: str) -> str:
    """The session key OpenClaw gives an explicit ``--session-id`` of the default agent."""
    return f"agent:main:explicit:{session_id}"
