"""``continuity install opencode|openclaw``: the harness's config points at our plugin, the user's
config is otherwise untouched, install is idempotent and uninstall gives the file back byte for byte."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from continuity_client.setup import plugin_install
from tests.client.client_support import run_cli as cli

OPENCODE_CONFIG: dict[str, Any] = {
    "$schema": "https://opencode.ai/config.json",
    "model": "anthropic/claude-sonnet-4-5",
    "plugin": ["opencode-wakatime", ["./plugins/mine.ts", {"level": 2}]],
    "mcp": {"docs": {"type": "remote", "url": "https://docs.example/mcp"}},
}
OPENCLAW_CONFIG: dict[str, Any] = {
    "agents": {"defaults": {"workspace": "~/.openclaw/workspace"}},
    "plugins": {
        "load": {"paths": ["/opt/plugins/hook-demo"]},
        "entries": {"hook-demo": {"enabled": True, "hooks": {"allowConversationAccess": True}}},
    },
}
NO_MCP = ["--no-mcp"]


def opencode_file(env: dict[str, str]) -> Path:
    return Path(env["HOME"]) / ".config" / "opencode" / "opencode.json"


def openclaw_file(env: dict[str, str]) -> Path:
    return Path(env["HOME"]) / ".openclaw" / "openclaw.json"


def ours(config: dict) -> list:
    return [entry for entry in config.get("plugin", []) if plugin_install._is_ours_opencode(entry)]


def test_opencode_install_points_at_the_shipped_plugin_with_this_continuity(
    client_env: dict[str, str],
) -> None:
    done = cli(["install", "opencode", *NO_MCP], client_env)

    assert done.returncode == 0, done.stderr
    [[spec, options]] = ours(json.loads(opencode_file(client_env).read_text()))
    assert spec.startswith("file://") and Path(spec[len("file://") :]).is_file()
    assert Path(options["command"][0]).name in ("continuity", Path(sys.executable).name)
    assert "restart OpenCode" in done.stdout


@pytest.mark.parametrize(
    ("harness", "locate", "original"),
    [("opencode", opencode_file, OPENCODE_CONFIG), ("openclaw", openclaw_file, OPENCLAW_CONFIG)],
)
def test_install_twice_then_uninstall_twice_gives_the_users_file_back_byte_identical(
    client_env: dict[str, str], harness: str, locate, original: dict
) -> None:
    # Given the user's own config, with their plugins
    path = locate(client_env)
    path.parent.mkdir(parents=True)
    before = (json.dumps(original, indent=4, ensure_ascii=False) + "\n").encode()
    path.write_bytes(before)

    # When we install twice and uninstall twice (the second time by its own name)
    first = cli(["install", harness, *NO_MCP], client_env)
    installed = path.read_bytes()
    second = cli(["install", harness, *NO_MCP], client_env)
    removed = cli(["install", harness, "--uninstall", *NO_MCP], client_env)
    again = cli(["uninstall", harness, *NO_MCP], client_env)

    # Then the second install changed nothing, and the file came back as it was
    assert [c.returncode for c in (first, second, removed, again)] == [0, 0, 0, 0], (
        first.stderr + removed.stderr
    )
    assert "already plugin installed (no change)" in second.stdout
    assert "already plugin uninstalled (no change)" in again.stdout
    assert path.read_bytes() == before
    # And while installed, the user's entries sat beside ours
    config = json.loads(installed)
    if harness == "opencode":
        assert config["plugin"][:2] == OPENCODE_CONFIG["plugin"] and len(ours(config)) == 1
        assert config["mcp"] == OPENCODE_CONFIG["mcp"]
    else:
        paths = config["plugins"]["load"]["paths"]
        assert paths[0] == "/opt/plugins/hook-demo" and Path(paths[1], "openclaw.plugin.json").is_file()
        entry = config["plugins"]["entries"]["continuity"]
        assert entry["enabled"] is True
        assert entry["hooks"] == {"allowConversationAccess": True, "allowPromptInjection": True}
        assert config["plugins"]["entries"]["hook-demo"] == OPENCLAW_CONFIG["plugins"]["entries"]["hook-demo"]


@pytest.mark.parametrize(("harness", "locate"), [("opencode", opencode_file), ("openclaw", openclaw_file)])
def test_a_config_that_install_created_is_gone_after_uninstall(
    client_env: dict[str, str], harness: str, locate
) -> None:
    assert cli(["install", harness, *NO_MCP], client_env).returncode == 0
    assert locate(client_env).exists()

    assert cli(["uninstall", harness, *NO_MCP], client_env).returncode == 0

    assert not locate(client_env).exists()


def test_an_install_from_another_client_replaces_ours_instead_of_adding_one() -> None:
    # Given a config where an older installation (another virtualenv) registered the plugin
    old = [
        "file:///old/venv/lib/python3.12/site-packages/continuity_client/plugins/opencode.js",
        {"command": ["x"]},
    ]
    config = {"plugin": ["a", old, "b"]}

    merged = plugin_install.merge(config, "opencode", ["/new/continuity"])

    assert merged["plugin"] == ["a", [plugin_install.opencode_spec(), {"command": ["/new/continuity"]}], "b"]


def test_opencode_project_scope_writes_the_projects_opencode_json(
    tmp_path: Path, client_env: dict[str, str]
) -> None:
    project = tmp_path / "repo"
    project.mkdir()

    done = cli(
        ["install", "opencode", "--scope", "project", "--project-dir", str(project), *NO_MCP], client_env
    )

    assert done.returncode == 0, done.stderr
    assert len(ours(json.loads((project / "opencode.json").read_text()))) == 1
    assert not opencode_file(client_env).exists()


def test_openclaw_has_no_project_scope_and_says_so(client_env: dict[str, str]) -> None:
    done = cli(["install", "openclaw", "--scope", "project", *NO_MCP], client_env)

    assert done.returncode == 1
    assert "per user" in done.stderr


def test_openclaw_honours_its_state_dir(tmp_path: Path, client_env: dict[str, str]) -> None:
    state = tmp_path / "claw-state"

    done = cli(["install", "openclaw", *NO_MCP], {**client_env, "OPENCLAW_STATE_DIR": str(state)})

    assert done.returncode == 0, done.stderr
    assert "continuity" in json.loads((state / "openclaw.json").read_text())["plugins"]["entries"]


def test_a_config_that_is_not_plain_json_is_left_alone_with_a_clear_message(
    client_env: dict[str, str],
) -> None:
    # OpenClaw reads JSON5: comments and trailing commas, which we do not rewrite
    path = openclaw_file(client_env)
    path.parent.mkdir(parents=True)
    path.write_text("{\n  // my gateway\n  agents: {},\n}\n")

    done = cli(["install", "openclaw", *NO_MCP], client_env)

    assert done.returncode == 1
    assert "is not valid JSON" in done.stderr and "nothing changed" in done.stderr
    assert path.read_text() == "{\n  // my gateway\n  agents: {},\n}\n"


def test_doctor_reports_the_installed_plugin(client_env: dict[str, str]) -> None:
    assert cli(["install", "opencode", *NO_MCP], client_env).returncode == 0

    done = cli(["doctor"], client_env)

    assert "[ok] opencode (user):" in done.stdout and "(plugin)" in done.stdout
    assert "no hooks installed" not in done.stdout


@pytest.mark.parametrize(
    ("harness", "locate", "servers"),
    [("opencode", opencode_file, ("mcp",)), ("openclaw", openclaw_file, ("mcp", "servers"))],
)
def test_the_mcp_server_is_registered_beside_the_plugin_and_removed_with_it(
    client_env: dict[str, str], harness: str, locate, servers: tuple[str, ...]
) -> None:
    pytest.importorskip("mcp")

    installed = cli(["install", harness], client_env)
    config = json.loads(locate(client_env).read_text())
    removed = cli(["uninstall", harness], client_env)

    assert installed.returncode == removed.returncode == 0, installed.stderr + removed.stderr
    entry = config
    for key in servers:
        entry = entry[key]
    server = entry["continuity"]
    argv = server["command"] if harness == "opencode" else [server["command"], *server["args"]]
    assert argv[-1] == "mcp"
    if harness == "opencode":
        assert server["type"] == "local" and server["enabled"] is True
    assert not locate(client_env).exists()


def test_every_plugin_file_ships_in_the_client_package() -> None:
    # A file the package-data globs miss would be absent from a wheel install (pipx), not from a checkout
    import fnmatch
    import tomllib

    pyproject = Path(plugin_install.PLUGINS_DIR).parents[1] / "pyproject.toml"
    globs = tomllib.loads(pyproject.read_text())["tool"]["setuptools"]["package-data"]["continuity_client"]

    files = [f"plugins/{path.name}" for path in Path(plugin_install.PLUGINS_DIR).iterdir() if path.is_file()]

    assert files and all(any(fnmatch.fnmatch(name, glob) for glob in globs) for name in files)
