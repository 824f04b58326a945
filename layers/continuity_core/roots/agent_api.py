"""The agent API's root: digests, explicit checkpoints, hand-offs, the ledger, tiered recovery."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from continuity_core.kernel.clock import Clock
from continuity_core.roots import shared

if TYPE_CHECKING:
    from continuity_core.admin.ratelimit import RateLimiter
    from continuity_core.checkpoints.agent_digests import DigestService
    from continuity_core.checkpoints.writer import CheckpointWriter
    from continuity_core.recovery.handoff import HandoffService
    from continuity_core.recovery.tiers import TieredRecovery
    from continuity_core.sessions.reads import LedgerReader


@dataclass(frozen=True)
class AgentApiDeps:
    digests: DigestService
    writer: CheckpointWriter
    handoffs: HandoffService
    ledger: LedgerReader
    recovery: TieredRecovery
    rate_limiter: RateLimiter
    search: shared.Search  # the in-memory index tiered recovery searches (closed on reset)


def build(env: Mapping[str, str], clock: Clock) -> AgentApiDeps:
    from continuity_core.checkpoints.agent_digests import DigestService
    from continuity_core.checkpoints.dynamo_ledger import DynamoLedgerStore
    from continuity_core.checkpoints.writer import CheckpointWriter
    from continuity_core.recovery.handoff import HandoffService
    from continuity_core.recovery.tiers import TieredRecovery
    from continuity_core.sessions.reads import LedgerReader

    settings = shared.config(env)
    states = shared.state_store(env, settings, clock)
    checkpoints = shared.checkpoint_store(env, settings, clock)
    ledger = DynamoLedgerStore(shared.table(env))
    transcripts = shared.transcript_reader(env, settings, clock, states)
    writer = CheckpointWriter(states, checkpoints, settings, clock, transcripts=transcripts)
    search = shared.search(env, settings, transcripts)
    return AgentApiDeps(
        digests=DigestService(states, checkpoints, ledger, settings, clock),
        writer=writer,
        handoffs=HandoffService(writer, shared.handoff_store(env, settings, clock), clock),
        ledger=LedgerReader(ledger),
        recovery=TieredRecovery(checkpoints, ledger, clock, search=search.service),
        rate_limiter=shared.rate_limiter(env, settings, clock),
        search=search,
    )
