"""GET /api/checkpoints[...], /api/preview, /api/whoami and /api/health."""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Annotated, Any

from aws_lambda_powertools.event_handler.openapi.params import Query
from aws_lambda_powertools.utilities.typing import LambdaContext

from continuity_core.extraction.paths import normalize_project
from continuity_core.kernel.http import ERROR_RESPONSES, StoredSessionKey, caller, create_app, resolve
from continuity_core.kernel.observability import logger, metrics
from continuity_core.models.checkpoint import CheckpointList
from continuity_core.models.hooks import MAX_LABEL
from continuity_core.models.recovery import PreviewAnswer
from continuity_core.models.scopes import Scope
from continuity_core.models.state import SessionOrigin
from continuity_core.models.tokens import WhoAmI
from continuity_core.roots import read_api as root
from continuity_core.roots.cold_start import ColdStart

deps = ColdStart(root.build)  # built on the first invocation: once per cold start
app = create_app(lambda: deps().rate_limiter)


@app.get("/api/health", responses=ERROR_RESPONSES)
def health() -> dict[str, str]:
    return {"status": "ok"}


@app.get("/api/whoami", responses=ERROR_RESPONSES)
def whoami() -> WhoAmI:
    """Who this token speaks for and what it may do: any valid token, whatever its scopes (the
    dashboard's sign-in checks a token with it before showing a page)."""
    found = caller(app)
    known = [scope for scope in Scope if scope.value in found.scopes]
    return WhoAmI(agent_id=found.agent_id, scopes=known)


@app.get("/api/openapi.json", responses=ERROR_RESPONSES)
def openapi_document() -> dict[str, Any]:
    """This API's OpenAPI document (generated from the handlers' pydantic models)."""
    return openapi_json()


@lru_cache(maxsize=1)
def openapi_json() -> dict[str, Any]:
    return dict(json.loads(resources.files("continuity_core").joinpath("openapi.json").read_text()))


@app.get("/api/checkpoints", responses=ERROR_RESPONSES)
def project_checkpoints(
    project: Annotated[str, Query(min_length=1, max_length=4096)],
    limit: Annotated[int, Query(ge=1, le=100)] = 10,
) -> CheckpointList:
    """A project's checkpoints, newest first."""
    return deps().checkpoints.for_project(caller(app, Scope.READ).agent_id, project, limit)


@app.get("/api/checkpoints/<session_key>", responses=ERROR_RESPONSES)
def session_checkpoints(session_key: StoredSessionKey) -> CheckpointList:
    """One session's checkpoints, oldest first."""
    return deps().checkpoints.for_session(caller(app, Scope.READ).agent_id, session_key)


@app.get("/api/preview", responses=ERROR_RESPONSES)
def preview(
    project: Annotated[str, Query(min_length=1, max_length=4096)],
    injection_cap_chars: Annotated[int | None, Query(ge=200, le=100_000)] = None,
    project_path: Annotated[str | None, Query(max_length=4096)] = None,
    branch: Annotated[str | None, Query(max_length=MAX_LABEL)] = None,
    user: Annotated[str | None, Query(max_length=MAX_LABEL)] = None,
) -> PreviewAnswer:
    """What a session starting now in ``project`` would be given at its start: the same recovery
    composition as the session-start hook, for a new session, writing nothing. ``project_path``,
    ``branch`` and ``user`` are what the session-start hook would carry (the folder's path, for
    work stored under it; the branch and person, for the choice across sessions)."""
    agent_id = caller(app, Scope.READ).agent_id
    origin = SessionOrigin(project_path=normalize_project(project_path), branch=branch, user=user)
    return deps().preview.preview(
        agent_id, normalize_project(project) or project, injection_cap_chars, origin
    )


@logger.inject_lambda_context(clear_state=True)
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return resolve(app, event, context)
