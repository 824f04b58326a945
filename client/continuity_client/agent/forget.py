"""``continuity forget SESSION | --project [DIR]``: delete a session's or a project's data now.

The service deletes everything it holds of them (state, checkpoints, transcripts and their S3
bodies, decisions, index entries) and answers counts; a hook of a deleted session that arrives
later (a spooled one) is refused with 410 and stores nothing. This machine's own copies go too:
the sessions' spooled hooks (which hold prompts and transcript text) and transcript cursors.

It cannot be undone, so it asks first; ``--yes`` answers for scripts (without a terminal it is
required).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys

from continuity_client.agent import api
from continuity_client.agent.commands import fail
from continuity_client.hook import current, spool, transcript_cursor

COUNTS = (
    ("states", "session state"),
    ("checkpoints", "checkpoints"),
    ("transcripts", "transcripts"),
    ("transcript_parts", "transcript parts"),
    ("transcript_bodies", "transcript bodies in S3"),
    ("ledger_entries", "decisions"),
    ("index_entries", "index entries"),
)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="continuity forget", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "session_key", nargs="?", help="the session to delete (`continuity sessions` lists them)"
    )
    parser.add_argument(
        "--project",
        nargs="?",
        const="",
        default=None,
        metavar="DIR|ID",
        help="delete every session of the project (a directory or a project id) instead, and its ledger "
        "(default: this one)",
    )
    parser.add_argument("--yes", action="store_true", help="do not ask (it cannot be undone)")
    parser.add_argument("--json", action="store_true", help="print the service's answer as JSON")
    args = parser.parse_args(argv)
    if bool(args.session_key) == (args.project is not None):
        parser.error("name one session, or pass --project [DIR|ID] for a whole project")
    client = api.Client()
    target = client.target(args.project or None, None)
    what = f"session {args.session_key}" if args.session_key else f"every session of {target.project}"
    if not args.yes and not _confirmed(what):
        return fail("forget", api.ServiceError(f"nothing deleted (confirm with --yes to delete {what})"))
    try:
        if args.session_key:
            answer = client.forget_session(args.session_key)
        else:
            answer = client.forget_project(target.project)
            if target.folder != target.project:  # what was written before project ids, under the path
                older = client.forget_project(target.folder)
                answer["sessions"] = [*(answer.get("sessions") or []), *(older.get("sessions") or [])]
                counts, more = answer.get("deleted") or {}, older.get("deleted") or {}
                answer["deleted"] = {k: counts.get(k, 0) + more.get(k, 0) for k in {*counts, *more}}
    except api.ServiceError as error:
        return fail("forget", error)
    local = _forget_locally(client.home, answer.get("sessions") or [], target.folder)
    if args.json:
        print(json.dumps(answer, indent=2))
        return 0
    print(describe(answer, what, local))
    return 0


def _confirmed(what: str) -> bool:
    if not sys.stdin.isatty():
        return False
    reply = input(f"Delete {what} from the service now? This cannot be undone. [y/N] ")
    return reply.strip().lower() in ("y", "yes")


def _forget_locally(home: str, sessions: list[str], project: str) -> int:
    """Remove this machine's spooled hooks and transcript cursors of the deleted sessions; how many
    files went. The project's current-session note goes when it names one of them."""
    removed = 0
    for session in sessions:
        for path in (spool.spool_file(home, session), transcript_cursor.cursor_path(home, session)):
            try:
                os.unlink(path)
                removed += 1
            except OSError:
                pass
    seen = current.read(home, project)
    if seen is not None and seen.get("session_id") in sessions:
        with contextlib.suppress(OSError):
            os.unlink(current.project_file(home, project))
    return removed


def describe(answer: dict, what: str, local_files: int) -> str:
    counts = answer.get("deleted") or {}
    parts = [f"{counts[key]} {label}" for key, label in COUNTS if counts.get(key)]
    lines = [f"deleted {what}: {', '.join(parts) if parts else 'nothing was stored (already deleted?)'}"]
    if local_files:
        lines.append(f"removed {local_files} local file(s) of it (spooled hooks, transcript cursors)")
    lines.append(f"a later hook of it is refused until {answer.get('tombstone_until')} (it stores nothing)")
    return "\n".join(lines)
