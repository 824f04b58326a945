"""The hooks function's root (``POST /api/hooks/{event}``): every hook event's handler on AWS.

The checkpoint writer and the inheritance service are built on their first use, not here: most
hooks (a prompt, a stop) write no checkpoint inline and inherit nothing, and their rules (the
rolling digest and extraction; a parent's context) would cost every cold start ~100 ms of imports
(docs/BENCHMARKS.md, ``cold_start_ratio``). They are still wired here, and only here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from continuity_core.kernel.clock import Clock
from continuity_core.kernel.config import ContinuityConfig
from continuity_core.kernel.names import QUEUE_ENV
from continuity_core.kernel.once import Once
from continuity_core.roots import shared

if TYPE_CHECKING:
    from continuity_core.admin.ratelimit import RateLimiter
    from continuity_core.checkpoints.ports import FlushResult
    from continuity_core.checkpoints.writer import CheckpointWriter
    from continuity_core.hooks.ingest import HookDispatcher
    from continuity_core.models.hooks import Hook
    from continuity_core.recovery.inherit import InheritanceService
    from continuity_core.recovery.ports import InheritedBlock


@dataclass(frozen=True)
class HooksDeps:
    config: ContinuityConfig
    hooks: HookDispatcher
    rate_limiter: RateLimiter


class WriterOnFirstFlush:
    """``Writer``: the checkpoint writer, built on the first flush (a pre-compaction, a session end,
    a remember, a full pending list), then kept."""

    def __init__(self, build: Once[CheckpointWriter]) -> None:
        self.writer = build

    def flush(self, *args: Any, **kwargs: Any) -> FlushResult:
        return self.writer().flush(*args, **kwargs)


class InheritanceOnFirstUse:
    """``Inheritance``: built on the first session or sub-agent start that looks for a parent."""

    def __init__(self, build: Once[InheritanceService]) -> None:
        self.inheritance = build

    def inherit(
        self, agent_id: str, hook: Hook, now: datetime, budget: int | None = None
    ) -> InheritedBlock | None:
        return self.inheritance().inherit(agent_id, hook, now, budget)


def build(env: Mapping[str, str], clock: Clock) -> HooksDeps:
    from continuity_core.hooks.ingest import wire_hooks
    from continuity_core.hooks.sqs_flush_queue import SqsFlushQueue

    settings = shared.config(env)
    states = shared.state_store(env, settings, clock)
    checkpoints = shared.checkpoint_store(env, settings, clock)
    transcripts = shared.transcript_reader(env, settings, clock, states)

    def writer() -> CheckpointWriter:
        from continuity_core.checkpoints.writer import CheckpointWriter

        return CheckpointWriter(states, checkpoints, settings, clock, transcripts=transcripts)

    def inheritance() -> InheritanceService:
        from continuity_core.recovery.inherit import InheritanceService

        return InheritanceService(transcripts, checkpoints, states, settings)

    hooks = wire_hooks(
        states=states,
        checkpoints=checkpoints,
        flushes=SqsFlushQueue(shared.required(env, QUEUE_ENV)),
        writer=WriterOnFirstFlush(Once(writer)),
        transcripts=shared.transcript_appender(env, settings),
        inheritance=InheritanceOnFirstUse(Once(inheritance)),
        injections=shared.injection_log(env, settings, clock),
        config=settings,
        clock=clock,
    )
    return HooksDeps(settings, hooks, shared.rate_limiter(env, settings, clock))
