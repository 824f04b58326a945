"""``continuity login`` and ``continuity install``: the set-up a person does once per machine."""

from __future__ import annotations

import argparse
import os
import sys
import types

from continuity_client.hook import harness
from continuity_client.setup import config, probe
from continuity_client.setup import install as installer


def login(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="continuity login",
        description="Check the service URL and token against the service, then save them.",
    )
    parser.add_argument(
        "--url", required=True, help="the service URL, e.g. https://abc.execute-api.eu-west-1.amazonaws.com"
    )
    parser.add_argument("--token", help="the bearer token; read from stdin (or a prompt) when omitted")
    parser.add_argument(
        "--no-check", action="store_true", help="save without asking the service (e.g. it is not up yet)"
    )
    args = parser.parse_args(argv)
    url, note = probe.normalise_url(args.url)
    if not url.startswith(("https://", "http://")):
        parser.error("--url must start with https:// (or http:// for a local stack)")
    token = args.token
    if token is None:
        if sys.stdin.isatty():
            import getpass

            token = getpass.getpass("Continuity token: ")
        else:
            token = sys.stdin.readline()
    token = token.strip()
    if not token:
        parser.error("an empty token")
    if note:
        print(f"note: {note}")
    if not args.no_check:
        try:
            probe.health(url, os.environ)
            accepted = probe.token_accepted(url, token, os.environ)
        except probe.ProbeError as error:
            fix = f" ({error.fix})" if error.fix else ""
            print(f"continuity login: {error}{fix}; nothing saved (--no-check saves anyway)", file=sys.stderr)
            return 1
        print(f"{url}: the Continuity service; {accepted}")
    path = config.write_login(os.environ, url, token)
    print(f"saved {path} (mode 0600)")
    if url.startswith("http://") and not _is_local(url):
        print("warning: the URL is not https; the token would travel in clear text")
    print(
        "next: `continuity install claude-code` (or codex, gemini, opencode, openclaw),"
        " then `continuity doctor`"
    )
    return 0


def _is_local(url: str) -> bool:
    host = url.split("://", 1)[1].split("/", 1)[0].rsplit(":", 1)[0].strip("[]")
    return host in ("localhost", "127.0.0.1", "::1")


def install(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="continuity install",
        description="Merge Continuity's hooks into a harness's settings file (idempotent, with a backup).",
    )
    parser.add_argument("harness", choices=harness.HARNESSES)
    parser.add_argument("--scope", choices=("user", "project"), default="user")
    parser.add_argument("--project-dir", default=None, help="project root for --scope project (default: cwd)")
    parser.add_argument("--file", default=None, help="the settings file to edit (overrides --scope)")
    parser.add_argument(
        "--command",
        default=None,
        help="the command hooks run (default: this continuity; --scope project: `continuity` from the PATH)",
    )
    parser.add_argument("--uninstall", action="store_true", help="remove exactly Continuity's hooks")
    parser.add_argument(
        "--no-mcp", action="store_true", help="leave the harness's MCP servers alone (hooks only)"
    )
    parser.add_argument("--mcp-file", default=None, help="the MCP config file to edit (overrides --scope)")
    args = parser.parse_args(argv)
    # OpenCode and OpenClaw load our plugin (which runs the hooks) instead of hook commands.
    module: types.ModuleType = installer
    locate = installer.settings_path
    if args.harness in harness.PLUGIN_HARNESSES:
        from continuity_client.setup import plugin_install

        module, locate = plugin_install, plugin_install.config_path
    try:
        path = args.file or locate(args.harness, args.scope, args.project_dir, os.environ)
        if args.uninstall:
            result = module.uninstall(path, args.harness, os.environ)
        elif module is installer:
            portable = args.scope == "project" and not args.file
            result = installer.install(
                path, args.harness, os.environ, command=args.command, portable=portable
            )
        else:
            result = module.install(path, args.harness, os.environ, command=args.command)
    except installer.InstallError as error:
        print(f"continuity install: {error}", file=sys.stderr)
        return 1
    print(result.describe())
    if not args.no_mcp and install_mcp(args) != 0:
        return 1
    if not args.uninstall and result.changed:
        notes = module.notes(args.harness)
        if module is installer and args.scope == "project" and not args.file:
            notes += installer.portable_notes(args.command)
        for note in notes:
            print(f"note: {note}")
    return 0


def configure(argv: list[str]) -> int:
    """``continuity config machine|user [VALUE | --unset]``: the labels sessions carry (hook.machine)."""
    from continuity_client.hook import machine

    parser = argparse.ArgumentParser(
        prog="continuity config", description="Name this machine, or its user, as sessions show them."
    )
    parser.add_argument("key", choices=("machine", "user"))
    parser.add_argument("value", nargs="?", help="the name (without it: print the current one)")
    parser.add_argument(
        "--unset", action="store_true", help="remove the name (machine: the host's name again)"
    )
    args = parser.parse_args(argv)
    settings = config.Settings(os.environ)
    if args.value is None and not args.unset:
        current = (
            machine.machine_name(os.environ, settings.file_values)
            if args.key == "machine"
            else machine.user(os.environ, settings.file_values)
        )
        print(current or f"(no {args.key} set)")
        return 0
    value = None if args.unset else machine.clean_name(args.value)
    if not args.unset and value is None:
        parser.error(f"an empty {args.key} name")
    path = config.write_value(os.environ, args.key, value)
    print(f"{args.key} {'unset' if value is None else value!r} in {path}")
    overridden = machine.MACHINE_ENV if args.key == "machine" else machine.USER_ENV
    if os.environ.get(overridden):
        print(f"note: {overridden} is set in this shell and wins over the file")
    return 0


def install_mcp(args: argparse.Namespace) -> int:
    """Register (or remove) ``continuity mcp`` with the harness; only when the SDK is installed."""
    from continuity_client.setup import mcp_install

    path = args.mcp_file or mcp_install.config_path(args.harness, args.scope, args.project_dir, os.environ)
    if not args.uninstall and not mcp_install.sdk_available():
        from continuity_client.setup.hints import extra_hint

        print(f"note: MCP server not registered: {extra_hint('mcp')}, then install again")
        return 0
    try:
        if args.uninstall:
            result = mcp_install.uninstall(path, args.harness, os.environ)
        else:
            portable = args.scope == "project" and not args.mcp_file
            result = mcp_install.install(
                path, args.harness, os.environ, command=args.command, portable=portable
            )
    except installer.InstallError as error:
        print(f"continuity install: {error}", file=sys.stderr)
        return 1
    print(result.describe())
    if result.changed and not args.uninstall:
        notes = mcp_install.notes(args.harness, args.scope)
        if args.scope == "project" and not args.mcp_file:
            notes += installer.portable_notes(args.command, "MCP server")
        for note in notes:
            print(f"note: {note}")
    return 0
