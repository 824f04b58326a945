"""The pruner's root: deletes what outlived its retention (``retention/retention.py``); the pruner
is its one need (``build`` returns it)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from continuity_core.kernel.clock import Clock
from continuity_core.roots import shared

if TYPE_CHECKING:
    from continuity_core.retention.retention import Pruner


def build(env: Mapping[str, str], clock: Clock) -> Pruner:
    from continuity_core.retention.dynamo_retention import DynamoRetentionStore
    from continuity_core.retention.retention import Pruner

    store = DynamoRetentionStore(shared.table(env), shared.bodies(env))
    return Pruner(store, shared.config(env), clock)
