"""Sessions with live transcripts: the list by project, one transcript, ranked search, and the
dashboard's reads (the agent's projects, sessions with their state, a session's timeline, a
checkpoint's diff)."""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.exceptions import NotFoundError
from aws_lambda_powertools.event_handler.openapi.params import Body, Path, Query
from aws_lambda_powertools.utilities.typing import LambdaContext

from continuity_core.kernel.http import (
    ERROR_RESPONSES,
    StoredSessionKey,
    caller,
    create_app,
    error_response,
    on_error,
    resolve,
)
from continuity_core.kernel.observability import count, logger, metrics
from continuity_core.models import MAX_SAFE_INTEGER
from continuity_core.models.dashboard import (
    CheckpointView,
    ProjectActivity,
    ProjectRows,
    SessionRows,
    SessionStatus,
    SessionTimeline,
)
from continuity_core.models.injections import InjectionList, Lineage
from continuity_core.models.scopes import Scope
from continuity_core.models.sessions import SearchRequest, SearchResults, SessionPage, TranscriptText
from continuity_core.models.times import IsoDatetime
from continuity_core.roots import sessions as root
from continuity_core.roots.cold_start import ColdStart
from continuity_core.transcripts.ports import TranscriptBodyMissingError

MAX_TRANSCRIPT_PAGE = 1_000_000  # characters; keeps a page under Lambda's 6 MB response limit

deps = ColdStart(root.build)  # built on the first invocation: once per cold start
app = create_app(lambda: deps().rate_limiter)


@on_error(app, TranscriptBodyMissingError)
def _body_gone(error: TranscriptBodyMissingError) -> Response[str]:
    return error_response(410, "part of this transcript has expired")


@app.get("/api/sessions", responses=ERROR_RESPONSES)
def list_sessions(
    project: Annotated[str, Query(min_length=1, max_length=4096)],
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    next_token: Annotated[str | None, Query(max_length=2048)] = None,
) -> SessionPage:
    """A project's sessions with a transcript, newest first (length and last activity current)."""
    return deps().sessions.sessions(caller(app, Scope.READ).agent_id, project, limit, next_token)


@app.get("/api/projects", responses=ERROR_RESPONSES)
def list_projects(
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    next_token: Annotated[str | None, Query(max_length=2048)] = None,
) -> ProjectRows:
    """Every project of the token's agent, newest session start first: sessions started, machines,
    harnesses, open hand-offs, the newest session and its last activity (the dashboard's first page)."""
    return deps().dashboard.projects(caller(app, Scope.READ).agent_id, limit, next_token)


@app.get("/api/projects/activity", responses=ERROR_RESPONSES)
def project_activity(
    project: Annotated[str, Query(min_length=1, max_length=4096)],
    days: Annotated[int, Query(ge=1, le=90)] = 14,
) -> ProjectActivity:
    """The project's pictures: per day (prompts, checkpoints, compactions, recoveries), each
    session start's injected block against its cap, and compactions per session."""
    return deps().dashboard.activity(caller(app, Scope.READ).agent_id, project, days)


@app.get("/api/sessions/overview", responses=ERROR_RESPONSES)
def sessions_overview(
    project: Annotated[str, Query(min_length=1, max_length=4096)],
    harness: Annotated[str | None, Query(min_length=1, max_length=64)] = None,
    status: Annotated[SessionStatus | None, Query()] = None,
    since: Annotated[IsoDatetime | None, Query(description="Last activity at or after this.")] = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 50,
    next_token: Annotated[str | None, Query(max_length=2048)] = None,
) -> SessionRows:
    """The dashboard's sessions page: a project's sessions newest first, with status and counters."""
    agent_id = caller(app, Scope.READ).agent_id
    return deps().dashboard.sessions(agent_id, project, limit, next_token, harness, status, since)


@app.get("/api/sessions/<session_key>/timeline", responses=ERROR_RESPONSES)
def session_timeline(session_key: StoredSessionKey) -> SessionTimeline:
    """One session: its events oldest first, the transcript by turn, and its rolling digest."""
    logger.set_correlation_id(session_key)
    found = deps().dashboard.timeline(caller(app, Scope.READ).agent_id, session_key)
    if found is None:
        raise NotFoundError("nothing stored for this session")
    return found


@app.get("/api/sessions/<session_key>/checkpoints/<sequence>", responses=ERROR_RESPONSES)
def checkpoint_view(
    session_key: StoredSessionKey,
    sequence: Annotated[int, Path(ge=1, le=MAX_SAFE_INTEGER)],
) -> CheckpointView:
    """One checkpoint, and what its rolling digest added, dropped and superseded since the one before."""
    found = deps().dashboard.checkpoint(caller(app, Scope.READ).agent_id, session_key, sequence)
    if found is None:
        raise NotFoundError(f"no checkpoint {sequence} in this session")
    return found


@app.get("/api/sessions/<session_key>/injections", responses=ERROR_RESPONSES)
def session_injections(session_key: StoredSessionKey) -> InjectionList:
    """The injection inspector: what each start of the session (and each sub-agent start under it)
    was given, redacted, with its sections, size, the harness's cap and whether it was cut."""
    return deps().dashboard.injections(caller(app, Scope.READ).agent_id, session_key)


@app.get("/api/sessions/<session_key>/lineage", responses=ERROR_RESPONSES)
def session_lineage(session_key: StoredSessionKey) -> Lineage:
    """Where the session came from (the session it continued, its parent) and its sub-agents,
    each link with how it was found."""
    return deps().dashboard.lineage(caller(app, Scope.READ).agent_id, session_key)


@app.get("/api/sessions/<session_key>/transcript", responses=ERROR_RESPONSES)
def read_transcript(
    session_key: StoredSessionKey,
    offset: Annotated[int, Query(ge=0, le=MAX_SAFE_INTEGER)] = 0,
    limit: Annotated[int, Query(ge=1, le=MAX_TRANSCRIPT_PAGE)] = MAX_TRANSCRIPT_PAGE,
) -> TranscriptText:
    """The readable transcript as stored (characters ``offset`` to ``offset + limit``)."""
    logger.set_correlation_id(session_key)
    page = deps().sessions.transcript(caller(app, Scope.READ).agent_id, session_key, offset, limit)
    if page is None:
        raise NotFoundError("no transcript for this session")
    return page


@app.post("/api/sessions/search", responses=ERROR_RESPONSES)
def search_sessions(request: Annotated[SearchRequest, Body()]) -> SearchResults:
    """Ranked full-text search: one session, or a project's most recent sessions (bounded)."""
    results = deps().sessions.search(caller(app, Scope.READ).agent_id, request)
    count("SessionSearches")
    return results


@logger.inject_lambda_context(clear_state=True)
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return resolve(app, event, context)
