"""Register ``continuity mcp`` with each harness (or remove it), next to the hooks.

| harness | user scope | project scope |
|---|---|---|
| Claude Code | ``~/.claude.json`` (``mcpServers``) | ``.mcp.json`` at the project root |
| Gemini CLI | ``~/.gemini/settings.json`` (``mcpServers``) | ``.gemini/settings.json`` |
| Codex | ``$CODEX_HOME/config.toml`` | ``.codex/config.toml`` |
| OpenCode | ``~/.config/opencode/opencode.json`` (``mcp``) | ``opencode.json`` |
| OpenClaw | ``~/.openclaw/openclaw.json`` (``mcp.servers``) | (per user only) |

Claude Code's entry is ``{"type": "stdio", "command", "args", "env"}``, Gemini CLI's and OpenClaw's
``{"command", "args"}``, OpenCode's ``{"type": "local", "command": [argv], "enabled": true}``,
Codex's a ``[mcp_servers.continuity]`` table with ``command`` and ``args``.

A project-scope file is committed and shared, so its entry runs ``continuity`` from the PATH, like
the project's hooks (``install``), not this machine's absolute path to it.

The server is registered under the name ``continuity``; an entry of that name is ours. JSON files
keep their formatting (``jsonfile``); the TOML table is edited as text, leaving the rest of the
file as it was. Backups and the byte-identical round trip work as for the hooks (``install``).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
from collections.abc import Mapping

from continuity_client.hook.harness import CLAUDE_CODE, CODEX, GEMINI, OPENCLAW, OPENCODE
from continuity_client.setup import install as installer
from continuity_client.setup import jsonfile, plugin_install

SERVER_NAME = "continuity"
TOML_HEADER = re.compile(r"""^\s*\[\s*mcp_servers\s*\.\s*(?:"continuity"|'continuity'|continuity)\s*[\].]""")
TOML_ANY_HEADER = re.compile(r"^\s*\[")


def sdk_available() -> bool:
    """Whether ``continuity mcp`` can run here (the ``mcp`` extra is installed)."""
    import importlib.util

    return importlib.util.find_spec("mcp") is not None


def config_path(harness: str, scope: str, project_dir: str | None, env: Mapping[str, str]) -> str:
    home = env.get("HOME") or os.path.expanduser("~")
    root = os.path.abspath(project_dir or os.getcwd())
    if harness == CLAUDE_CODE:
        return os.path.join(root, ".mcp.json") if scope == "project" else os.path.join(home, ".claude.json")
    if harness == GEMINI:
        return installer.settings_path(harness, scope, project_dir, env)
    if harness == CODEX:
        if scope == "project":
            return os.path.join(root, ".codex", "config.toml")
        return os.path.join(env.get("CODEX_HOME") or os.path.join(home, ".codex"), "config.toml")
    if harness in (OPENCODE, OPENCLAW):
        return plugin_install.config_path(harness, scope, project_dir, env)
    raise installer.InstallError(f"unknown harness {harness!r}")


# Where each harness keeps its MCP servers in its JSON config (Codex: TOML, below).
SERVERS_AT = {OPENCODE: ("mcp",), OPENCLAW: ("mcp", "servers")}


def server_argv(command: str | None = None) -> list[str]:
    """The command line that starts our MCP server: this installation's ``continuity mcp``."""
    if command:
        return [*shlex.split(command), "mcp"]
    beside = os.path.join(os.path.dirname(sys.executable), "continuity")
    if os.access(beside, os.X_OK):
        return [beside, "mcp"]
    import shutil

    found = shutil.which("continuity")
    if found:
        return [os.path.abspath(found), "mcp"]
    return [sys.executable, "-m", "continuity_client", "mcp"]


def entry(harness: str, argv: list[str]) -> dict:
    if harness == CLAUDE_CODE:
        return {"type": "stdio", "command": argv[0], "args": argv[1:], "env": {}}
    if harness == OPENCODE:
        return {"type": "local", "command": argv, "enabled": True}
    return {"command": argv[0], "args": argv[1:]}


def _with_server(data: dict, harness: str, argv: list[str]) -> dict:
    merged = json.loads(json.dumps(data))
    servers = merged
    where = ""
    for key in SERVERS_AT.get(harness, ("mcpServers",)):
        where = f"{where}.{key}" if where else key
        servers = servers.setdefault(key, {})
        if not isinstance(servers, dict):
            raise installer.InstallError(f'"{where}" in the config file is not an object; fix it by hand')
    servers[SERVER_NAME] = entry(harness, argv)
    return merged


def _without_server(data: dict, harness: str) -> dict:
    """Ours removed, and each container that held only ours with it."""
    stripped = json.loads(json.dumps(data))
    path = SERVERS_AT.get(harness, ("mcpServers",))
    chain = [stripped]
    for key in path:
        found = chain[-1].get(key)
        if not isinstance(found, dict):
            return stripped
        chain.append(found)
    if SERVER_NAME not in chain[-1]:
        return stripped
    del chain[-1][SERVER_NAME]
    for key, container in zip(reversed(path), reversed(chain[:-1]), strict=True):
        if container[key]:
            break
        del container[key]
    return stripped


def install(
    path: str, harness: str, env: Mapping[str, str], command: str | None = None, portable: bool = False
) -> installer.Result:
    """Register the server in ``path``. ``portable`` (a project file shared with a team): it runs
    ``continuity`` from the PATH (or ``command``), as the project's hooks do, never this machine's
    path to it."""
    argv = server_argv(command or (installer.PORTABLE_COMMAND if portable else None))
    if harness == CODEX:
        return _install_toml(path, argv, env)

    def edit(data: dict) -> dict:
        return _with_server(data, harness, argv)

    return installer.apply_edit(path, harness, env, edit, "MCP server registered")


def uninstall(path: str, harness: str, env: Mapping[str, str]) -> installer.Result:
    if harness == CODEX:
        return _uninstall_toml(path, env)

    def edit(data: dict) -> dict:
        return _without_server(data, harness)

    return installer.revert_edit(path, harness, env, edit, "MCP server unregistered")


# ---------------------------------------------------------------------------------------------
# Codex: one TOML table, edited as text
# ---------------------------------------------------------------------------------------------


def toml_block(argv: list[str]) -> str:
    """TOML basic strings accept JSON's escapes, so json.dumps quotes them correctly."""
    args = ", ".join(json.dumps(a, ensure_ascii=False) for a in argv[1:])
    return (
        f"[mcp_servers.{SERVER_NAME}]\ncommand = {json.dumps(argv[0], ensure_ascii=False)}\nargs = [{args}]\n"
    )


def split_toml(text: str) -> tuple[str, str, str]:
    """(before our table, our table and its sub-tables, after); the middle is '' when absent."""
    lines = text.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if TOML_HEADER.match(line)), None)
    if start is None:
        return text, "", ""
    end = start + 1
    while end < len(lines) and not (TOML_ANY_HEADER.match(lines[end]) and not TOML_HEADER.match(lines[end])):
        end += 1
    return "".join(lines[:start]), "".join(lines[start:end]), "".join(lines[end:])


def _read_text(path: str) -> tuple[str, bytes | None]:
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except FileNotFoundError:
        return "", None
    except OSError as error:
        raise installer.InstallError(f"cannot read {path}: {error}") from None
    return raw.decode("utf-8"), raw


def _install_toml(path: str, argv: list[str], env: Mapping[str, str]) -> installer.Result:
    text, original = _read_text(path)
    before, ours, after = split_toml(text)
    block = toml_block(argv)
    if ours.strip() == block.strip() and original is not None:
        return installer.Result(path, "MCP server registered", changed=False)
    if ours:
        updated = before + block + ("\n" if after else "") + after
    else:
        separator = "" if not text else ("\n" if text.endswith("\n") else "\n\n")
        updated = text + separator + block
    saved = installer.backup(path, original, CODEX, env)
    jsonfile.write_bytes(path, updated.encode("utf-8"))
    return installer.Result(path, "MCP server registered", changed=True, backup=saved)


def _uninstall_toml(path: str, env: Mapping[str, str]) -> installer.Result:
    text, original = _read_text(path)
    before, ours, after = split_toml(text)
    if original is None or not ours:
        return installer.Result(path, "MCP server unregistered", changed=False)
    saved = installer.backup(path, original, CODEX, env)
    if not after and before.endswith("\n\n"):
        before = before[:-1]  # the blank line install put before the table
    remaining = before + after
    pristine = _pristine_text(path, remaining, env)
    if pristine == b"" or (pristine is None and not remaining.strip()):
        installer.remove_created(path, env)
    else:
        jsonfile.write_bytes(path, pristine if pristine is not None else remaining.encode("utf-8"))
    return installer.Result(path, "MCP server unregistered", changed=True, backup=saved)


def _pristine_text(path: str, text: str, env: Mapping[str, str]) -> bytes | None:
    """The newest backup with this text (b"" when the file had not existed)."""
    for candidate in installer._backups_for(path, env):
        if candidate.endswith(".absent"):
            if not text.strip():
                return b""
            continue
        try:
            with open(candidate, "rb") as handle:
                raw = handle.read()
        except OSError:
            continue
        if raw.decode("utf-8", "replace").strip() == text.strip():
            return raw
    return None


def notes(harness: str, scope: str) -> list[str]:
    if harness == CLAUDE_CODE and scope == "project":
        return ["Claude Code asks once before it starts a server from .mcp.json: approve `continuity`."]
    if harness == CLAUDE_CODE:
        return ["Claude Code rewrites ~/.claude.json while it runs: install with Claude Code closed."]
    if harness == CODEX and scope == "project":
        return ["Codex reads .codex/config.toml only in a trusted project."]
    return []
