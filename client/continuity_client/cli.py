"""The ``continuity`` command: a thin dispatcher.

``continuity hook ...`` runs inside the agent's loop, so it is dispatched before anything else is
imported (no argparse, no other subcommand's modules). The other subcommands are for people and
import what they need lazily.
"""

from __future__ import annotations

import sys

USAGE = """usage: continuity <command> [options]

commands:
  hook <event> [--harness claude-code|codex|gemini]
                      post one hook (run by the harness; reads its JSON on stdin)
                      events: session-start, user-prompt-submit, remember,
                      pre-compaction, session-end, subagent-start
  login --url URL [--token TOKEN]
                      save the service URL and token (token read from stdin if omitted)
  install claude-code|codex|gemini [--scope user|project] [--uninstall] [--no-mcp]
                      add (or remove) Continuity's hooks and MCP server in the harness's settings
  status              what the service holds for the current session and project
  checkpoint          write an explicit checkpoint of the current session now
  recover 1|2|3 [--query Q]
                      tiered recovery: brief, with decisions and search hits, everything
  mcp                 run the MCP server on stdio (needs continuity-client[mcp])
  doctor              check configuration, service, clock, installed hooks and spool
  flush               replay spooled hooks now
  token create --agent ID [--scopes hooks,read] [--expires 30d] [--json] | list | revoke ID
                      manage API tokens (needs an admin token)
  local [args...]     run the local stack (development install only)
  version             print the client version
"""


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    command = args[0] if args else ""
    if command == "hook":
        from continuity_client import hook

        return hook.main(args[1:])
    if command in ("", "-h", "--help", "help"):
        sys.stdout.write(USAGE)
        return 0 if command else 2
    if command in ("version", "--version", "-V"):
        from continuity_client import __version__

        sys.stdout.write(f"continuity-client {__version__}\n")
        return 0
    if command == "local":
        return run_local(args[1:])
    if command == "login":
        from continuity_client.commands import login

        return login(args[1:])
    if command == "install":
        from continuity_client.commands import install

        return install(args[1:])
    if command == "doctor":
        from continuity_client.doctor import main as doctor

        return doctor(args[1:])
    if command == "token":
        from continuity_client.tokens import main as tokens

        return tokens(args[1:])
    if command == "flush":
        from continuity_client.commands import flush

        return flush(args[1:])
    if command in ("status", "checkpoint", "recover"):
        from continuity_client import agent_commands

        return int(getattr(agent_commands, command)(args[1:]))
    if command == "mcp":
        try:
            from continuity_client.mcp_server import main as mcp_main
        except ImportError as error:  # the optional SDK is missing
            sys.stderr.write(
                f"continuity mcp needs the MCP SDK ({error}): pip install 'continuity-client[mcp]'\n"
            )
            return 1
        return mcp_main(args[1:])
    sys.stderr.write(f"continuity: unknown command {command!r}\n\n{USAGE}")
    return 2


def run_local(argv: list[str]) -> int:
    """Hand over to the local stack, which exists only in the repository's development install."""
    try:
        from infra.local.main import main as local_main
    except ImportError:
        sys.stderr.write(
            "continuity local needs the development install: run `make setup` in the repository\n"
        )
        return 1
    result = local_main(argv)
    return result if isinstance(result, int) else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
