"""The current session of a project: what the hooks last saw, for the CLI and the MCP server.

Every hook records, per project (its real path), the session id, harness and transcript path it
carried, in ``$CONTINUITY_HOME/projects/<hash>-<name>.json``. The file is rewritten only when the
session (or harness, or transcript) changes, so most hooks only read it. ``continuity status``,
``checkpoint``, ``recover`` and ``continuity mcp`` find "the current session" there: the MCP server
lives as long as the harness, across ``/clear`` and new sessions, so it looks it up per call.

On the hook path: imports ``json``, ``os`` and ``zlib`` (hashlib costs ten times more).
"""

from __future__ import annotations

import os
import time
import zlib

from continuity_client.hook import fastjson as json
from continuity_client.hook.privatefiles import safe_name, write_private

TYPE_CHECKING = False  # typing costs milliseconds at import; mypy reads this as True
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

PROJECTS_DIR = "projects"
# Where the harness tells its hooks (and, for some, its MCP servers) the project root is.
PROJECT_DIR_VARIABLES = ("CONTINUITY_PROJECT_DIR", "CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR")


def realpath(path: str) -> str:
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return path


def project_file(home: str, project: str) -> str:
    raw = project.encode("utf-8", "surrogatepass")
    tag = f"{zlib.crc32(raw):08x}{zlib.adler32(raw):08x}"
    name = safe_name(os.path.basename(project.rstrip("/")) or "root")[:40]
    return os.path.join(home, PROJECTS_DIR, f"{tag}-{name}.json")


def read(home: str, project: str) -> dict[str, Any] | None:
    """The last session recorded for exactly this project path, or None."""
    try:
        with open(project_file(home, project), "rb") as handle:
            data = json.loads(handle.read())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("project") != project or not data.get("session_id"):
        return None
    return data


def record(home: str, project: str, session: str, harness: str, transcript_path: str | None) -> bool:
    """Note the project's current session; True when the file changed. Never raises."""
    if not project or not session:
        return False
    try:
        known = read(home, project)
        wanted = {"session_id": session, "harness": harness, "transcript_path": transcript_path or None}
        if known is not None and all(known.get(k) == v for k, v in wanted.items()):
            return False
        path = project_file(home, project)
        data = json.dumps({"project": project, **wanted, "seen_at": time.time()}).encode("utf-8")
        write_private(path, data)
        return True
    except OSError:
        return False


def project_root(env: Mapping[str, str], explicit: str | None = None) -> str:
    """The project: ``explicit``, else the harness's project variable, else the working directory."""
    if explicit:
        return realpath(os.path.abspath(os.path.expanduser(explicit)))
    for name in PROJECT_DIR_VARIABLES:
        value = env.get(name)
        if value:
            return realpath(value)
    try:
        return realpath(os.getcwd())
    except OSError:
        return "/"


def find(home: str, start: str) -> tuple[str, dict[str, Any] | None]:
    """(project, its last session record): ``start`` or the nearest parent the hooks have seen.

    The MCP server and the CLI may run in a sub-folder of the project the hooks reported.
    """
    current = start
    while True:
        found = read(home, current)
        if found is not None:
            return current, found
        parent = os.path.dirname(current)
        if not parent or parent == current:
            return start, None
        current = parent
