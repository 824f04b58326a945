"""HTTP API Lambda authorizer (REQUEST, simple responses): bearer token → agent id and scopes.

API Gateway caches the answer per Authorization header for a few minutes, so a revoked or expired
token can be honoured that long; the handlers never see the token, only this context.
"""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from continuity_core.kernel.observability import logger
from continuity_core.roots import authorizer as root
from continuity_core.roots.cold_start import ColdStart

tokens = ColdStart(root.build)  # built on the first invocation: once per cold start

DENY: dict[str, Any] = {"isAuthorized": False}


def bearer_token(event: dict[str, Any]) -> str | None:
    headers = {k.lower(): v for k, v in (event.get("headers") or {}).items()}
    scheme, _, token = (headers.get("authorization") or "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    token = bearer_token(event)
    if not token:
        return DENY
    record = tokens().authorize(token)
    if record is None:
        logger.info("token refused")
        return DENY
    return {
        "isAuthorized": True,
        "context": {
            "agent_id": record.agent_id,
            "scopes": ",".join(sorted(record.scopes)),
            "token_id": record.token_id,
            # A session's default person, for hand-offs addressed by name (recovery/handoff.py).
            "token_name": record.name or "",
        },
    }
