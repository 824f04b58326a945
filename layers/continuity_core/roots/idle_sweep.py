"""The idle sweep's root: final checkpoints of sessions whose end never came (``checkpoints/idle.py``);
the sweeper is its one need (``build`` returns it)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from continuity_core.kernel.clock import Clock
from continuity_core.roots import shared

if TYPE_CHECKING:
    from continuity_core.checkpoints.idle import IdleSweeper


def build(env: Mapping[str, str], clock: Clock) -> IdleSweeper:
    from continuity_core.checkpoints.dynamo_idle import DynamoIdleIndex
    from continuity_core.checkpoints.idle import IdleSweeper

    settings = shared.config(env)
    states = shared.state_store(env, settings, clock)
    writer = shared.checkpoint_writer(env, settings, clock, states)
    return IdleSweeper(DynamoIdleIndex(shared.table(env)), states, writer, settings, clock)
