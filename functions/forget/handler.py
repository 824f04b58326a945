"""DELETE /api/sessions/{session_key} and DELETE /api/projects: delete a session's or a project's data now."""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler.openapi.params import Query
from aws_lambda_powertools.utilities.typing import LambdaContext

from continuity_core.extraction.paths import normalize_project
from continuity_core.kernel.http import ERROR_RESPONSES, StoredSessionKey, caller, create_app, resolve
from continuity_core.kernel.observability import count, logger, metrics
from continuity_core.models.forget import ForgetAnswer
from continuity_core.models.scopes import Scope
from continuity_core.roots import forget as root
from continuity_core.roots.cold_start import ColdStart

deps = ColdStart(root.build)  # built on the first invocation: once per cold start
app = create_app(lambda: deps().rate_limiter)


@app.delete("/api/sessions/<session_key>", responses=ERROR_RESPONSES)
def forget_session(session_key: StoredSessionKey) -> ForgetAnswer:
    """Delete everything of one of the caller's sessions now; a later hook of it answers 410."""
    logger.set_correlation_id(session_key)
    answer = deps().forgetter.forget_session(caller(app, Scope.HOOKS, Scope.ADMIN).agent_id, session_key)
    count("SessionsForgotten")
    logger.info("session deleted", extra={"deleted": answer.deleted.model_dump()})
    return answer


@app.delete("/api/projects", responses=ERROR_RESPONSES)
def forget_project(project: Annotated[str, Query(min_length=1, max_length=4096)]) -> ForgetAnswer:
    """Delete every session of one of the caller's projects, and its decision ledger, now."""
    agent_id = caller(app, Scope.HOOKS, Scope.ADMIN).agent_id
    answer = deps().forgetter.forget_project(agent_id, normalize_project(project) or project)
    count("SessionsForgotten", value=len(answer.sessions))
    logger.info("project deleted", extra={"deleted": answer.deleted.model_dump()})
    return answer


@logger.inject_lambda_context(clear_state=True)
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return resolve(app, event, context)
