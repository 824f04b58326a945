"""The hooks function's root (``POST /api/hooks/{event}``): every hook event's handler on AWS."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from continuity_core.kernel.clock import Clock
from continuity_core.kernel.config import ContinuityConfig
from continuity_core.kernel.names import QUEUE_ENV
from continuity_core.roots import shared

if TYPE_CHECKING:
    from continuity_core.admin.ratelimit import RateLimiter
    from continuity_core.hooks.ingest import HookDispatcher


@dataclass(frozen=True)
class HooksDeps:
    config: ContinuityConfig
    hooks: HookDispatcher
    rate_limiter: RateLimiter


def build(env: Mapping[str, str], clock: Clock) -> HooksDeps:
    from continuity_core.checkpoints.writer import CheckpointWriter
    from continuity_core.hooks.ingest import wire_hooks
    from continuity_core.hooks.sqs_flush_queue import SqsFlushQueue
    from continuity_core.recovery.inherit import InheritanceService

    settings = shared.config(env)
    states = shared.state_store(env, settings, clock)
    checkpoints = shared.checkpoint_store(env, settings, clock)
    transcripts = shared.transcript_reader(env, settings, clock, states)
    hooks = wire_hooks(
        states=states,
        checkpoints=checkpoints,
        flushes=SqsFlushQueue(shared.required(env, QUEUE_ENV)),
        writer=CheckpointWriter(states, checkpoints, settings, clock, transcripts=transcripts),
        transcripts=shared.transcript_appender(env, settings),
        inheritance=InheritanceService(transcripts, checkpoints, states, settings),
        injections=shared.injection_log(env, settings, clock),
        config=settings,
        clock=clock,
    )
    return HooksDeps(settings, hooks, shared.rate_limiter(env, settings, clock))
