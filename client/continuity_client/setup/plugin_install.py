"""``continuity install opencode|openclaw``: point the harness at our plugin (or stop pointing at it).

OpenCode and OpenClaw run no command hooks; each loads JavaScript plugins. Ours ship inside this
package (``continuity_client/plugins``: ``opencode.js``, the OpenClaw plugin root with its
``openclaw.plugin.json``, and ``continuity-hook.mjs``, which both use to run ``continuity hook``)
and are loaded from there, not copied: upgrading the client upgrades the plugins, and install and
uninstall are edits of one JSON config file, with the same backups and byte-identical round trip
as the hooks (``install.apply_edit`` / ``install.revert_edit``).

| harness | user scope | project scope |
|---|---|---|
| OpenCode | ``$XDG_CONFIG_HOME/opencode/opencode.json`` (``~/.config``) | ``opencode.json`` (project root) |
| OpenClaw | ``$OPENCLAW_CONFIG_PATH``, else ``$OPENCLAW_STATE_DIR/openclaw.json`` (``~/.openclaw``) | - |

Our entries: OpenCode ``"plugin": [["file://…/plugins/opencode.js", {"command": [...]}]]``;
OpenClaw ``plugins.load.paths`` gets ``…/plugins`` and ``plugins.entries.continuity`` enables the
plugin, grants the conversation access ``before_prompt_build`` needs and holds ``config.command``.

The plugin's options carry the ``continuity`` command the hooks run (this installation's, as for
the command hooks). Our entries are recognised by the plugin's path, so a second install (from
another virtualenv, say) replaces ours instead of adding one.
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Mapping

from continuity_client.hook.harness import OPENCLAW, OPENCODE
from continuity_client.setup import install as installer
from continuity_client.setup import jsonfile

PLUGIN_ID = "continuity"
PLUGINS_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "plugins")
OPENCODE_PLUGIN = "opencode.js"
# How our entries end, whichever installation wrote them.
OPENCODE_MARK = "/continuity_client/plugins/" + OPENCODE_PLUGIN
OPENCLAW_MARK = "/continuity_client/plugins"


def config_path(harness: str, scope: str, project_dir: str | None, env: Mapping[str, str]) -> str:
    home = env.get("HOME") or os.path.expanduser("~")
    if harness == OPENCODE:
        if scope == "project":
            return os.path.join(os.path.abspath(project_dir or os.getcwd()), "opencode.json")
        base = env.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
        return os.path.join(base, "opencode", "opencode.json")
    if harness == OPENCLAW:
        if scope == "project":
            raise installer.InstallError(
                "OpenClaw's plugins are configured per user: use --scope user (or --file PATH)"
            )
        if env.get("OPENCLAW_CONFIG_PATH"):
            return env["OPENCLAW_CONFIG_PATH"]
        state = env.get("OPENCLAW_STATE_DIR") or os.path.join(home, ".openclaw")
        return os.path.join(state, "openclaw.json")
    raise installer.InstallError(f"{harness!r} takes no plugin")


def command_argv(command: str | None = None) -> list[str]:
    """The command the plugin runs ``hook`` with, as an argv (the plugin spawns it, no shell)."""
    return shlex.split(command or installer.default_hook_command())


def opencode_spec() -> str:
    return "file://" + plugin_file(OPENCODE)


def plugin_file(harness: str) -> str:
    """The file the harness loads: OpenCode's plugin, OpenClaw's manifest (its folder is the plugin)."""
    return os.path.join(PLUGINS_DIR, OPENCODE_PLUGIN if harness == OPENCODE else "openclaw.plugin.json")


def _is_ours_opencode(entry: object) -> bool:
    spec = entry[0] if isinstance(entry, list) and entry else entry
    return isinstance(spec, str) and spec.replace("\\", "/").endswith(OPENCODE_MARK)


def _is_ours_openclaw_path(entry: object) -> bool:
    return isinstance(entry, str) and entry.replace("\\", "/").rstrip("/").endswith(OPENCLAW_MARK)


def _dict(value: object) -> dict:
    return value if isinstance(value, dict) else {}


def _object(data: dict, key: str, where: str) -> dict:
    value = data.setdefault(key, {})
    if not isinstance(value, dict):
        raise installer.InstallError(f'"{where}" in the config file is not an object; fix it by hand first')
    return value


def _list(data: dict, key: str, where: str) -> list:
    value = data.setdefault(key, [])
    if not isinstance(value, list):
        raise installer.InstallError(f'"{where}" in the config file is not a list; fix it by hand first')
    return value


def merge(data: dict, harness: str, argv: list[str]) -> dict:
    """A copy of ``data`` with our plugin entries present exactly once, everything else untouched."""
    result = json.loads(json.dumps(data))
    if harness == OPENCODE:
        plugins = _list(result, "plugin", "plugin")
        wanted = [opencode_spec(), {"command": argv}]
        kept = [entry for entry in plugins if not _is_ours_opencode(entry)]
        at = next((i for i, entry in enumerate(plugins) if _is_ours_opencode(entry)), len(kept))
        result["plugin"] = [*kept[:at], wanted, *kept[at:]]
        return result
    section = _object(result, "plugins", "plugins")
    load = _object(section, "load", "plugins.load")
    paths = _list(load, "paths", "plugins.load.paths")
    kept = [entry for entry in paths if not _is_ours_openclaw_path(entry)]
    at = next((i for i, entry in enumerate(paths) if _is_ours_openclaw_path(entry)), len(kept))
    load["paths"] = [*kept[:at], PLUGINS_DIR, *kept[at:]]
    entries = _object(section, "entries", "plugins.entries")
    entry = dict(_dict(entries.get(PLUGIN_ID)))
    # before_prompt_build reads the prompt and adds context: both need the operator's grant.
    entry["enabled"] = True
    grants = {"allowConversationAccess": True, "allowPromptInjection": True}
    entry["hooks"] = {**_dict(entry.get("hooks")), **grants}
    entry["config"] = {**_dict(entry.get("config")), "command": argv}
    entries[PLUGIN_ID] = entry
    return result


def strip(data: dict, harness: str) -> dict:
    """A copy of ``data`` without our entries (and without containers only ours filled)."""
    result = json.loads(json.dumps(data))
    if harness == OPENCODE:
        plugins = result.get("plugin")
        if isinstance(plugins, list):
            kept = [entry for entry in plugins if not _is_ours_opencode(entry)]
            if kept:
                result["plugin"] = kept
            else:
                del result["plugin"]
        return result
    section = result.get("plugins")
    if not isinstance(section, dict):
        return result
    load = section.get("load")
    if isinstance(load, dict) and isinstance(load.get("paths"), list):
        load["paths"] = [entry for entry in load["paths"] if not _is_ours_openclaw_path(entry)]
        _drop_if_empty(load, "paths")
        _drop_if_empty(section, "load")
    entries = section.get("entries")
    if isinstance(entries, dict):
        entries.pop(PLUGIN_ID, None)
        _drop_if_empty(section, "entries")
    _drop_if_empty(result, "plugins")
    return result


def _drop_if_empty(container: dict, key: str) -> None:
    if container.get(key) in ({}, []):
        del container[key]


def install(path: str, harness: str, env: Mapping[str, str], command: str | None = None) -> installer.Result:
    argv = command_argv(command)

    def edit(data: dict) -> dict:
        return merge(data, harness, argv)

    return installer.apply_edit(path, harness, env, edit, "plugin installed")


def uninstall(path: str, harness: str, env: Mapping[str, str]) -> installer.Result:
    def edit(data: dict) -> dict:
        return strip(data, harness)

    return installer.revert_edit(path, harness, env, edit, "plugin uninstalled")


def installed_command(path: str, harness: str) -> list[str] | None:
    """The command our entry in the file runs (for ``doctor``); None when the plugin is not there."""
    try:
        data, _, _ = jsonfile.read(path)
    except (OSError, ValueError):
        return None
    if harness == OPENCODE:
        plugins = data.get("plugin")
        for entry in plugins if isinstance(plugins, list) else []:
            if _is_ours_opencode(entry):
                options = entry[1] if isinstance(entry, list) and len(entry) > 1 else {}
                command = options.get("command") if isinstance(options, dict) else None
                return command if isinstance(command, list) else []
        return None
    entry = _dict(_dict(data.get("plugins")).get("entries")).get(PLUGIN_ID)
    if not isinstance(entry, dict):
        return None
    command = _dict(entry.get("config")).get("command")
    return command if isinstance(command, list) else []


def notes(harness: str) -> list[str]:
    if harness == OPENCODE:
        return [
            "restart OpenCode so it loads the plugin (it needs no build step: plain JavaScript).",
            "the plugin reads each session from OpenCode itself and keeps a copy in "
            "~/.continuity/opencode/ for the transcript.",
        ]
    return [
        "OpenClaw reloads plugin config itself (hybrid reload); else `openclaw plugins reload continuity`.",
        "check it with `openclaw plugins inspect continuity --runtime --json`.",
    ]
