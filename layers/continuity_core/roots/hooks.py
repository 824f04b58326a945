"""The hooks function's root (``POST /api/hooks/{event}``): every hook event's handler on AWS.

Most hooks are prompts and stops. What only the other events use is wired here like the rest but
built on its first use (``on_first_use``; the handlers of those events likewise, ``OnFirstHook``):
the checkpoint writer (the rolling digest and extraction), the checkpoint store, the inheritance
service, the injection log. Built here, a cold start at a prompt paid ~100 ms for them
(docs/BENCHMARKS.md, ``cold_start_ratio``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from continuity_core.kernel.clock import Clock
from continuity_core.kernel.config import ContinuityConfig
from continuity_core.kernel.names import QUEUE_ENV
from continuity_core.kernel.once import Once, on_first_use
from continuity_core.roots import shared

if TYPE_CHECKING:
    from continuity_core.admin.ratelimit import RateLimiter
    from continuity_core.checkpoints.dynamo_checkpoints import DynamoCheckpointStore
    from continuity_core.checkpoints.writer import CheckpointWriter
    from continuity_core.hooks.ingest import HookDispatcher
    from continuity_core.recovery.inherit import InheritanceService
    from continuity_core.transcripts.read import TranscriptReader


@dataclass(frozen=True)
class HooksDeps:
    config: ContinuityConfig
    hooks: HookDispatcher
    rate_limiter: RateLimiter


def build(env: Mapping[str, str], clock: Clock) -> HooksDeps:
    from continuity_core.hooks.ingest import wire_hooks
    from continuity_core.hooks.sqs_flush_queue import SqsFlushQueue

    settings = shared.config(env)
    states = shared.state_store(env, settings, clock)
    checkpoints: DynamoCheckpointStore = on_first_use(lambda: shared.checkpoint_store(env, settings, clock))
    # The writer and the inheritance service read transcripts through one reader.
    reader: Once[TranscriptReader] = Once(lambda: shared.transcript_reader(env, settings, clock, states))

    def writer() -> CheckpointWriter:
        from continuity_core.checkpoints.writer import CheckpointWriter

        return CheckpointWriter(states, checkpoints, settings, clock, transcripts=reader())

    def inheritance() -> InheritanceService:
        from continuity_core.recovery.inherit import InheritanceService

        return InheritanceService(reader(), checkpoints, states, settings)

    hooks = wire_hooks(
        states=states,
        checkpoints=checkpoints,
        flushes=SqsFlushQueue(shared.required(env, QUEUE_ENV)),
        writer=on_first_use(writer),
        transcripts=shared.transcript_appender(env, settings),
        inheritance=on_first_use(inheritance),
        injections=on_first_use(lambda: shared.injection_log(env, settings, clock)),
        config=settings,
        clock=clock,
    )
    return HooksDeps(settings, hooks, shared.rate_limiter(env, settings, clock))
