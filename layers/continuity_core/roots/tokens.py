"""The tokens function's root: the admin's tokens and the service's health page."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from continuity_core.kernel.clock import Clock
from continuity_core.kernel.names import API_TOKEN_ENV, DLQ_ENV, QUEUE_ENV
from continuity_core.roots import shared

if TYPE_CHECKING:
    from continuity_core.admin.health import HealthReader
    from continuity_core.admin.ratelimit import RateLimiter
    from continuity_core.admin.tokens import TokenService


@dataclass(frozen=True)
class TokensDeps:
    tokens: TokenService
    health: HealthReader  # queue depths, requests per minute, the pruner's cursor
    rate_limiter: RateLimiter


def token_service(env: Mapping[str, str], clock: Clock) -> TokenService:
    """The tokens in the table, and the deployment's bootstrap token (its sha256) if it has one."""
    from continuity_core.admin.dynamo_tokens import DynamoTokenStore
    from continuity_core.admin.tokens import TokenService

    return TokenService(DynamoTokenStore(shared.table(env)), clock, env.get(API_TOKEN_ENV))


def build(env: Mapping[str, str], clock: Clock) -> TokensDeps:
    from continuity_core.admin.dynamo_health import AwsHealthSource
    from continuity_core.admin.dynamo_tokens import DynamoTokenStore
    from continuity_core.admin.health import HealthReader

    table = shared.table(env)
    source = AwsHealthSource(table, shared.required(env, QUEUE_ENV), shared.required(env, DLQ_ENV))
    return TokensDeps(
        token_service(env, clock),
        HealthReader(DynamoTokenStore(table), source, clock),
        shared.rate_limiter(env, shared.config(env), clock),
    )
