"""The real adapters and services (on moto), built directly from the test's environment.

What a test reads or stages behind the handlers' backs: built as each function's composition root
builds them (``continuity_core/roots/shared.py``), with the real clock unless the test passes its own.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from continuity_core.kernel.clock import Clock, utc_now
from continuity_core.roots import shared

if TYPE_CHECKING:
    from continuity_core.admin.tokens import TokenService
    from continuity_core.checkpoints.dynamo_checkpoints import DynamoCheckpointStore
    from continuity_core.checkpoints.writer import CheckpointWriter
    from continuity_core.hooks.dynamo_state import DynamoStateStore
    from continuity_core.hooks.ingest import HookDispatcher
    from continuity_core.recovery.dynamo_injections import DynamoInjectionLog
    from continuity_core.transcripts.append import TranscriptAppender
    from continuity_core.transcripts.read import TranscriptReader


def state_store(clock: Clock = utc_now) -> DynamoStateStore:
    return shared.state_store(os.environ, shared.config(os.environ), clock)


def checkpoint_store(clock: Clock = utc_now) -> DynamoCheckpointStore:
    return shared.checkpoint_store(os.environ, shared.config(os.environ), clock)


def injection_log(clock: Clock = utc_now) -> DynamoInjectionLog:
    return shared.injection_log(os.environ, shared.config(os.environ), clock)


def checkpoint_writer(clock: Clock = utc_now) -> CheckpointWriter:
    settings = shared.config(os.environ)
    return shared.checkpoint_writer(
        os.environ, settings, clock, shared.state_store(os.environ, settings, clock)
    )


def transcript_reader(clock: Clock = utc_now) -> TranscriptReader:
    settings = shared.config(os.environ)
    states = shared.state_store(os.environ, settings, clock)
    return shared.transcript_reader(os.environ, settings, clock, states)


def transcript_appender() -> TranscriptAppender:
    return shared.transcript_appender(os.environ, shared.config(os.environ))


def token_service(clock: Clock = utc_now) -> TokenService:
    from continuity_core.roots.tokens import token_service as build

    return build(os.environ, clock)


def hook_dispatcher(clock: Clock = utc_now) -> HookDispatcher:
    """The hooks function's dispatcher, as its root builds it (needs the queue URL)."""
    from continuity_core.roots import hooks

    return hooks.build(os.environ, clock).hooks
