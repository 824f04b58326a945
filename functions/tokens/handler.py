"""Administration (admin scope): tokens — create (the secret is shown once), list, revoke — and the
service's health."""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler.exceptions import NotFoundError
from aws_lambda_powertools.event_handler.openapi.params import Body, Path
from aws_lambda_powertools.utilities.typing import LambdaContext

from continuity_core.http import ERROR_RESPONSES, caller, create_app, created, resolve
from continuity_core.models.health import HealthAnswer
from continuity_core.models.tokens import CreateTokenRequest, Scope, TokenCreated, TokenList, TokenView
from continuity_core.observability import logger, metrics
from continuity_core.services import health_reader, token_service

app = create_app(redact_responses=False)  # a new token's secret is the answer


@app.post("/api/tokens", responses=created(TokenCreated))
def create_token(request: Annotated[CreateTokenRequest, Body()]) -> tuple[dict[str, Any], int]:
    caller(app, Scope.ADMIN)
    created = token_service().create(request)
    logger.info("token created", extra={"token_id": created.token_id, "agent_id": created.agent_id})
    return created.model_dump(mode="json"), 201


@app.get("/api/tokens", responses=ERROR_RESPONSES)
def list_tokens() -> TokenList:
    caller(app, Scope.ADMIN)
    return TokenList(tokens=token_service().list())


@app.delete("/api/tokens/<token_id>", responses=ERROR_RESPONSES)
def revoke_token(token_id: Annotated[str, Path(min_length=1, max_length=64)]) -> TokenView:
    caller(app, Scope.ADMIN)
    revoked = token_service().revoke(token_id)
    if revoked is None:
        raise NotFoundError("no such token")
    logger.info("token revoked", extra={"token_id": token_id})
    return revoked


@app.get("/api/admin/health", responses=ERROR_RESPONSES)
def service_health() -> HealthAnswer:
    """The service's health (admin): the checkpoint queue's and its DLQ's depth, authorized requests
    per minute over the last 15 minutes, the pruner's progress; read from what the service keeps."""
    caller(app, Scope.ADMIN)
    return health_reader().health()


@logger.inject_lambda_context(clear_state=True)
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return resolve(app, event, context)
