"""``continuity status``, ``checkpoint``, ``handoff``, ``recover`` and ``remember``: the agent API for
people.

The same content the MCP server gives the agent (``continuity mcp``), from a terminal. Each finds
the current session the way ``api.Target.resolve`` says; ``--session`` and ``--project``
override it. Exit 0 on success, 1 on a failure (said on stderr).
"""

from __future__ import annotations

import argparse
import json
import sys

from continuity_client.agent import api


def command_parser(prog: str, description: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument(
        "--project",
        default=None,
        help="the project: a directory, or an id as `continuity projects` lists it (default: this one)",
    )
    parser.add_argument("--session", default=None, help="the session key (default: the last one seen)")
    return parser


def fail(command: str, error: Exception) -> int:
    print(f"continuity {command}: {error}", file=sys.stderr)
    return 1


def status(argv: list[str]) -> int:
    parser = command_parser(
        "continuity status", "What the service holds for the current session and project."
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    client = api.Client()
    try:
        report = client.status(client.target(args.project, args.session))
    except api.ServiceError as error:
        return fail("status", error)
    print(json.dumps(report, indent=2) if args.json else api.describe_status(report))
    return 0


def checkpoint(argv: list[str]) -> int:
    parser = command_parser(
        "continuity checkpoint", "Write an explicit checkpoint of the current session now."
    )
    args = parser.parse_args(argv)
    client = api.Client()
    try:
        target = client.target(args.project, args.session)
        written = client.checkpoint(target)
    except api.ServiceError as error:
        if error.status == 404:
            error = api.ServiceError(f"the service has not seen session {target.session!r} yet")
        return fail("checkpoint", error)
    prompts = ""
    if written.get("prompt_count"):
        prompts = f", prompts {written.get('first_prompt')}-{written.get('last_prompt')}"
    print(
        f"explicit checkpoint {written.get('sequence', '?')} of session {target.session} "
        f"written at {written.get('created_at')}{prompts}"
    )
    return 0


def handoff(argv: list[str]) -> int:
    parser = command_parser(
        "continuity handoff",
        "Hand the current session's work to the next session of this project (on any machine or "
        "harness, or a teammate's with --to): its digest, your note, the branch, the commit and the "
        "uncommitted paths, given first and once.",
    )
    parser.add_argument("--note", default=None, help="what the next session should know first")
    parser.add_argument(
        "--to", default=None, help="the person (CONTINUITY_USER or token name) or machine it is for"
    )
    parser.add_argument("--no-git", action="store_true", help="send no branch, commit or paths")
    args = parser.parse_args(argv)
    client = api.Client()
    try:
        target = client.target(args.project, args.session)
        git = {} if args.no_git else api.git_state(target.folder)
        written = client.handoff(target, args.note, args.to, git)
    except api.ServiceError as error:
        if error.status == 404:
            error = api.ServiceError(f"the service has not seen session {target.session!r} yet")
        return fail("handoff", error)
    print(api.describe_handoff(written))
    print("the next session started in this project gets it first (once)")
    return 0


def recover(argv: list[str]) -> int:
    parser = command_parser(
        "continuity recover",
        "Tiered recovery: 1 = the briefing's first three sections (where things stand, the last "
        "instruction, the rules in force), 2 = the whole briefing with search hits and other "
        "sessions' decisions, 3 = the whole session digest, its checkpoints and the ledger.",
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
        return fail("recover", error)
    print(str(answer.get("text") or "").rstrip())
    return 0


def remember(argv: list[str]) -> int:
    parser = command_parser(
        "continuity remember",
        "Keep a note for the current session: it goes into the session's next checkpoint, so the "
        "next session (or this one after a compaction) gets it back.",
    )
    parser.add_argument("text", nargs="*", help="what to remember (read from stdin when omitted)")
    args = parser.parse_args(argv)
    text = " ".join(args.text).strip()
    if not text and not sys.stdin.isatty():
        text = sys.stdin.read().strip()
    if not text:
        return fail(
            "remember", api.ServiceError("nothing to remember: give the text as arguments or on stdin")
        )
    client = api.Client()
    try:
        target = client.target(args.project, args.session)
        outcome = client.remember(target, text)
    except api.ServiceError as error:
        return fail("remember", error)
    if outcome == "sent":
        print(f"remembered for session {target.session}: it goes into the session's next checkpoint")
    else:
        print(
            f"the service is unreachable: kept for session {target.session} in the local spool; "
            "the next hook (or `continuity flush`) delivers it"
        )
    return 0
