"""``continuity search|sessions|transcript|ledger|preview``: what the service holds, for people.

Each finds the project (and, where it needs one, the session) the way ``api.Target.resolve`` says;
``--project`` and ``--session`` override it. ``--json`` prints the service's answer as it came.
Exit 0 on success, 1 on a failure (said on stderr).
"""

from __future__ import annotations

import argparse
import json
import sys

from continuity_client.agent import api
from continuity_client.agent.commands import command_parser, fail
from continuity_client.hook import harness

# `continuity transcript` follows the service's pages; each is at most this many characters.
TRANSCRIPT_PAGE = 200_000


def _json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the service's answer as JSON")


def search(argv: list[str]) -> int:
    parser = command_parser("continuity search", "Search the stored transcripts (ranked full text).")
    parser.add_argument("query", nargs="+", help='what to look for; "quoted phrases" stay phrases')
    parser.add_argument("--scope", choices=("project", "session", "all"), default="project")
    parser.add_argument("--limit", type=int, default=10, help="at most this many hits (1-20)")
    _json_flag(parser)
    args = parser.parse_args(argv)
    client = api.Client()
    try:
        target = client.target(args.project, args.session)
        results = client.search(target, " ".join(args.query), args.scope, args.limit)
    except api.ServiceError as error:
        return fail("search", error)
    print(json.dumps(results, indent=2) if args.json else api.describe_results(results))
    return 0


def projects(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="continuity projects", description="Every project of your agent, newest first."
    )
    parser.add_argument("--limit", type=int, default=50, help="at most this many (1-200)")
    _json_flag(parser)
    args = parser.parse_args(argv)
    try:
        page = api.Client().projects(max(1, min(args.limit, 200)))
    except api.ServiceError as error:
        return fail("projects", error)
    if args.json:
        print(json.dumps(page, indent=2))
        return 0
    found = page.get("projects") or []
    if not found:
        print("no projects yet: a project shows once a session has started in it")
        return 0
    print("projects, newest first (id, last activity, sessions, harnesses, machines, open hand-offs):")
    for item in found:
        name = item.get("project_normalized") or item.get("project")  # the id --project takes
        harnesses = ", ".join(item.get("harnesses") or []) or "?"
        machines = ", ".join(item.get("machines") or []) or "?"  # none kept before the service kept them
        print(
            f"  {name}  {item.get('last_activity_at')}  {item.get('sessions', 0)} sessions  {harnesses}"
            f"  on {machines}  {item.get('open_handoffs', 0)} open hand-offs"
        )
    if page.get("next_token"):
        print(f"  ... more (--limit {min(200, args.limit * 2)})")
    return 0


def sessions(argv: list[str]) -> int:
    parser = command_parser(
        "continuity sessions", "The project's sessions with a stored transcript, newest first."
    )
    parser.add_argument("--limit", type=int, default=20, help="at most this many (1-100)")
    _json_flag(parser)
    args = parser.parse_args(argv)
    client = api.Client()
    try:
        target = client.target(args.project, args.session)
        page = client.sessions(target.project, max(1, min(args.limit, 100)))
    except api.ServiceError as error:
        return fail("sessions", error)
    if args.json:
        print(json.dumps(page, indent=2))
        return 0
    handoffs = page.get("handoffs") or []
    if handoffs:
        print(f"open hand-offs of {target.project} (the next session gets one first):")
        for handoff in handoffs:
            print(f"  {api.describe_handoff(handoff)}")
    found = page.get("sessions") or []
    if not found:
        print(f"no sessions with a transcript for {target.project}")
        return 0
    print(f"sessions of {target.project}, newest first:")
    for item in found:
        mark = "  (current)" if item.get("session_key") == target.session else ""
        key, tool = item.get("session_key"), item.get("harness") or "?"
        print(f"  {key}  {tool}  last active {item.get('updated_at')}  {item.get('length', 0)} chars{mark}")
    if page.get("next_token"):
        print(f"  ... more (--limit {min(100, args.limit * 2)})")
    return 0


def transcript(argv: list[str]) -> int:
    parser = command_parser("continuity transcript", "A session's transcript as the service stores it.")
    parser.add_argument("session_key", nargs="?", help="the session (default: the current one)")
    parser.add_argument("--offset", type=int, default=0, help="start at this character")
    _json_flag(parser)
    args = parser.parse_args(argv)
    client = api.Client()
    try:
        target = client.target(args.project, args.session_key or args.session)
        session = target.need_session()
        page = client.transcript(session, max(0, args.offset), TRANSCRIPT_PAGE)
        if args.json:
            print(json.dumps(page, indent=2))
            return 0
        sys.stdout.write(str(page.get("text") or ""))
        while isinstance(page.get("next_offset"), int):
            page = client.transcript(session, page["next_offset"], TRANSCRIPT_PAGE)
            sys.stdout.write(str(page.get("text") or ""))
    except api.ServiceError as error:
        if error.status == 404:
            error = api.ServiceError(f"the service holds no transcript for session {target.session!r}")
        return fail("transcript", error)
    return 0


def ledger(argv: list[str]) -> int:
    parser = command_parser(
        "continuity ledger",
        "The project's decision ledger, newest first: the decisions agents recorded with session_digest "
        "(the decisions stated in prompts are in the session's rolling digest: `continuity recover 2`).",
    )
    parser.add_argument("--limit", type=int, default=50, help="at most this many (1-200)")
    parser.add_argument("--all", action="store_true", help="every decision (follows the pages)")
    _json_flag(parser)
    args = parser.parse_args(argv)
    client = api.Client()
    entries: list[dict] = []
    token: str | None = None
    try:
        target = client.target(args.project, args.session)
        while True:
            page = client.ledger(target.project, max(1, min(args.limit, 200)), token)
            entries += [e for e in page.get("entries") or [] if isinstance(e, dict)]
            token = page.get("next_token")
            if not args.all or not token:
                break
    except api.ServiceError as error:
        return fail("ledger", error)
    if args.json:
        print(json.dumps({"entries": entries, "next_token": token}, indent=2))
        return 0
    if not entries:
        print(
            f"no decisions recorded for {target.project} by an agent's session_digest (the ledger); "
            "the decisions a session stated in its prompts are in its rolling digest: `continuity recover 2`"
        )
        return 0
    print(f"the decision ledger of {target.project}: what agents recorded with session_digest, newest first")
    for entry in entries:
        why = f" - because {entry['rationale']}" if entry.get("rationale") else ""
        print(
            f"{entry.get('created_at')}  {entry.get('decision')}{why}  (session {entry.get('session_key')})"
        )
    if token:
        print("... more (--all)")
    return 0


def preview(argv: list[str]) -> int:
    parser = command_parser(
        "continuity preview",
        "What a session starting now in this project would be given at its start (nothing is written).",
    )
    parser.add_argument(
        "--harness",
        default=None,
        help="the harness to size it for (its injection cap); default: the last one seen",
    )
    _json_flag(parser)
    args = parser.parse_args(argv)
    client = api.Client()
    try:
        target = client.target(args.project, args.session)
        chosen = harness.canonical_harness(args.harness) if args.harness else target.harness
        cap = (
            harness.injection_cap(chosen, "session-start", client.settings.injection_cap_chars)
            if chosen
            else None
        )
        answer = client.preview(target, cap)
    except api.ServiceError as error:
        return fail("preview", error)
    if args.json:
        print(json.dumps(answer, indent=2))
        return 0
    text = answer.get("text")
    if not text:
        print(
            f"a session starting now in {target.project} would get nothing: no checkpoint within the "
            "recovery window and no recorded decision"
        )
        return 0
    origin = (
        f" (recovered from session {answer['session_key']}, {answer.get('source')})"
        if answer.get("session_key")
        else ""
    )
    print(f"a session starting now in {target.project} would get{origin}:\n")
    print(str(text).rstrip())
    return 0
