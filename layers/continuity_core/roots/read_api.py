"""The read API's root: checkpoints by project and session, and the session-start preview."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from continuity_core.kernel.clock import Clock
from continuity_core.roots import shared

if TYPE_CHECKING:
    from continuity_core.admin.ratelimit import RateLimiter
    from continuity_core.recovery.start import StartPreview
    from continuity_core.sessions.reads import CheckpointReader


@dataclass(frozen=True)
class ReadApiDeps:
    checkpoints: CheckpointReader
    preview: StartPreview  # what a session starting now would be given: reads only
    rate_limiter: RateLimiter


def build(env: Mapping[str, str], clock: Clock) -> ReadApiDeps:
    from continuity_core.recovery.start import StartPreview
    from continuity_core.sessions.reads import CheckpointReader

    settings = shared.config(env)
    checkpoints = shared.checkpoint_store(env, settings, clock)
    return ReadApiDeps(
        CheckpointReader(checkpoints),
        StartPreview(checkpoints, settings, clock),
        shared.rate_limiter(env, settings, clock),
    )
