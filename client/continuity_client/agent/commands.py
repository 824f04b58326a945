"""``continuity status``, ``continuity checkpoint`` and ``continuity recover``: the agent API for people.

The same content the MCP server gives the agent (``continuity mcp``), from a terminal. Each finds
the current session the way ``api.Target.resolve`` says; ``--session`` and ``--project``
override it. Exit 0 on success, 1 on a failure (said on stderr).
"""

from __future__ import annotations

import argparse
import json
import sys

from continuity_client.agent import api


def _parser(prog: str, description: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--project", default=None, help="the project directory (default: the current one)")
    parser.add_argument("--session", default=None, help="the session key (default: the last one seen)")
    return parser


def _fail(command: str, error: Exception) -> int:
    print(f"continuity {command}: {error}", file=sys.stderr)
    return 1


def status(argv: list[str]) -> int:
    parser = _parser("continuity status", "What the service holds for the current session and project.")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    client = api.Client()
    try:
        report = client.status(client.target(args.project, args.session))
    except api.ServiceError as error:
        return _fail("status", error)
    print(json.dumps(report, indent=2) if args.json else api.describe_status(report))
    return 0


def checkpoint(argv: list[str]) -> int:
    parser = _parser("continuity checkpoint", "Write an explicit checkpoint of the current session now.")
    args = parser.parse_args(argv)
    client = api.Client()
    try:
        target = client.target(args.project, args.session)
        written = client.checkpoint(target)
    except api.ServiceError as error:
        if error.status == 404:
            error = api.ServiceError(f"the service has not seen session {target.session!r} yet")
        return _fail("checkpoint", error)
    prompts = ""
    if written.get("prompt_count"):
        prompts = f", prompts {written.get('first_prompt')}-{written.get('last_prompt')}"
    print(
        f"explicit checkpoint {written.get('sequence', '?')} of session {target.session} "
        f"written at {written.get('created_at')}{prompts}"
    )
    return 0


def recover(argv: list[str]) -> int:
    parser = _parser(
        "continuity recover",
        "Tiered recovery: 1 = the state in brief, 2 = with decisions and search hits, 3 = everything.",
    )
    parser.add_argument("level", type=int, choices=(1, 2, 3))
    parser.add_argument("--query", default=None, help="what to search for (level 2)")
    args = parser.parse_args(argv)
    client = api.Client()
    try:
        answer = client.recover(client.target(args.project, args.session), args.level, args.query)
    except api.ServiceError as error:
        if error.status == 404:
            error = api.ServiceError("nothing stored for this session or project yet")
        return _fail("recover", error)
    print(str(answer.get("text") or "").rstrip())
    return 0
