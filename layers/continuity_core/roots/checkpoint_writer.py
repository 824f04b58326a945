"""The checkpoint writer's root (the flush queue's consumer): the writer over its stores, its one
need (``build`` returns it)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from continuity_core.kernel.clock import Clock
from continuity_core.roots import shared

if TYPE_CHECKING:
    from continuity_core.checkpoints.writer import CheckpointWriter


def build(env: Mapping[str, str], clock: Clock) -> CheckpointWriter:
    settings = shared.config(env)
    return shared.checkpoint_writer(env, settings, clock, states=shared.state_store(env, settings, clock))
