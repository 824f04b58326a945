"""``continuity install``: merge our hook entries into a harness's settings file, or remove them.

All three harnesses share one shape: ``{"hooks": {"<Event>": [{"matcher": ..., "hooks": [<hook>]}]}}``
with ``<hook> = {"type": "command", "command": ..., "timeout": ...}``. They differ in file
location, event names and the unit of ``timeout`` (seconds for Claude Code and Codex,
milliseconds for Gemini CLI).

A project-scope file is shared with the team, so its entries run ``continuity`` from the PATH, not
this machine's path to it, and do nothing where it is not installed:
``command -v continuity >/dev/null 2>&1 || exit 0; continuity hook <event> --harness <h>`` (the
harnesses run hook commands through a shell).

Our entries are recognised by their command (``... continuity hook <event> ...``), so install is
idempotent (an entry of ours is updated in place, never duplicated) and uninstall removes
exactly ours, leaving every other key, group and hook of the user's file as it was. Before any
change the original bytes are copied to ``$CONTINUITY_HOME/backups/``; when an uninstall brings
the file back to the content of such a backup, the backup's bytes are restored, so an
install/uninstall round trip is byte-identical.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import sys
import time
from collections.abc import Callable, Mapping

from continuity_client.hook.harness import CLAUDE_CODE, CODEX, GEMINI, HARNESS_EVENTS
from continuity_client.setup import config, jsonfile

HOOK_TIMEOUT_S = 10  # the harness's limit; our own deadline (2-4 s) ends the hook well before
# Claude Code's SessionStart sources; ``fork`` is a /branch or --fork-session (a forked session
# that reported ``resume`` in older versions), matched so its start links to the session it forks.
SESSION_START_MATCHER = {CLAUDE_CODE: "startup|resume|clear|compact|fork"}
PORTABLE_COMMAND = "continuity"
OURS = re.compile(
    r"""(?:^|[\s/\\"'])(?:continuity(?:\.exe)?|-m\s+continuity_client|continuity_client[/\\]hook_main\.py)["']?\s+hook\s"""
)
BACKUP_DIR = "backups"


class InstallError(Exception):
    pass


class Result:
    def __init__(self, path: str, action: str, changed: bool, backup: str | None = None) -> None:
        self.path, self.action, self.changed, self.backup = path, action, changed, backup

    def describe(self) -> str:
        if not self.changed:
            return f"{self.path}: already {self.action} (no change)"
        suffix = f"; backup in {self.backup}" if self.backup else ""
        return f"{self.path}: {self.action}{suffix}"


def settings_path(harness: str, scope: str, project_dir: str | None, env: Mapping[str, str]) -> str:
    home = env.get("HOME") or os.path.expanduser("~")
    root = os.path.abspath(project_dir or os.getcwd())
    if harness == CLAUDE_CODE:
        base = root if scope == "project" else home
        return os.path.join(base, ".claude", "settings.json")
    if harness == CODEX:
        if scope == "project":
            return os.path.join(root, ".codex", "hooks.json")
        return os.path.join(env.get("CODEX_HOME") or os.path.join(home, ".codex"), "hooks.json")
    if harness == GEMINI:
        base = root if scope == "project" else home
        return os.path.join(base, ".gemini", "settings.json")
    raise InstallError(f"unknown harness {harness!r}")


def default_command() -> str:
    """This installation's ``continuity`` (absolute), so hooks work without it on the harness's PATH."""
    beside = os.path.join(os.path.dirname(sys.executable), "continuity")
    if os.access(beside, os.X_OK):
        return shlex.quote(beside)
    import shutil

    found = shutil.which("continuity")
    if found:
        return shlex.quote(os.path.abspath(found))
    return f"{shlex.quote(sys.executable)} -m continuity_client"


def default_hook_command() -> str:
    """What this installation's hooks run: its interpreter on ``hook_main.py`` with ``-I -S`` (a
    third of Python's start-up saved on every prompt; see there), else ``default_command()``."""
    launcher = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "hook_main.py")
    if sys.executable and os.path.isfile(launcher):
        return f"{shlex.quote(sys.executable)} -I -S {shlex.quote(launcher)}"
    return default_command()


def hook_command(command: str, event: str, harness: str, portable: bool = False) -> str:
    """The command of one hook entry; ``portable`` (a project file): skipped where not installed."""
    run = f"{command} hook {event} --harness {harness}"
    return f"command -v {command} >/dev/null 2>&1 || exit 0; {run}" if portable else run


def is_ours(entry: object) -> bool:
    if not isinstance(entry, dict):
        return False
    command = entry.get("command")
    return isinstance(command, str) and OURS.search(command) is not None


def desired_entries(harness: str, command: str, portable: bool = False) -> dict[str, tuple[str | None, dict]]:
    """Harness event -> (matcher or None, our hook entry)."""
    out: dict[str, tuple[str | None, dict]] = {}
    for event, name in HARNESS_EVENTS[harness].items():
        hook: dict = {"type": "command", "command": hook_command(command, event, harness, portable)}
        if harness == GEMINI:
            hook = {"name": f"continuity-{event}", **hook, "timeout": HOOK_TIMEOUT_S * 1000}
            hook["description"] = f"Continuity: {event.replace('-', ' ')}"
        else:
            hook["timeout"] = HOOK_TIMEOUT_S
        matcher = SESSION_START_MATCHER.get(harness) if event == "session-start" else None
        out[name] = (matcher, hook)
    return out


def merge(data: dict, harness: str, command: str, portable: bool = False) -> dict:
    """A copy of ``data`` with our entries present exactly once per event, others untouched."""
    result = json.loads(json.dumps(data))
    hooks = result.get("hooks")
    if hooks is None:
        hooks = result["hooks"] = {}
    if not isinstance(hooks, dict):
        raise InstallError('"hooks" in the settings file is not an object; fix it by hand first')
    wanted = desired_entries(harness, command, portable)
    for name in list(hooks):
        if name not in wanted:
            _remove_ours(hooks, name)
    for name, (matcher, hook) in wanted.items():
        groups = hooks.setdefault(name, [])
        if not isinstance(groups, list):
            raise InstallError(f'"hooks.{name}" in the settings file is not a list; fix it by hand first')
        placed = False
        emptied: list[dict] = []
        for group in groups:
            if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
                continue
            entries = group["hooks"]
            for index in [i for i, entry in enumerate(entries) if is_ours(entry)]:
                if placed:
                    entries[index] = None  # a duplicate of ours: removed below
                    continue
                entries[index] = hook
                _set_matcher(group, matcher)
                placed = True
            if None in entries:
                group["hooks"] = [entry for entry in entries if entry is not None]
                if not group["hooks"]:
                    emptied.append(group)
        if emptied:
            hooks[name] = [group for group in groups if all(group is not gone for gone in emptied)]
        if not placed:
            group = {"matcher": matcher, "hooks": [hook]} if matcher is not None else {"hooks": [hook]}
            hooks[name].append(group)
    return result


def _set_matcher(group: dict, matcher: str | None) -> None:
    if matcher is not None:
        group["matcher"] = matcher


def _remove_ours(hooks: dict, name: str) -> bool:
    groups = hooks.get(name)
    if not isinstance(groups, list):
        return False
    removed = False
    kept_groups = []
    for group in groups:
        if isinstance(group, dict) and isinstance(group.get("hooks"), list):
            kept = [entry for entry in group["hooks"] if not is_ours(entry)]
            if len(kept) != len(group["hooks"]):
                removed = True
                if not kept:
                    continue
                group["hooks"] = kept
        kept_groups.append(group)
    if removed:
        if kept_groups:
            hooks[name] = kept_groups
        else:
            del hooks[name]
    return removed


def strip(data: dict) -> dict:
    """A copy of ``data`` without any entry of ours (and without containers only ours filled)."""
    result = json.loads(json.dumps(data))
    hooks = result.get("hooks")
    if not isinstance(hooks, dict):
        return result
    removed = False
    for name in list(hooks):
        removed = _remove_ours(hooks, name) or removed
    if removed and not hooks:
        del result["hooks"]
    return result


def installed_events(path: str) -> list[str]:
    """Harness event names that have an entry of ours in the file (for ``doctor``)."""
    try:
        data, _, _ = jsonfile.read(path)
    except (OSError, ValueError):
        return []
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return []
    found = []
    for name, groups in hooks.items():
        for group in groups if isinstance(groups, list) else []:
            if isinstance(group, dict) and any(is_ours(entry) for entry in group.get("hooks") or []):
                found.append(name)
                break
    return found


def our_commands(path: str) -> list[str]:
    try:
        data, _, _ = jsonfile.read(path)
    except (OSError, ValueError):
        return []
    commands = []
    hooks = data.get("hooks")
    for groups in hooks.values() if isinstance(hooks, dict) else []:
        for group in groups if isinstance(groups, list) else []:
            entries = group.get("hooks") if isinstance(group, dict) else None
            for entry in entries if isinstance(entries, list) else []:
                if is_ours(entry):
                    commands.append(entry["command"])
    return commands


# ---------------------------------------------------------------------------------------------
# backups
# ---------------------------------------------------------------------------------------------


def _backup_dir(env: Mapping[str, str]) -> str:
    return os.path.join(config.home_dir(env), BACKUP_DIR)


def _path_tag(path: str) -> str:
    return hashlib.sha256(os.path.abspath(path).encode("utf-8")).hexdigest()[:12]


def backup(path: str, original: bytes | None, harness: str, env: Mapping[str, str]) -> str:
    """Copy the file's bytes (or a marker that it did not exist) to the backup folder."""
    directory = _backup_dir(env)
    os.makedirs(directory, mode=0o700, exist_ok=True)
    now = time.time()  # names sort by time: the newest backup is tried first on uninstall
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(now)) + f"-{int(now * 1e6) % 1_000_000:06d}"
    suffix = ".json" if original is not None else ".absent"
    target = os.path.join(directory, f"{stamp}-{harness}-{_path_tag(path)}{suffix}")
    with open(target, "wb") as handle:
        handle.write(original or b"")
    with open(target + ".path", "w", encoding="utf-8") as handle:
        handle.write(os.path.abspath(path) + "\n")
        # The folders the file's write is about to create: uninstall removes them again when empty.
        handle.writelines(f"{CREATED_DIR}{d}\n" for d in _missing_dirs(path) if original is None)
    return target


CREATED_DIR = "created-dir: "


def _missing_dirs(path: str) -> list[str]:
    """The folders above ``path`` that do not exist yet, deepest first."""
    missing = []
    directory = os.path.dirname(os.path.abspath(path))
    while directory and not os.path.exists(directory) and directory != os.path.dirname(directory):
        missing.append(directory)
        directory = os.path.dirname(directory)
    return missing


def remove_created(path: str, env: Mapping[str, str]) -> None:
    """``path`` gone, and the folders above it that an install created, while they are empty (a
    user's file in one keeps it; a folder that was there before install was never recorded)."""
    os.unlink(path)
    above = os.path.abspath(path)
    created: set[str] = set()
    directory = _backup_dir(env)
    try:
        names = [n for n in os.listdir(directory) if n.endswith(".absent.path")]
    except OSError:
        names = []
    for name in names:
        try:
            with open(os.path.join(directory, name), encoding="utf-8") as handle:
                lines = [line.rstrip("\n") for line in handle]
        except OSError:
            continue
        created.update(line[len(CREATED_DIR) :] for line in lines if line.startswith(CREATED_DIR))
    for folder in sorted((d for d in created if above.startswith(d + os.sep)), key=len, reverse=True):
        try:
            os.rmdir(folder)
        except OSError:
            continue  # not empty, or already gone


def _backups_for(path: str, env: Mapping[str, str]) -> list[str]:
    directory = _backup_dir(env)
    tag = _path_tag(path)
    try:
        names = sorted(os.listdir(directory), reverse=True)
    except OSError:
        return []
    return [os.path.join(directory, n) for n in names if tag in n and n.endswith((".json", ".absent"))]


def _pristine(path: str, data: dict, env: Mapping[str, str]) -> bytes | None:
    """Bytes of the newest backup whose content equals ``data``; b"" if the file had not existed."""
    for candidate in _backups_for(path, env):
        if candidate.endswith(".absent"):
            if not data:
                return b""
            continue
        try:
            with open(candidate, "rb") as handle:
                raw = handle.read()
            if json.loads(raw.decode("utf-8-sig") or "{}") == data:
                return raw
        except (OSError, ValueError):
            continue
    return None


# ---------------------------------------------------------------------------------------------
# install / uninstall
# ---------------------------------------------------------------------------------------------


def _read(path: str) -> tuple[dict, jsonfile.Style, bytes | None]:
    try:
        return jsonfile.read(path)
    except ValueError as error:
        raise InstallError(f"{path} is not valid JSON ({error}); nothing changed") from None
    except OSError as error:
        raise InstallError(f"cannot read {path}: {error}") from None


def install(
    path: str, harness: str, env: Mapping[str, str], command: str | None = None, portable: bool = False
) -> Result:
    """Merge our entries into ``path``. ``portable`` (a project file shared with a team): the hooks
    run ``continuity`` from the PATH (or ``command``), skipped on a machine without it."""
    chosen = command or (PORTABLE_COMMAND if portable else default_hook_command())
    return apply_edit(path, harness, env, lambda data: merge(data, harness, chosen, portable))


def uninstall(path: str, harness: str, env: Mapping[str, str]) -> Result:
    return revert_edit(path, harness, env, strip)


def apply_edit(
    path: str, harness: str, env: Mapping[str, str], edit: Callable[[dict], dict], action: str = "installed"
) -> Result:
    """Write ``edit(data)`` in the file's own style, after a backup; nothing when it changes nothing."""
    data, style, original = _read(path)
    merged = edit(data)
    if merged == data and original is not None:
        return Result(path, action, changed=False)
    saved = backup(path, original, harness, env)
    jsonfile.write_bytes(path, style.dumps(merged).encode("utf-8"))
    return Result(path, action, changed=True, backup=saved)


def revert_edit(
    path: str, harness: str, env: Mapping[str, str], edit: Callable[[dict], dict], action: str = "uninstalled"
) -> Result:
    """Write ``edit(data)`` (what is left without ours), or the backed-up bytes it equals, or no file
    when we created it: an install/uninstall round trip is byte-identical."""
    data, style, original = _read(path)
    if original is None:
        return Result(path, action, changed=False)
    stripped = edit(data)
    if stripped == data:
        return Result(path, action, changed=False)
    saved = backup(path, original, harness, env)
    pristine = _pristine(path, stripped, env)
    if pristine == b"":
        remove_created(path, env)  # we created the file; the round trip leaves no file
    else:
        jsonfile.write_bytes(
            path, pristine if pristine is not None else style.dumps(stripped).encode("utf-8")
        )
    return Result(path, action, changed=True, backup=saved)


def portable_notes(command: str | None, what: str = "hooks") -> list[str]:
    """After a project-scope install: whether the shared command runs on this machine."""
    import shutil

    chosen = command or PORTABLE_COMMAND
    if shutil.which(chosen.split()[0] if chosen.split() else chosen):
        return []
    effect = "the hooks do nothing here" if what == "hooks" else f"the {what} cannot start here"
    return [
        f"the project file runs `{chosen}` from the PATH so it works on a teammate's machine too; it is "
        f"not on this machine's PATH, so {effect}: `pipx install ./client`, or put "
        f"{os.path.dirname(sys.executable)} on the PATH"
    ]


def notes(harness: str) -> list[str]:
    """What the user still has to do after an install, per harness."""
    if harness == CODEX:
        return [
            "Codex runs hooks only once you trust them: open Codex and review them (/hooks).",
            "older Codex versions also need `[features]\\ncodex_hooks = true` in ~/.codex/config.toml.",
            "Codex has no session-end hook: its Stop hook sends each turn's transcript; sessions close on "
            "the server's idle timeout.",
        ]
    if harness == GEMINI:
        return ['Gemini CLI versions where hooks are off by default need `"hooksConfig": {"enabled": true}`.']
    return ["restart Claude Code (or open /hooks) so it reloads its settings."]
