"""``continuity install``: our hooks in, the user's settings untouched, a byte-identical way back."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from continuity_client.setup import install
from tests.client.client_support import plain
from tests.client.client_support import run_cli as cli
from tests.client.fake_continuity_service import FakeService

USER_SETTINGS = {
    "$schema": "https://json.schemastore.org/claude-code-settings.json",
    "permissions": {"allow": ["Bash(npm run test:*)"], "deny": ["Read(./.env)"]},
    "env": {"GREETING": "grüß dich ☕"},
    "hooks": {
        "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo mine"}]}],
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh", "timeout": 5}]}
        ],
        "BeforeAgent": [{"hooks": [{"type": "command", "command": "./ctx.sh"}]}],
    },
    "statusLine": {"type": "command", "command": "~/status.sh"},
    "model": "opus",
}
SETTINGS_PATHS = {
    "claude-code": (".claude", "settings.json"),
    "codex": (".codex", "hooks.json"),
    "gemini": (".gemini", "settings.json"),
}
EXPECTED_EVENTS = {
    "claude-code": {
        "SessionStart",
        "UserPromptSubmit",
        "PreCompact",
        "PostCompact",
        "SessionEnd",
        "SubagentStart",
        "SubagentStop",
    },
    "codex": {
        "SessionStart",
        "UserPromptSubmit",
        "PreCompact",
        "PostCompact",
        "Stop",
        "SubagentStart",
        "SubagentStop",
    },
    "gemini": {"SessionStart", "BeforeAgent", "PreCompress", "SessionEnd"},
}
STYLES = {
    "two-spaces": lambda data: json.dumps(data, indent=2, ensure_ascii=False) + "\n",
    "four-spaces-escaped": lambda data: json.dumps(data, indent=4),
    "tabs": lambda data: json.dumps(data, indent="\t", ensure_ascii=False) + "\n",
    "one-line": lambda data: json.dumps(data, ensure_ascii=False),
}


@pytest.fixture
def user_home(client_env: dict[str, str]) -> Path:
    return Path(client_env["HOME"])


def settings_file(user_home: Path, harness: str) -> Path:
    folder, name = SETTINGS_PATHS[harness]
    path = user_home / folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def without_ours(data: dict) -> dict:
    """The settings less our hooks and our MCP server (Gemini CLI keeps both in one file)."""
    stripped = install.strip(data)
    servers = stripped.get("mcpServers")
    if isinstance(servers, dict) and set(servers) == {"continuity"}:
        del stripped["mcpServers"]
    return stripped


def ours(data: dict) -> dict[str, list[dict]]:
    found: dict[str, list[dict]] = {}
    for event, groups in data.get("hooks", {}).items():
        for group in groups:
            for entry in group["hooks"]:
                if install.is_ours(entry):
                    found.setdefault(event, []).append({**entry, "matcher": group.get("matcher")})
    return found


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("harness", SETTINGS_PATHS)
def test_install_then_uninstall_leaves_the_users_file_byte_identical(
    harness: str, style: str, user_home: Path, client_env: dict[str, str]
) -> None:
    # Given a user's settings file with unrelated settings and hooks
    path = settings_file(user_home, harness)
    original = STYLES[style](USER_SETTINGS).encode("utf-8")
    path.write_bytes(original)

    # When we install, install again, and uninstall
    first = cli(["install", harness], client_env)
    after_first = path.read_bytes()
    second = cli(["install", harness], client_env)
    installed = json.loads(path.read_text())
    after_second = path.read_bytes()
    removed = cli(["install", harness, "--uninstall"], client_env)

    # Then install added exactly our entries, once, and kept the rest
    assert first.returncode == second.returncode == removed.returncode == 0, first.stderr + removed.stderr
    assert "backup in" in first.stdout
    assert "no change" in second.stdout
    assert after_first == after_second
    assert set(ours(installed)) == EXPECTED_EVENTS[harness]
    assert all(len(entries) == 1 for entries in ours(installed).values())
    assert without_ours(installed) == USER_SETTINGS
    # And uninstall restored the original bytes
    assert path.read_bytes() == original


@pytest.mark.parametrize("style", STYLES)
def test_the_round_trip_keeps_the_format_even_without_backups(
    style: str, user_home: Path, client_env: dict[str, str], home: Path
) -> None:
    path = settings_file(user_home, "claude-code")
    original = STYLES[style](USER_SETTINGS).encode("utf-8")
    path.write_bytes(original)

    cli(["install", "claude-code"], client_env)
    shutil.rmtree(home / "backups")  # the user cleaned up
    cli(["install", "claude-code", "--uninstall"], client_env)

    assert path.read_bytes() == original


def test_changes_made_after_install_survive_uninstall_in_the_users_format(
    user_home: Path, client_env: dict[str, str]
) -> None:
    path = settings_file(user_home, "claude-code")
    path.write_text(json.dumps(USER_SETTINGS, indent=4, ensure_ascii=False) + "\n")
    cli(["install", "claude-code"], client_env)
    edited = json.loads(path.read_text())
    edited["model"] = "sonnet"  # the user changes something meanwhile
    path.write_text(json.dumps(edited, indent=4, ensure_ascii=False) + "\n")

    cli(["install", "claude-code", "--uninstall"], client_env)

    expected = {**USER_SETTINGS, "model": "sonnet"}
    assert path.read_text() == json.dumps(expected, indent=4, ensure_ascii=False) + "\n"


def test_claude_code_entries_have_the_documented_shape(user_home: Path, client_env: dict[str, str]) -> None:
    cli(["install", "claude-code"], client_env)
    found = ours(json.loads(settings_file(user_home, "claude-code").read_text()))

    assert found["SessionStart"][0]["matcher"] == "startup|resume|clear|compact|fork"
    for event, (entry,) in found.items():
        assert entry["type"] == "command"
        assert isinstance(entry["timeout"], int) and 5 <= entry["timeout"] <= 60  # seconds
        assert entry["command"].endswith("--harness claude-code")
        assert event == "SessionStart" or entry["matcher"] is None


def test_gemini_entries_are_named_and_time_out_in_milliseconds(
    user_home: Path, client_env: dict[str, str]
) -> None:
    cli(["install", "gemini"], client_env)
    found = ours(json.loads(settings_file(user_home, "gemini").read_text()))
    assert found["BeforeAgent"][0]["name"] == "continuity-user-prompt-submit"
    assert all(entry["timeout"] >= 1000 for (entry,) in found.values())


def test_a_missing_settings_file_is_created_and_removed_again(
    user_home: Path, client_env: dict[str, str]
) -> None:
    path = user_home / ".codex" / "hooks.json"
    assert cli(["install", "codex"], client_env).returncode == 0
    assert set(ours(json.loads(path.read_text()))) == EXPECTED_EVENTS["codex"]
    assert cli(["install", "codex", "--uninstall"], client_env).returncode == 0
    assert not path.exists()


def test_project_scope_writes_into_the_project(tmp_path: Path, client_env: dict[str, str]) -> None:
    project = tmp_path / "repo"
    project.mkdir()
    for harness, (folder, name) in SETTINGS_PATHS.items():
        done = cli(["install", harness, "--scope", "project"], client_env, cwd=project)
        assert done.returncode == 0, done.stderr
        assert ours(json.loads((project / folder / name).read_text()))


def test_uninstall_removes_only_our_entry_from_a_shared_group(
    user_home: Path, client_env: dict[str, str]
) -> None:
    # Given the user added their own hook next to ours
    path = settings_file(user_home, "claude-code")
    cli(["install", "claude-code"], client_env)
    data = json.loads(path.read_text())
    data["hooks"]["UserPromptSubmit"][0]["hooks"].append({"type": "command", "command": "./mine.sh"})
    path.write_text(json.dumps(data, indent=2))

    cli(["install", "claude-code", "--uninstall"], client_env)

    left = json.loads(path.read_text())
    assert left["hooks"] == {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "./mine.sh"}]}]}


def test_install_merges_duplicates_of_ours_into_one(client_env: dict[str, str]) -> None:
    entry = {"type": "command", "command": "/old/bin/continuity hook user-prompt-submit", "timeout": 3}
    data = {"hooks": {"UserPromptSubmit": [{"hooks": [entry]}, {"hooks": [dict(entry), {"command": "x"}]}]}}

    merged = install.merge(data, "claude-code", "/new/continuity")

    assert merged["hooks"]["UserPromptSubmit"] == [
        {
            "hooks": [
                {
                    "type": "command",
                    "command": "/new/continuity hook user-prompt-submit --harness claude-code",
                    "timeout": install.HOOK_TIMEOUT_S,
                }
            ]
        },
        {"hooks": [{"command": "x"}]},
    ]


def test_invalid_json_is_left_alone(user_home: Path, client_env: dict[str, str]) -> None:
    path = settings_file(user_home, "gemini")
    path.write_text('{"hooks": {,}')
    done = cli(["install", "gemini"], client_env)
    assert done.returncode == 1
    assert "not valid JSON" in done.stderr
    assert path.read_text() == '{"hooks": {,}'


def test_the_installed_command_runs_the_hook(
    user_home: Path, client_env: dict[str, str], service: FakeService
) -> None:
    # Given hooks installed with the default command (this environment's continuity)
    cli(["install", "claude-code"], client_env)
    entry = ours(json.loads(settings_file(user_home, "claude-code").read_text()))["SessionStart"][0]
    service.answers["session-start"] = {"hookSpecificOutput": {"additionalContext": "ctx"}}

    # When Claude Code runs it through the shell
    done = subprocess.run(
        entry["command"],
        shell=True,
        input='{"session_id": "i-1", "source": "startup"}',
        capture_output=True,
        text=True,
        env=client_env,
        timeout=30,
    )

    # Then the hook reached the service and the context came back
    assert done.returncode == 0
    assert json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"] == "ctx"
    assert [plain(r.key) for r in service.requests] == ["i-1:session-start:1"]
