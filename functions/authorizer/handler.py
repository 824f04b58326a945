"""HTTP API Lambda authorizer (REQUEST, simple responses): bearer token → agent id and scopes.

Until the token store lands, one token is accepted: the one whose sha256 is in
CONTINUITY_API_TOKEN_SHA256. It maps to agent "default" with every scope.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

TOKEN_HASH_ENV = "CONTINUITY_API_TOKEN_SHA256"
DEFAULT_AGENT = "default"
ALL_SCOPES = "hooks,read"
DENY: dict[str, Any] = {"isAuthorized": False}


def bearer_token(event: dict[str, Any]) -> str | None:
    headers = {k.lower(): v for k, v in (event.get("headers") or {}).items()}
    scheme, _, token = (headers.get("authorization") or "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    token = bearer_token(event)
    expected = os.environ.get(TOKEN_HASH_ENV, "")
    if not token or not expected:
        return DENY
    digest = hashlib.sha256(token.encode("utf-8")).hexdigest()
    if not hmac.compare_digest(digest, expected.lower()):
        return DENY
    return {"isAuthorized": True, "context": {"agent_id": DEFAULT_AGENT, "scopes": ALL_SCOPES}}
