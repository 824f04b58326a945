"""The hook path on in-memory stores (``hook_dispatcher``), and the no-op ports a test passes when
its hooks have no use for them: no transcript kept, no parent to inherit from.

Every handler takes its ports as required arguments; a test that does not exercise transcripts or
inheritance gives it these, as the function's composition gives the real ones."""

from __future__ import annotations

from datetime import datetime

from continuity_core.checkpoints.writer import CheckpointWriter
from continuity_core.hooks.ingest import HookDispatcher, wire_hooks
from continuity_core.kernel.clock import Clock
from continuity_core.kernel.config import ContinuityConfig
from continuity_core.models.hooks import Hook
from continuity_core.models.state import SessionIdentity
from continuity_core.recovery.ports import Inheritance, InheritedBlock
from continuity_core.transcripts.ports import AppendResult, TranscriptHint, TranscriptLog
from tests.fakes.stores import Stores


class NoTranscripts:
    """A ``TranscriptLog`` that keeps nothing: every delta is taken, none is stored."""

    def append(
        self,
        agent_id: str,
        identity: SessionIdentity,
        offset: int,
        text: str,
        now: datetime,
        hint: TranscriptHint | None = None,
    ) -> AppendResult:
        return AppendResult(length=offset + len(text))


class NoInheritance:
    """An ``Inheritance`` with no parent to inherit from: a sub-agent starts with nothing."""

    def inherit(
        self, agent_id: str, hook: Hook, now: datetime, budget: int | None = None
    ) -> InheritedBlock | None:
        return None


def hook_dispatcher(
    stores: Stores,
    config: ContinuityConfig,
    clock: Clock,
    writer: CheckpointWriter | None = None,
    transcripts: TranscriptLog | None = None,
    inheritance: Inheritance | None = None,
) -> HookDispatcher:
    """Every hook handler on ``stores``; the writer built on them (no retry sleeps) unless given, and
    no transcripts kept nor inheritance unless given."""
    return wire_hooks(
        stores.states,
        stores.checkpoints,
        stores.flushes,
        writer or CheckpointWriter(stores.states, stores.checkpoints, config, clock, sleep=lambda _: None),
        transcripts or NoTranscripts(),
        inheritance or NoInheritance(),
        stores.injections,
        config,
        clock,
    )
