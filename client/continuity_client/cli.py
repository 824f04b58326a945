"""The ``continuity`` command: a thin dispatcher.

``continuity hook ...`` runs inside the agent's loop, so it is dispatched before anything else is
imported (no argparse, no other subcommand's modules). The other subcommands are for people and
import their module only when called (``COMMANDS``).
"""

from __future__ import annotations

import sys

USAGE = """usage: continuity <command> [options]

set-up:
  login --url URL [--token TOKEN] [--no-check]
                      check the service URL and token against the service, then save them
                      (token read from stdin if omitted)
  install claude-code|codex|gemini|opencode|openclaw [--scope user|project] [--uninstall] [--no-mcp]
                      add (or remove) Continuity's hooks (OpenCode, OpenClaw: its plugin) and MCP server
  doctor              check configuration, service, clock, installed hooks and spool
  logout              remove the saved URL and token
  config machine|user [VALUE | --unset]
                      name this machine (shown as "from NAME") or its user (automatic recovery
                      across sessions stays with one user); without VALUE: print it
  uninstall [HARNESS...] [--scope user|project|all] [--purge]
                      remove what install wrote: every harness by default, or those named
                      (--purge: ~/.continuity too)

the current session and project (each takes --project DIR|ID and --session KEY):
  status              what the service holds for the current session and project
  remember TEXT       keep a note for the session's next checkpoint
  checkpoint          write an explicit checkpoint of the current session now
  handoff [--to NAME] [--note TEXT]
                      hand the session's work (digest, note, branch, commit, uncommitted paths)
                      to the next session of the project, first and once
  recover 1|2|3 [--query Q]
                      tiered recovery: 1 the block in brief (<= 400 chars), 2 with decisions,
                      findings, files and search hits (<= 2,000), 3 the whole digest
  preview             what a session starting now in this project would be given
  search QUERY [--scope project|session|all]
                      search the stored transcripts
  sessions            the project's sessions with a stored transcript, and its open hand-offs
  projects            every project of your agent, newest first
  transcript [SESSION]
                      a session's stored transcript
  ledger [--all]      the project's decision ledger (what agents recorded with session_digest)
  forget SESSION | --project [DIR|ID] [--yes]
                      delete a session's (or a whole project's) data on the service now

for the harness and the agent:
  hook <event> [--harness claude-code|codex|gemini|opencode|openclaw]
                      post one hook (run by the harness or our plugin; reads its JSON on stdin)
                      events: session-start, user-prompt-submit, remember,
                      pre-compaction, post-compaction, session-end, stop,
                      subagent-start, subagent-stop
  mcp [--sdk]         run the MCP server on stdio (needs continuity-client[mcp]; --sdk: the
                      SDK's server from the first message, without the fast handshake)
  flush               replay spooled hooks now

administration:
  token create [--scopes hooks,read] [--expires 30d] [--json] | list | revoke ID
                      manage your agent's API tokens (needs its admin token)
  local [args...]     run the local stack (development install only)
  operator (--local | --stage S) tenant create ID | tenant list | tokens | health | migrate-tokens
                      the operator's: tenants and every tenant's health, with the deployment's
                      AWS credentials (development install only)
  version             print the client version
"""

# command -> (module, function taking the remaining arguments and answering the exit code)
COMMANDS = {
    "login": ("continuity_client.setup.commands", "login"),
    "install": ("continuity_client.setup.commands", "install"),
    "doctor": ("continuity_client.setup.doctor", "main"),
    "logout": ("continuity_client.setup.remove", "logout"),
    "config": ("continuity_client.setup.commands", "configure"),
    "uninstall": ("continuity_client.setup.remove", "uninstall"),
    "flush": ("continuity_client.hook.flush", "main"),
    "status": ("continuity_client.agent.commands", "status"),
    "remember": ("continuity_client.agent.commands", "remember"),
    "checkpoint": ("continuity_client.agent.commands", "checkpoint"),
    "handoff": ("continuity_client.agent.commands", "handoff"),
    "recover": ("continuity_client.agent.commands", "recover"),
    "preview": ("continuity_client.agent.browse", "preview"),
    "search": ("continuity_client.agent.browse", "search"),
    "sessions": ("continuity_client.agent.browse", "sessions"),
    "projects": ("continuity_client.agent.browse", "projects"),
    "transcript": ("continuity_client.agent.browse", "transcript"),
    "ledger": ("continuity_client.agent.browse", "ledger"),
    "forget": ("continuity_client.agent.forget", "main"),
    "mcp": ("continuity_client.agent.mcp_front", "main"),
    "token": ("continuity_client.admin.tokens", "main"),
    "local": ("continuity_client.admin.local", "main"),
    "operator": ("continuity_client.admin.local", "operator"),
}


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    command = args[0] if args else ""
    if command == "hook":
        from continuity_client.hook import run

        # The harness waits from the process's start: the deadline counts the interpreter's too.
        return run.main(args[1:], started=run.process_started(), detach=True)
    try:
        code = _dispatch(command, args)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (`continuity preview | head`): the rest is not wanted. Python would
        # print a traceback at exit flushing stdout again, so point stdout at /dev/null first.
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    return code


def _dispatch(command: str, args: list[str]) -> int:
    if command in ("", "-h", "--help", "help"):
        sys.stdout.write(USAGE)
        return 0 if command else 2
    if command in ("version", "--version", "-V"):
        from continuity_client import __version__

        sys.stdout.write(f"continuity-client {__version__}\n")
        return 0
    if command not in COMMANDS:
        sys.stderr.write(f"continuity: unknown command {command!r}\n\n{USAGE}")
        return 2
    import importlib

    module_name, function = COMMANDS[command]
    if command != "mcp":  # stdio belongs to the harness there
        _tell_missed_hooks()
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        if command != "mcp":
            raise
        # the optional SDK is missing
        from continuity_client.setup.hints import extra_hint

        sys.stderr.write(f"continuity mcp needs the MCP SDK ({error}): {extra_hint('mcp')}\n")
        return 1
    return int(getattr(module, function)(args[1:]))


def _tell_missed_hooks() -> None:
    import os

    from continuity_client.setup import config, notices

    notice = notices.missed_hooks(config.home_dir(os.environ))
    if notice:
        sys.stderr.write(notice + "\n")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
