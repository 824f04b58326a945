"""The authorizer's root: the token service that maps a bearer token to its caller (its one need,
so ``build`` returns it rather than a dataclass of one field)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from continuity_core.kernel.clock import Clock
from continuity_core.roots.tokens import token_service

if TYPE_CHECKING:
    from continuity_core.admin.tokens import TokenService


def build(env: Mapping[str, str], clock: Clock) -> TokenService:
    return token_service(env, clock)
