"""``continuity logout`` and ``continuity uninstall``: undo what ``login`` and ``install`` wrote.

``uninstall`` removes Continuity's hooks, plugins and MCP server from every harness's settings,
user and project scope (the project: ``--project-dir``, default this folder), with the same
backups and byte-identical round trip as ``install --uninstall``; ``uninstall HARNESS`` is
``install HARNESS --uninstall`` by its own name. ``--purge`` also deletes ``~/.continuity`` (the
config with the token, the log, backups) once the spool holds no undelivered hook. Nothing on the
service is deleted: ``continuity forget`` does that.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from collections.abc import Callable, Mapping

from continuity_client.hook import harness, spool
from continuity_client.setup import config
from continuity_client.setup import install as installer

SCOPES = ("user", "project")


def logout(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="continuity logout", description="Remove the service URL and token that `login` saved."
    )
    parser.parse_args(argv)
    path, had = config.clear_login(os.environ)
    print(f"removed the URL and token from {path}" if had else f"no login saved in {path}")
    still = [name for name in ("CONTINUITY_URL", "CONTINUITY_TOKEN") if os.environ.get(name)]
    if still:
        print(f"note: {' and '.join(still)} still set in the environment: hooks keep using it")
    return 0


def uninstall(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="continuity uninstall", description=__doc__.split("\n\n")[1])
    parser.add_argument(
        "harnesses", nargs="*", metavar="HARNESS", help=f"{', '.join(harness.HARNESSES)} (default: all)"
    )
    parser.add_argument(
        "--scope",
        choices=(*SCOPES, "all"),
        default=None,
        help="default: both for every harness; user for a named one (as install)",
    )
    parser.add_argument("--project-dir", default=None, help="the project for project scope (default: cwd)")
    parser.add_argument("--purge", action="store_true", help=f"also delete {config.home_dir(os.environ)}")
    parser.add_argument("--force", action="store_true", help="purge even with hooks still in the spool")
    args, rest = parser.parse_known_args(argv)
    unknown = [name for name in args.harnesses if name not in harness.HARNESSES]
    if unknown:
        parser.error(f"unknown harness {unknown[0]!r} (choose from {', '.join(harness.HARNESSES)})")
    if args.harnesses:
        # A named harness: `install --uninstall` by its own name, for its scope(s).
        from continuity_client.setup import commands

        scopes = SCOPES if args.scope == "all" else (args.scope or "user",)
        where = ["--project-dir", args.project_dir] if args.project_dir else []
        for name in args.harnesses:
            for scope in scopes:
                if commands.install([name, "--uninstall", "--scope", scope, *where, *rest]) != 0:
                    return 1
    else:
        if rest:
            parser.error(f"unrecognized arguments: {' '.join(rest)}")
        scopes = SCOPES if args.scope in (None, "all") else (args.scope,)
        try:
            results = remove_everywhere(list(harness.HARNESSES), scopes, args.project_dir, os.environ)
        except installer.InstallError as error:
            print(f"continuity uninstall: {error}", file=sys.stderr)
            return 1
        for result in results:
            print(result.describe())
        if not results:
            print("no hooks, plugin or MCP server of Continuity found in any harness's settings")
    if args.purge:
        return purge(args.force)
    return 0


def remove_everywhere(
    names: list[str], scopes: tuple[str, ...], project_dir: str | None, env: Mapping[str, str]
) -> list[installer.Result]:
    """Every hook, plugin and MCP registration of ours removed; the results that changed a file."""
    from continuity_client.setup import mcp_install, plugin_install

    done: list[installer.Result] = []
    seen: set[tuple[str, str]] = set()  # a project that is the home folder shares the user's files
    for name in names:
        ours = plugin_install if name in harness.PLUGIN_HARNESSES else installer
        locate = plugin_install.config_path if name in harness.PLUGIN_HARNESSES else installer.settings_path
        for scope in scopes:
            targets = (
                (ours.uninstall, _located(locate, name, scope, project_dir, env)),
                (mcp_install.uninstall, _located(mcp_install.config_path, name, scope, project_dir, env)),
            )
            for remove, path in targets:
                if path is None or (remove.__module__, path) in seen or not os.path.exists(path):
                    continue
                seen.add((remove.__module__, path))
                result = remove(path, name, env)
                if result.changed:
                    done.append(result)
    return done


def _located(
    locate: Callable[[str, str, str | None, Mapping[str, str]], str],
    name: str,
    scope: str,
    project_dir: str | None,
    env: Mapping[str, str],
) -> str | None:
    """The file ``install`` writes for this harness and scope; None where it has none (OpenClaw's
    plugins are configured per user only)."""
    try:
        return locate(name, scope, project_dir, env)
    except installer.InstallError:
        return None


def purge(force: bool) -> int:
    home = config.home_dir(os.environ)
    waiting = spool.summary(home)["records"]
    if waiting and not force:
        print(
            f"continuity uninstall: {waiting} hook(s) in the spool were never delivered: "
            "`continuity flush` first, or --purge --force to drop them",
            file=sys.stderr,
        )
        return 1
    if os.path.isdir(home):
        shutil.rmtree(home)
        print(f"deleted {home}")
    return 0
