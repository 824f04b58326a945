"""``continuity mcp``: an MCP server over stdio for the agent itself.

Tools: ``session_digest`` (the agent's own checkpoint, decisions to the project's ledger),
``session_search`` (live transcripts), ``recover(level, query?)`` (tiered recovery),
``handoff(note?, to?)`` (the session's work to the next session, first and once) and
``remember``. Each finds the current session and project per call (``api.Target``): the server
lives as long as the harness, across ``/clear`` and new sessions, and the hooks keep noting which
session is current. Explicit ``session_key`` / ``project`` arguments win.

Built on the official MCP Python SDK, pinned to one API (``mcp`` 2.x, ``MCPServer``), installed with
the ``mcp`` extra (``pip install 'continuity-client[mcp]'``) and imported only here: the hook path
stays dependency-free (``cli`` turns a missing SDK into a message). Nothing may be printed on
stdout, which carries the protocol.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field

from continuity_client import __version__
from continuity_client.agent import api

INSTRUCTIONS = (
    "Continuity keeps this project's working context across compaction, /clear and new sessions. "
    "Call session_digest when you reach a milestone, before a large change, or when asked to "
    "(the context is filling up): a summary, the decisions with their rationale and evidence, next "
    "steps, blockers and open questions. After a compaction or when unsure what was decided, call "
    "recover (level 1, then 2 with a query, then 3). session_search finds earlier conversation; "
    "remember keeps a fact for the next checkpoint; handoff hands the work to the next session "
    "(another machine, harness or person) when the user asks."
)


class Evidence(BaseModel):
    path: str = Field(description="File path, relative to the project.")
    line: int | None = Field(None, description="Line number.")
    quote: str | None = Field(None, description="The few lines that show it.")


class Decision(BaseModel):
    decision: str = Field(description="What was decided, in one sentence.")
    rationale: str | None = Field(None, description="Why.")
    evidence: list[Evidence] = Field(default_factory=list, description="Where it shows in the code.")


def build_server(env: Mapping[str, str] | None = None, client: api.Client | None = None) -> MCPServer:
    """The MCP server with its five tools (``client`` for tests)."""
    service = client or api.Client(env)

    def target(project: str | None, session_key: str | None) -> api.Target:
        return service.target(project, session_key)

    def failed(error: api.ServiceError) -> ToolError:
        return ToolError(str(error))

    server = MCPServer("continuity", instructions=INSTRUCTIONS, version=__version__)

    @server.tool()
    def session_digest(
        summary: str,
        decisions: list[Decision] | None = None,
        next_steps: list[str] | None = None,
        blockers: list[str] | None = None,
        questions: list[str] | None = None,
        session_key: str | None = None,
        project: str | None = None,
    ) -> str:
        """Save your own checkpoint of this session: what was done, decisions (with rationale and
        evidence), next steps, blockers and open questions. Decisions join the project's ledger,
        which later sessions see. Lists hold at most 20 items."""
        digest = {
            "summary": summary,
            "decisions": [d.model_dump(exclude_none=True) for d in decisions or []],
            "next_steps": next_steps or [],
            "blockers": blockers or [],
            "questions": questions or [],
        }
        try:
            where = target(project, session_key)
            written = service.digest(where, digest)
        except api.ServiceError as error:
            raise failed(error) from None
        count = len(digest["decisions"])
        return (
            f"Digest saved as checkpoint {written.get('sequence', '?')} of session {where.session} "
            f"({count} decision(s) added to the ledger of {where.project})."
        )

    @server.tool()
    def session_search(
        query: str,
        scope: str = "project",
        limit: int = 5,
        session_key: str | None = None,
        project: str | None = None,
    ) -> str:
        """Search earlier conversation (live transcripts). scope: "session" (this session),
        "project" (every session of this project, the default) or "all"."""
        if scope not in ("session", "project", "all"):
            raise ToolError('scope must be "session", "project" or "all"')
        try:
            results = service.search(target(project, session_key), query, scope, limit)
        except api.ServiceError as error:
            if error.status == 404:
                raise ToolError("transcript search is not available on this service yet") from None
            raise failed(error) from None
        return api.describe_results(results)

    @server.tool()
    def recover(
        level: int = 1, query: str | None = None, session_key: str | None = None, project: str | None = None
    ) -> str:
        """Recover this session's (or project's) context as a briefing. level 1: where things
        stand, the user's last instruction and the rules in force; 2: the whole briefing (also
        decisions, open questions, checks, files, what no longer holds), other sessions' decisions
        and search hits for query; 3: everything (the whole session digest, its checkpoints, the
        whole ledger)."""
        if level not in (1, 2, 3):
            raise ToolError("level must be 1, 2 or 3")
        try:
            answer = service.recover(target(project, session_key), level, query)
        except api.ServiceError as error:
            if error.status == 404:
                return "Nothing stored yet for this session or project."
            raise failed(error) from None
        return str(answer.get("text") or "")

    @server.tool()
    def handoff(
        note: str | None = None,
        to: str | None = None,
        session_key: str | None = None,
        project: str | None = None,
    ) -> str:
        """Hand this session's work to the next session of the project (another machine, harness,
        or the person named in to): your note, the session's digest, the branch, the commit and the
        uncommitted paths. The next session gets it first, once. Call it when the user asks to hand
        off or to continue elsewhere."""
        try:
            where = target(project, session_key)
            written = service.handoff(where, note, to, api.git_state(where.folder))
        except api.ServiceError as error:
            if error.status == 404:
                raise ToolError(f"the service has not seen session {where.session!r} yet") from None
            raise failed(error) from None
        return f"Handed off: {api.describe_handoff(written)}. The next session in this project gets it first."

    @server.tool()
    def remember(content: str, session_key: str | None = None, project: str | None = None) -> str:
        """Keep a fact, constraint or preference for the session's next checkpoint."""
        try:
            where = target(project, session_key)
            outcome = service.remember(where, content)
        except api.ServiceError as error:
            raise failed(error) from None
        if outcome == "spooled":
            return "The service is unreachable; kept locally and sent with the next hook."
        return f"Remembered for session {where.session}."

    return server


def main(argv: list[str]) -> int:
    if argv and argv[0] in ("-h", "--help"):
        sys.stdout.write("usage: continuity mcp\n\nRun the MCP server on stdio (started by the harness).\n")
        return 0
    build_server().run("stdio")
    return 0
