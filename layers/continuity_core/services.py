"""The one cached factory that wires domain services to their AWS adapters, from the environment.

Each factory imports what it builds: a function loads only the adapters and logic it uses (the
hook path never imports search, tokens or the ledger), which keeps cold starts small.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import TYPE_CHECKING

from continuity_core.adapters.aws import required_env
from continuity_core.config import get_config
from continuity_core.names import API_TOKEN_ENV, QUEUE_ENV, TABLE_ENV

if TYPE_CHECKING:
    from continuity_core.adapters.dynamo_checkpoints import DynamoCheckpointStore
    from continuity_core.adapters.dynamo_ledger import DynamoLedgerStore
    from continuity_core.adapters.dynamo_state import DynamoStateStore
    from continuity_core.adapters.dynamo_transcripts import DynamoTranscriptStorage
    from continuity_core.logic.dashboard import DashboardReader
    from continuity_core.logic.digests import DigestService
    from continuity_core.logic.ingest import HookService
    from continuity_core.logic.inherit import InheritanceService
    from continuity_core.logic.ratelimit import RateLimiter
    from continuity_core.logic.reads import CheckpointReader, LedgerReader
    from continuity_core.logic.retention import Pruner
    from continuity_core.logic.search import SearchIndex
    from continuity_core.logic.sessions import SessionReader
    from continuity_core.logic.tiers import TieredRecovery
    from continuity_core.logic.tokens import TokenService
    from continuity_core.logic.transcript_append import TranscriptAppender
    from continuity_core.logic.transcript_read import TranscriptReader
    from continuity_core.logic.writer import CheckpointWriter
    from continuity_core.ports import TranscriptSearch


def utc_now() -> datetime:
    return datetime.now(UTC)


@lru_cache(maxsize=1)
def state_store() -> DynamoStateStore:
    from continuity_core.adapters.dynamo_state import DynamoStateStore

    return DynamoStateStore(
        required_env(TABLE_ENV), ttl=timedelta(days=get_config().retention_days), clock=utc_now
    )


@lru_cache(maxsize=1)
def checkpoint_store() -> DynamoCheckpointStore:
    from continuity_core.adapters.dynamo_checkpoints import DynamoCheckpointStore

    return DynamoCheckpointStore(
        required_env(TABLE_ENV), retention=timedelta(days=get_config().retention_days), clock=utc_now
    )


@lru_cache(maxsize=1)
def checkpoint_writer() -> CheckpointWriter:
    from continuity_core.logic.writer import CheckpointWriter

    return CheckpointWriter(
        state_store(), checkpoint_store(), get_config(), utc_now, transcripts=transcript_store()
    )


@lru_cache(maxsize=1)
def ledger_store() -> DynamoLedgerStore:
    from continuity_core.adapters.dynamo_ledger import DynamoLedgerStore

    return DynamoLedgerStore(required_env(TABLE_ENV))


@lru_cache(maxsize=1)
def checkpoint_reader() -> CheckpointReader:
    from continuity_core.logic.reads import CheckpointReader

    return CheckpointReader(checkpoint_store())


@lru_cache(maxsize=1)
def ledger_reader() -> LedgerReader:
    from continuity_core.logic.reads import LedgerReader

    return LedgerReader(ledger_store())


@lru_cache(maxsize=1)
def digest_service() -> DigestService:
    from continuity_core.logic.digests import DigestService

    return DigestService(state_store(), checkpoint_store(), ledger_store(), get_config(), utc_now)


@lru_cache(maxsize=1)
def tiered_recovery() -> TieredRecovery:
    from continuity_core.logic.tiers import TieredRecovery

    return TieredRecovery(checkpoint_store(), ledger_store(), utc_now, search=transcript_search())


@lru_cache(maxsize=1)
def transcript_storage() -> DynamoTranscriptStorage:
    from continuity_core.adapters.dynamo_transcripts import DynamoTranscriptStorage
    from continuity_core.adapters.s3_bodies import S3BodyStore

    return DynamoTranscriptStorage(
        required_env(TABLE_ENV),
        S3BodyStore(),  # the bucket (TRANSCRIPT_BUCKET_NAME) is resolved when a body first moves to S3
        retention=timedelta(days=get_config().transcript_retention_days),
    )


@lru_cache(maxsize=1)
def transcript_store() -> TranscriptReader:
    """What search, inheritance, the writer and the session API read of transcripts."""
    from continuity_core.logic.transcript_read import TranscriptReader

    return TranscriptReader(transcript_storage(), state_store(), utc_now)


@lru_cache(maxsize=1)
def transcript_appender() -> TranscriptAppender:
    from continuity_core.logic.transcript_append import TranscriptAppender

    config = get_config()
    return TranscriptAppender(
        transcript_storage(), chunk_chars=config.transcript_chunk_chars, keep_chars=config.tail_chars
    )


@lru_cache(maxsize=1)
def search_index() -> SearchIndex:
    """Process-wide: a warm function keeps what it indexed and reads only what was appended since.

    Sized to the function: 64 Ki characters per MB (text plus index take about a quarter of it)."""
    from continuity_core.logic.search import SearchIndex

    memory_mb = int(os.environ.get("AWS_LAMBDA_FUNCTION_MEMORY_SIZE") or 1024)
    return SearchIndex(max_chars=memory_mb * 65_536)


@lru_cache(maxsize=1)
def transcript_search() -> TranscriptSearch | None:
    """Search over live transcripts (ranked full text over the sessions in scope)."""
    from continuity_core.logic.search import TranscriptSearchService

    return TranscriptSearchService(transcript_store(), get_config(), search_index())


@lru_cache(maxsize=1)
def session_reader() -> SessionReader:
    """The session API: lists, transcript pages, and search over the scope it works out."""
    from continuity_core.logic.sessions import SessionReader

    return SessionReader(transcript_store(), transcript_search())


@lru_cache(maxsize=1)
def dashboard_reader() -> DashboardReader:
    """The dashboard's pages: sessions with their state, a session's timeline, a checkpoint's diff."""
    from continuity_core.logic.dashboard import DashboardReader

    return DashboardReader(transcript_store(), state_store(), checkpoint_store(), utc_now)


@lru_cache(maxsize=1)
def inheritance() -> InheritanceService:
    from continuity_core.logic.inherit import InheritanceService

    return InheritanceService(transcript_store(), checkpoint_store(), state_store(), get_config())


@lru_cache(maxsize=1)
def hook_service() -> HookService:
    from continuity_core.adapters.sqs_flush_queue import SqsFlushQueue
    from continuity_core.logic.ingest import HookService

    return HookService(
        states=state_store(),
        checkpoints=checkpoint_store(),
        flushes=SqsFlushQueue(required_env(QUEUE_ENV)),
        config=get_config(),
        clock=utc_now,
        writer=checkpoint_writer(),
        transcripts=transcript_appender(),
        inheritance=inheritance(),
    )


@lru_cache(maxsize=1)
def token_service() -> TokenService:
    from continuity_core.adapters.dynamo_tokens import DynamoTokenStore
    from continuity_core.logic.tokens import TokenService

    return TokenService(DynamoTokenStore(required_env(TABLE_ENV)), utc_now, os.environ.get(API_TOKEN_ENV))


@lru_cache(maxsize=1)
def rate_limiter() -> RateLimiter:
    from continuity_core.adapters.dynamo_rate import DynamoRateCounter
    from continuity_core.logic.ratelimit import RateLimiter

    return RateLimiter(
        DynamoRateCounter(required_env(TABLE_ENV)), get_config().rate_limit_per_minute, utc_now
    )


@lru_cache(maxsize=1)
def pruner() -> Pruner:
    """The scheduled pruner: deletes what outlived its retention (``logic/retention.py``)."""
    from continuity_core.adapters.dynamo_retention import DynamoRetentionStore
    from continuity_core.adapters.s3_bodies import S3BodyStore
    from continuity_core.logic.retention import Pruner

    return Pruner(DynamoRetentionStore(required_env(TABLE_ENV), S3BodyStore()), get_config(), utc_now)


def reset() -> None:
    """Forget every cached service and the config (tests change the environment)."""
    for factory in (
        state_store,
        checkpoint_store,
        checkpoint_writer,
        hook_service,
        ledger_store,
        checkpoint_reader,
        ledger_reader,
        session_reader,
        dashboard_reader,
        digest_service,
        tiered_recovery,
        transcript_storage,
        transcript_store,
        transcript_appender,
        transcript_search,
        inheritance,
        token_service,
        rate_limiter,
        pruner,
        get_config,
    ):
        factory.cache_clear()
    if search_index.cache_info().currsize:
        search_index().reset()
