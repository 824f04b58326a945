"""The hook command ``continuity install`` writes, run as the harness runs it: through a shell.

It is this installation's interpreter on ``hook_main.py`` with ``-I -S`` (no ``site``: a third of
Python's start-up), so these tests check that it still finds the client, and, for Codex's
compressed rollouts, the ``zstandard`` package that only ``site`` puts on the path.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import zstandard

from continuity_client.setup import install
from tests.client.client_support import eventually
from tests.client.client_support import run_cli as cli
from tests.client.fake_continuity_service import FakeService


def installed_command(env: dict[str, str], harness: str, settings: Path, event: str) -> str:
    assert cli(["install", harness, "--no-mcp"], env).returncode == 0
    groups = json.loads(settings.read_text())["hooks"][event]
    commands = [hook["command"] for group in groups for hook in group["hooks"] if install.is_ours(hook)]
    assert len(commands) == 1
    return commands[0]


def run_as_harness(command: str, payload: dict, env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        ["/bin/sh", "-c", command],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env=env,
        timeout=60,
    )


def test_claude_code_runs_the_hook_without_site_and_it_lands(
    client_env: dict[str, str], service: FakeService, tmp_path: Path
) -> None:
    # Given Claude Code's hooks installed
    command = installed_command(
        client_env, "claude-code", Path(client_env["HOME"]) / ".claude" / "settings.json", "UserPromptSubmit"
    )
    assert " -I -S " in command and command.endswith(
        "hook_main.py hook user-prompt-submit --harness claude-code"
    )

    # When Claude Code runs it for a prompt
    done = run_as_harness(
        command, {"session_id": "cmd-1", "cwd": str(tmp_path), "prompt": "make refunds exact"}, client_env
    )

    # Then it exits 0, silent, and the service has the prompt
    assert (done.returncode, done.stderr) == (0, b"")
    posted = eventually(lambda: [r for r in service.requests if r.event == "user-prompt-submit"])
    assert [(r.body["session_id"], r.body["prompt"]) for r in posted] == [("cmd-1", "make refunds exact")]


def test_the_context_the_service_answers_is_printed_before_the_process_ends(
    client_env: dict[str, str], service: FakeService, tmp_path: Path
) -> None:
    # Given a session start the service answers with a recovery block
    context = "## Session Recovery Context\nYou were making refunds exact."
    service.answers["session-start"] = {
        "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": context}
    }
    command = installed_command(
        client_env, "claude-code", Path(client_env["HOME"]) / ".claude" / "settings.json", "SessionStart"
    )

    # When Claude Code runs the installed command (which ends with os._exit once it has answered)
    done = run_as_harness(
        command, {"session_id": "cmd-3", "cwd": str(tmp_path), "source": "startup"}, client_env
    )

    # Then the whole answer reached stdout
    assert done.returncode == 0
    assert json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"] == context


def test_a_codex_hook_reads_a_compressed_rollout_through_the_installed_command(
    client_env: dict[str, str], service: FakeService, tmp_path: Path
) -> None:
    # Given Codex's hooks installed and a rollout Codex compressed (zstd)
    command = installed_command(
        client_env, "codex", Path(client_env["HOME"]) / ".codex" / "hooks.json", "Stop"
    )
    rollout = tmp_path / "rollout-2026-11-20T10-00-00-z.jsonl.zst"
    line = {
        "timestamp": "2026-11-20T10:00:00.000Z",
        "type": "response_item",
        "payload": {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "zstd read"}],
        },
    }
    rollout.write_bytes(zstandard.ZstdCompressor().compress((json.dumps(line) + "\n").encode()))

    # When Codex's Stop hook runs with it
    payload = {"session_id": "cmd-2", "cwd": str(tmp_path), "transcript_path": str(rollout)}
    assert run_as_harness(command, payload, client_env).returncode == 0

    # Then the hook found zstandard (through site, which the command skips) and sent the text
    posted = eventually(lambda: [r for r in service.requests if r.event == "stop"])
    assert len(posted) == 1
    assert "Assistant: zstd read" in posted[0].body.get("transcript", {}).get("text", "")


def test_doctor_is_content_with_the_installed_command(
    client_env: dict[str, str], service: FakeService
) -> None:
    assert cli(["install", "claude-code", "--no-mcp"], client_env).returncode == 0

    done = cli(["doctor"], client_env)

    assert "[ok] claude-code (user):" in done.stdout
    assert "not there" not in done.stdout


def test_doctor_names_a_launcher_that_is_gone(
    client_env: dict[str, str], service: FakeService, tmp_path: Path
) -> None:
    # Given hooks that run an interpreter on a hook_main.py that is no longer there (a moved venv)
    gone = tmp_path / "old-venv" / "continuity_client" / "hook_main.py"
    command = f"{sys.executable} -I -S {gone}"
    assert cli(["install", "claude-code", "--no-mcp", "--command", command], client_env).returncode == 0

    # When the user runs doctor
    done = cli(["doctor"], client_env)

    # Then it says which file is missing and how to fix it
    assert done.returncode != 0
    assert f"runs {gone}, which is not there or not executable" in done.stdout
    assert "continuity install claude-code --scope user" in done.stdout
