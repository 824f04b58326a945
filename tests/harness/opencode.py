"""OpenCode, headless: ``opencode run --format json PROMPT``, ``--session ID`` for the next turns.

The mock model is an OpenAI-compatible provider (``@ai-sdk/openai-compatible``, which OpenCode
fetches from npm on first use) declared in the user's ``~/.config/opencode/opencode.json`` before
``continuity install opencode`` adds the plugin. The model's declared context limit is small, so
the model reporting a full context makes OpenCode compact.
"""

from __future__ import annotations

import json
import subprocess
from typing import Any

from tests.harness.machine import Machine, Turn, headless

CONTEXT_LIMIT = 60_000
TURN_TIMEOUT_S = 180


class OpenCode:
    def __init__(self, binary: str, machine: Machine, model_url: str) -> None:
        self.binary = binary
        self.machine = machine
        self.env = {**machine.env, "OPENCODE_DISABLE_AUTOUPDATE": "1", "OPENCODE_DISABLE_MODELS_FETCH": "1"}
        provider = {
            "npm": "@ai-sdk/openai-compatible",
            "name": "Mock",
            "options": {"baseURL": f"{model_url}/v1", "apiKey": "dummy"},
            "models": {"mock-model": {"name": "Mock", "limit": {"context": CONTEXT_LIMIT, "output": 4_000}}},
        }
        settings = {"autoupdate": False, "share": "disabled", "provider": {"mock": provider}}
        machine.write_json(".config/opencode/opencode.json", {**settings, "model": "mock/mock-model"})
        self.turns: list[Turn] = []

    def run(self, prompt: str, session: str | None = None, timeout_s: float = TURN_TIMEOUT_S) -> Turn:
        command = [
            self.binary,
            "run",
            "--format",
            "json",
            *(["--session", session] if session else []),
            prompt,
        ]
        turn = headless(command, self.machine, self.env, prompt, timeout_s)
        self.turns.append(turn)
        return turn

    def export(self, session: str) -> dict[str, Any]:
        """OpenCode's own record of a session (``opencode export``), read from its storage."""
        done = subprocess.run(
            [self.binary, "export", session],
            cwd=self.machine.project,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        return dict(json.loads(done.stdout[done.stdout.index("{") :]))
