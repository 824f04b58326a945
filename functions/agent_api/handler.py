"""What agents write and ask for beyond hooks: digests, explicit checkpoints, hand-offs, the ledger,
tiered recovery."""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.exceptions import ServiceError
from aws_lambda_powertools.event_handler.openapi.params import Body, Query
from aws_lambda_powertools.utilities.typing import LambdaContext

from continuity_core.checkpoints.agent_digests import UnknownProjectError
from continuity_core.extraction.paths import normalize_project
from continuity_core.kernel.http import (
    ERROR_RESPONSES,
    NewSessionKey,
    StoredSessionKey,
    caller,
    create_app,
    created,
    error_response,
    on_error,
    resolve,
)
from continuity_core.kernel.observability import count, logger, metrics
from continuity_core.models.checkpoint_trigger import CheckpointTrigger
from continuity_core.models.digest import DigestRequest, LedgerPage
from continuity_core.models.handoff import HandoffAnswer, HandoffRequest
from continuity_core.models.recovery import CheckpointAnswer, CheckpointWritten, RecoveryAnswer
from continuity_core.models.scopes import Scope
from continuity_core.recovery.handoff import NoProjectError, SessionNotFoundError
from continuity_core.recovery.tiers import NothingToRecoverError
from continuity_core.roots import agent_api as root
from continuity_core.roots.cold_start import ColdStart

ProjectQuery = Annotated[str | None, Query(min_length=1, max_length=4096)]

deps = ColdStart(root.build)  # built on the first invocation: once per cold start
app = create_app(lambda: deps().rate_limiter)


@on_error(app, UnknownProjectError)
def _unknown_project(error: UnknownProjectError) -> Response[str]:
    return error_response(422, str(error))


@on_error(app, SessionNotFoundError)
def _no_session(error: SessionNotFoundError) -> Response[str]:
    return error_response(404, str(error))


@on_error(app, NoProjectError)
def _no_project(error: NoProjectError) -> Response[str]:
    return error_response(422, str(error))


@on_error(app, NothingToRecoverError)
def _nothing(error: NothingToRecoverError) -> Response[str]:
    return error_response(404, str(error))


@app.post("/api/sessions/<session_key>/digest", responses=created(CheckpointAnswer))
def write_digest(
    session_key: NewSessionKey, request: Annotated[DigestRequest, Body()]
) -> tuple[dict[str, Any], int]:
    """The agent's own checkpoint (trigger ``agent``); its decisions join the project's ledger.
    Answered with the checkpoint's id, number and counts, not its contents (a ``hooks`` token's)."""
    logger.set_correlation_id(session_key)
    checkpoint = deps().digests.write(caller(app, Scope.HOOKS).agent_id, session_key, request)
    count("CheckpointsWritten", trigger=checkpoint.trigger.value)
    if request.decisions:
        count("DecisionsRecorded", value=len(request.decisions))
    return CheckpointAnswer(checkpoint=CheckpointWritten.of(checkpoint)).model_dump(mode="json"), 201


@app.post("/api/sessions/<session_key>/checkpoint", responses=ERROR_RESPONSES)
def write_explicit_checkpoint(session_key: StoredSessionKey) -> CheckpointAnswer:
    """An ``explicit`` checkpoint of the session's state, now (``continuity checkpoint``); answered
    with its id, number and counts, not its contents."""
    logger.set_correlation_id(session_key)
    result = deps().writer.flush(
        caller(app, Scope.HOOKS).agent_id,
        session_key,
        CheckpointTrigger.EXPLICIT,
        worth_writing=lambda state: True,
    )
    if result.checkpoint is None:
        raise NothingToRecoverError("this session is unknown to the service")
    count("CheckpointsWritten", trigger=result.checkpoint.trigger.value)
    return CheckpointAnswer(checkpoint=CheckpointWritten.of(result.checkpoint))


@app.post("/api/sessions/<session_key>/handoff", responses=created(HandoffAnswer))
def write_handoff(
    session_key: StoredSessionKey, request: Annotated[HandoffRequest, Body()]
) -> tuple[dict[str, Any], int]:
    """Hand the session's work to the next session of its project (``continuity handoff``): a
    ``handoff`` checkpoint of its rolling digest now, and an open hand-off with the note, the branch,
    the commit and the uncommitted paths, given first and once to the next new session it is for."""
    logger.set_correlation_id(session_key)
    who = caller(app, Scope.HOOKS)
    handoff = deps().handoffs.write(who.agent_id, session_key, request, who.token_name)
    count("CheckpointsWritten", trigger=CheckpointTrigger.HANDOFF.value)
    count("HandoffsWritten")
    return HandoffAnswer(handoff=handoff.view()).model_dump(mode="json"), 201


@app.get("/api/ledger", responses=ERROR_RESPONSES)
def read_ledger(
    project: Annotated[str, Query(min_length=1, max_length=4096)],
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    next_token: Annotated[str | None, Query(max_length=2048)] = None,
) -> LedgerPage:
    """A project's decisions, newest first."""
    return deps().ledger.page(caller(app, Scope.READ).agent_id, project, limit, next_token)


@app.get("/api/recovery", responses=ERROR_RESPONSES)
def recover(
    project: ProjectQuery = None,
    session_key: Annotated[str | None, Query(min_length=1, max_length=256)] = None,
    level: Annotated[int, Query(ge=1, le=3)] = 1,
    query: Annotated[str | None, Query(max_length=1000)] = None,
) -> RecoveryAnswer:
    """Tiered recovery: level 1 (the briefing's first three sections), 2 (the briefing and search
    hits for ``query``), 3 (all)."""
    if not project and not session_key:
        raise ServiceError(422, "give project or session_key")
    answer = deps().recovery.recover(
        caller(app, Scope.READ).agent_id, level, normalize_project(project), session_key, query
    )
    return RecoveryAnswer(level=answer.level, text=answer.text, session_key=answer.session_key)


@logger.inject_lambda_context(clear_state=True)
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return resolve(app, event, context)
