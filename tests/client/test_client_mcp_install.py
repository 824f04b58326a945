"""``continuity install`` registers ``continuity mcp`` per harness, and takes it away again exactly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from continuity_client.setup import mcp_install
from tests.client.client_support import run_cli as cli

pytest.importorskip("mcp")

CLAUDE_STATE = {
    "numStartups": 12,
    "mcpServers": {"github": {"type": "http", "url": "https://x"}},
    "projects": {},
}
CODEX_CONFIG = 'model = "gpt-5-codex"\n\n[mcp_servers.docs]\ncommand = "docs-mcp"\nargs = []\n'


def test_claude_code_project_scope_writes_the_projects_mcp_json(
    tmp_path: Path, client_env: dict[str, str]
) -> None:
    project = tmp_path / "repo"
    project.mkdir()

    done = cli(["install", "claude-code", "--scope", "project", "--project-dir", str(project)], client_env)

    assert done.returncode == 0, done.stderr
    config = json.loads((project / ".mcp.json").read_text())
    server = config["mcpServers"]["continuity"]
    # The committed file names no path of this machine: it runs `continuity` from the PATH, like the hooks
    assert server == {"type": "stdio", "command": "continuity", "args": ["mcp"], "env": server.get("env", {})}
    assert "approve `continuity`" in done.stdout


def test_a_project_install_says_when_continuity_is_not_on_this_machines_path(
    tmp_path: Path, client_env: dict[str, str]
) -> None:
    # Given a PATH without `continuity` on it
    project = tmp_path / "repo"
    project.mkdir()
    empty = tmp_path / "bin"
    empty.mkdir()

    # When the project-scope install runs
    done = cli(
        ["install", "claude-code", "--scope", "project", "--project-dir", str(project)],
        client_env | {"PATH": str(empty)},
    )

    # Then the server entry is still portable, and the installer says it cannot start here
    assert done.returncode == 0, done.stderr
    server = json.loads((project / ".mcp.json").read_text())["mcpServers"]["continuity"]
    assert server["command"] == "continuity"
    assert "the MCP server cannot start here" in done.stdout


def test_claude_code_user_scope_keeps_the_rest_of_claude_json_and_comes_back_byte_identical(
    client_env: dict[str, str],
) -> None:
    # Given Claude Code's own state file with another MCP server
    path = Path(client_env["HOME"]) / ".claude.json"
    original = (json.dumps(CLAUDE_STATE, indent=2) + "\n").encode()
    path.write_bytes(original)

    # When we install, then uninstall
    installed = cli(["install", "claude-code"], client_env)
    data = json.loads(path.read_text())
    removed = cli(["install", "claude-code", "--uninstall"], client_env)

    # Then ours sat beside the user's server, and the file came back as it was
    assert installed.returncode == removed.returncode == 0, installed.stderr + removed.stderr
    assert set(data["mcpServers"]) == {"github", "continuity"}
    assert data["numStartups"] == 12
    assert path.read_bytes() == original


def test_gemini_registers_in_its_settings_file_beside_the_hooks(client_env: dict[str, str]) -> None:
    done = cli(["install", "gemini"], client_env)

    settings = json.loads((Path(client_env["HOME"]) / ".gemini" / "settings.json").read_text())
    assert done.returncode == 0, done.stderr
    assert settings["mcpServers"]["continuity"]["args"] == ["mcp"]
    assert "BeforeAgent" in settings["hooks"]


def test_codex_gets_a_toml_table_and_the_rest_of_config_toml_stays(client_env: dict[str, str]) -> None:
    # Given a Codex config with another MCP server
    path = Path(client_env["HOME"]) / ".codex" / "config.toml"
    path.parent.mkdir(parents=True)
    path.write_text(CODEX_CONFIG)

    # When we install twice, then uninstall
    first = cli(["install", "codex"], client_env)
    installed = path.read_text()
    second = cli(["install", "codex"], client_env)
    removed = cli(["install", "codex", "--uninstall"], client_env)

    # Then our table was added once, after the user's, and removed exactly
    assert first.returncode == second.returncode == removed.returncode == 0
    assert installed.startswith(CODEX_CONFIG)
    assert installed.count("[mcp_servers.continuity]") == 1
    assert 'args = ["mcp"]' in installed
    assert "MCP server registered (no change)" in second.stdout
    assert path.read_text() == CODEX_CONFIG


def test_the_codex_table_is_parsed_as_toml(tmp_path: Path) -> None:
    tomllib = pytest.importorskip("tomllib")
    block = mcp_install.toml_block(['/opt/my tools/"continuity"', "mcp"])

    parsed = tomllib.loads(CODEX_CONFIG + "\n" + block)

    assert parsed["mcp_servers"]["continuity"] == {"command": '/opt/my tools/"continuity"', "args": ["mcp"]}
    assert parsed["mcp_servers"]["docs"]["command"] == "docs-mcp"


def test_no_mcp_leaves_the_mcp_config_alone(tmp_path: Path, client_env: dict[str, str]) -> None:
    project = tmp_path / "repo"
    project.mkdir()

    cli(
        ["install", "claude-code", "--scope", "project", "--project-dir", str(project), "--no-mcp"],
        client_env,
    )

    assert not (project / ".mcp.json").exists()
    assert (project / ".claude" / "settings.json").exists()


def test_a_given_command_is_what_the_harness_starts(tmp_path: Path, client_env: dict[str, str]) -> None:
    project = tmp_path / "repo"
    project.mkdir()

    cli(
        [
            "install",
            "claude-code",
            "--scope",
            "project",
            "--project-dir",
            str(project),
            "--command",
            "continuity",
        ],
        client_env,
    )

    server = json.loads((project / ".mcp.json").read_text())["mcpServers"]["continuity"]
    assert (server["command"], server["args"]) == ("continuity", ["mcp"])
