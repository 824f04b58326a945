"""The forget function's root: deleting a session's or a project's data now (``admin/forget.py``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from continuity_core.kernel.clock import Clock
from continuity_core.roots import shared

if TYPE_CHECKING:
    from continuity_core.admin.forget import Forgetter
    from continuity_core.admin.ratelimit import RateLimiter


@dataclass(frozen=True)
class ForgetDeps:
    forgetter: Forgetter
    rate_limiter: RateLimiter


def build(env: Mapping[str, str], clock: Clock) -> ForgetDeps:
    from continuity_core.admin.dynamo_erase import DynamoErasureStore
    from continuity_core.admin.forget import Forgetter

    settings = shared.config(env)
    erasure = DynamoErasureStore(shared.table(env), shared.bodies(env))
    return ForgetDeps(Forgetter(erasure, settings, clock), shared.rate_limiter(env, settings, clock))
