"""The sessions function's root: session lists, transcript pages, search, the dashboard's pages."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from continuity_core.kernel.clock import Clock
from continuity_core.roots import shared

if TYPE_CHECKING:
    from continuity_core.admin.ratelimit import RateLimiter
    from continuity_core.sessions.dashboard import DashboardReader
    from continuity_core.sessions.sessions import SessionReader


@dataclass(frozen=True)
class SessionsDeps:
    sessions: SessionReader
    dashboard: DashboardReader
    search: shared.Search
    rate_limiter: RateLimiter


def build(env: Mapping[str, str], clock: Clock) -> SessionsDeps:
    """The readers share one state store, transcript reader and hand-off store."""
    from continuity_core.sessions.dashboard import DashboardReader
    from continuity_core.sessions.sessions import SessionReader

    settings = shared.config(env)
    states = shared.state_store(env, settings, clock)
    transcripts = shared.transcript_reader(env, settings, clock, states)
    handoffs = shared.handoff_store(env, settings, clock)
    search = shared.search(env, settings, transcripts)
    dashboard = DashboardReader(
        transcripts,
        states,
        shared.checkpoint_store(env, settings, clock),
        clock,
        shared.injection_log(env, settings, clock),
        handoffs,
    )
    return SessionsDeps(
        SessionReader(transcripts, search.service, handoffs),
        dashboard,
        search,
        shared.rate_limiter(env, settings, clock),
    )
