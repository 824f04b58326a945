"""Administration (admin scope), of the caller's own agent only: its tokens — create (the secret is
shown once), list, revoke — and its health. Tenants and every agent's health are the operator's
(``infra/operator.py``), never a bearer token's."""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler.exceptions import NotFoundError
from aws_lambda_powertools.event_handler.openapi.params import Body, Path
from aws_lambda_powertools.utilities.typing import LambdaContext

from continuity_core.admin.tokens import ForeignAgentError
from continuity_core.kernel.http import ERROR_RESPONSES, ForbiddenError, caller, create_app, created, resolve
from continuity_core.kernel.observability import logger, metrics
from continuity_core.models.health import HealthAnswer
from continuity_core.models.scopes import Scope
from continuity_core.models.tokens import CreateTokenRequest, TokenCreated, TokenList, TokenView
from continuity_core.roots import tokens as root
from continuity_core.roots.cold_start import ColdStart

deps = ColdStart(root.build)  # built on the first invocation: once per cold start
app = create_app(lambda: deps().rate_limiter, redact_responses=False)  # a new token's secret is the answer


@app.post("/api/tokens", responses=created(TokenCreated))
def create_token(request: Annotated[CreateTokenRequest, Body()]) -> tuple[dict[str, Any], int]:
    agent_id = caller(app, Scope.ADMIN).agent_id
    try:
        created = deps().tokens.create(agent_id, request)
    except ForeignAgentError as error:
        raise ForbiddenError(str(error)) from error
    logger.info("token created", extra={"token_id": created.token_id, "agent_id": created.agent_id})
    return created.model_dump(mode="json"), 201


@app.get("/api/tokens", responses=ERROR_RESPONSES)
def list_tokens() -> TokenList:
    return TokenList(tokens=deps().tokens.list(caller(app, Scope.ADMIN).agent_id))


@app.delete("/api/tokens/<token_id>", responses=ERROR_RESPONSES)
def revoke_token(token_id: Annotated[str, Path(min_length=1, max_length=64)]) -> TokenView:
    revoked = deps().tokens.revoke(caller(app, Scope.ADMIN).agent_id, token_id)
    if revoked is None:  # another agent's token too: its existence is not the caller's to learn
        raise NotFoundError("no token with this id for this agent")
    logger.info("token revoked", extra={"token_id": token_id})
    return revoked


@app.get("/api/admin/health", responses=ERROR_RESPONSES)
def service_health() -> HealthAnswer:
    """The agent's health (admin): its tokens' authorized requests per minute over the last 15
    minutes and its hooks' last sightings; the service's checkpoint queue's and DLQ's depth and the
    pruner's progress. Read from what the service keeps."""
    return deps().health.health(caller(app, Scope.ADMIN).agent_id)


@logger.inject_lambda_context(clear_state=True)
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return resolve(app, event, context)
