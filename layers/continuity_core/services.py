"""The one cached factory that wires domain services to their AWS adapters, from the environment."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from functools import lru_cache

from continuity_core.adapters.aws import required_env
from continuity_core.adapters.dynamo_checkpoints import DynamoCheckpointStore
from continuity_core.adapters.dynamo_ledger import DynamoLedgerStore
from continuity_core.adapters.dynamo_state import DynamoStateStore
from continuity_core.adapters.sqs_flush_queue import SqsFlushQueue
from continuity_core.config import get_config
from continuity_core.logic.digests import DigestService
from continuity_core.logic.ingest import HookService
from continuity_core.logic.tiers import TieredRecovery
from continuity_core.logic.writer import CheckpointWriter
from continuity_core.ports import TranscriptSearch

TABLE_ENV = "CONTINUITY_TABLE_NAME"
QUEUE_ENV = "CHECKPOINT_QUEUE_URL"


def utc_now() -> datetime:
    return datetime.now(UTC)


@lru_cache(maxsize=1)
def state_store() -> DynamoStateStore:
    return DynamoStateStore(required_env(TABLE_ENV), ttl=timedelta(days=get_config().retention_days))


@lru_cache(maxsize=1)
def checkpoint_store() -> DynamoCheckpointStore:
    return DynamoCheckpointStore(
        required_env(TABLE_ENV), retention=timedelta(days=get_config().retention_days)
    )


@lru_cache(maxsize=1)
def checkpoint_writer() -> CheckpointWriter:
    return CheckpointWriter(state_store(), checkpoint_store(), get_config(), utc_now)


@lru_cache(maxsize=1)
def ledger_store() -> DynamoLedgerStore:
    return DynamoLedgerStore(required_env(TABLE_ENV))


@lru_cache(maxsize=1)
def digest_service() -> DigestService:
    return DigestService(state_store(), checkpoint_store(), ledger_store(), get_config(), utc_now)


@lru_cache(maxsize=1)
def tiered_recovery() -> TieredRecovery:
    return TieredRecovery(checkpoint_store(), ledger_store(), utc_now, search=transcript_search())


def transcript_search() -> TranscriptSearch | None:
    """Search over live transcripts, when the deployment has them (None: checkpoint digests only)."""
    return None


@lru_cache(maxsize=1)
def hook_service() -> HookService:
    return HookService(
        states=state_store(),
        checkpoints=checkpoint_store(),
        flushes=SqsFlushQueue(required_env(QUEUE_ENV)),
        config=get_config(),
        clock=utc_now,
        writer=checkpoint_writer(),
    )


def reset() -> None:
    """Forget every cached service and the config (tests change the environment)."""
    for factory in (
        state_store,
        checkpoint_store,
        checkpoint_writer,
        hook_service,
        ledger_store,
        digest_service,
        tiered_recovery,
        get_config,
    ):
        factory.cache_clear()
