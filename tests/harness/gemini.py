"""Gemini CLI, headless: ``gemini -p PROMPT --output-format stream-json``, ``--resume latest`` after.

Pointed at the mock with ``GOOGLE_GEMINI_BASE_URL`` and a dummy ``GEMINI_API_KEY`` (the settings'
``security.auth.selectedType`` says so; ``continuity install gemini`` keeps that key). Headless,
Gemini CLI leaves out every tool that would ask for approval, our MCP tools too, unless the
approval mode says yes: ``--approval-mode yolo`` is that choice.
"""

from __future__ import annotations

from pathlib import Path

from tests.harness.machine import Machine, Turn, headless

MODEL = "gemini-2.5-flash"
TURN_TIMEOUT_S = 120


class Gemini:
    def __init__(self, binary: Path, machine: Machine, model_url: str) -> None:
        self.binary = binary
        self.machine = machine
        self.env = {
            **machine.env,
            "GEMINI_API_KEY": "dummy",
            "GOOGLE_GEMINI_BASE_URL": model_url,
            "GEMINI_CLI_TRUST_WORKSPACE": "true",
        }
        machine.write_json(
            ".gemini/settings.json", {"security": {"auth": {"selectedType": "gemini-api-key"}}}
        )
        self.turns: list[Turn] = []

    def prompt(self, text: str, resume: bool = False, timeout_s: float = TURN_TIMEOUT_S) -> Turn:
        command = [
            str(self.binary), "-p", text, "--output-format", "stream-json", "-m", MODEL,
            "--approval-mode", "yolo", *(["--resume", "latest"] if resume else []),
        ]  # fmt: skip
        turn = headless(command, self.machine, self.env, text, timeout_s)
        self.turns.append(turn)
        return turn

    def chat_files(self, session_id: str) -> list[Path]:
        """Gemini CLI's own record of a session, oldest first: ``~/.gemini/tmp/<project>/chats/
        session-<time>-<id8>.jsonl`` (a resumed session may start a file of its own)."""
        found = sorted(
            (self.machine.home / ".gemini" / "tmp").glob(f"*/chats/session-*-{session_id[:8]}.jsonl")
        )
        assert found, f"no chat file for {session_id}"
        return found
