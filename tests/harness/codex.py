"""Codex, headless: ``codex exec --json PROMPT``, then ``codex exec resume THREAD PROMPT`` per turn.

The mock model is a custom provider (``wire_api = "responses"``) given with ``-c`` on the command
line, so ``$CODEX_HOME/config.toml`` holds only what ``continuity install codex`` wrote. Hooks run
with ``--dangerously-bypass-hook-trust`` (a person trusts them once in ``/hooks``; this is that
trust for a run we vet). A compaction comes from the model reporting more input tokens than
``model_auto_compact_token_limit``.
"""

from __future__ import annotations

from pathlib import Path

from tests.harness.machine import Machine, Turn, headless

AUTO_COMPACT_TOKENS = 100_000
TURN_TIMEOUT_S = 120


class Codex:
    def __init__(self, binary: Path, machine: Machine, model_url: str) -> None:
        self.binary = binary
        self.machine = machine
        self.codex_home = machine.home / ".codex"
        self.env = {**machine.env, "CODEX_HOME": str(self.codex_home), "MOCK_API_KEY": "dummy"}
        provider = f'{{name="mock", base_url="{model_url}/v1", env_key="MOCK_API_KEY", wire_api="responses"}}'
        self.config = [
            "-c", 'model_provider="mock"', "-c", f"model_providers.mock={provider}", "-m", "gpt-mock",
            "-c", f"model_auto_compact_token_limit={AUTO_COMPACT_TOKENS}",
            "-c", "check_for_update_on_startup=false",
            # the user's own choices: wait for our MCP server before the first request, and let
            # the agent call its tools without asking
            "-c", "mcp_servers.continuity.required=true",
            "-c", 'mcp_servers.continuity.default_tools_approval_mode="approve"',
        ]  # fmt: skip
        self.turns: list[Turn] = []

    def exec(self, prompt: str, thread: str | None = None, timeout_s: float = TURN_TIMEOUT_S) -> Turn:
        """One ``codex exec`` (a new thread, or ``resume`` of ``thread``) to its end."""
        resume = ["resume", thread] if thread else []
        command = [
            str(self.binary), "exec", *resume, "--json", "--skip-git-repo-check",
            "--dangerously-bypass-hook-trust", *self.config, prompt,
        ]  # fmt: skip
        turn = headless(command, self.machine, self.env, prompt, timeout_s)
        self.turns.append(turn)
        return turn

    def rollout(self, thread: str) -> Path:
        """Codex's own transcript of a thread (``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-…-<id>.jsonl``)."""
        found = list((self.codex_home / "sessions").glob(f"*/*/*/rollout-*-{thread}.jsonl"))
        assert len(found) == 1, f"no single rollout for {thread}: {found}"
        return found[0]
