"""The one cached factory that wires domain services to their AWS adapters, from the environment.

Each factory imports what it builds: a function loads only the adapters and logic it uses (the
hook path never imports search, tokens or the ledger), which keeps cold starts small.

What a factory builds is kept per sandbox. On Lambda a process is one function's sandbox, so there
is one cache, as ``lru_cache`` would keep. Tests run every function in one process and give each
its own sandbox (``use_sandbox``), so a function never uses a service another one built from its
own environment, and each stays warm across its invocations as on Lambda.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, TypeVar, cast

from continuity_core.kernel.aws import required_env
from continuity_core.kernel.config import get_config
from continuity_core.kernel.names import API_TOKEN_ENV, DLQ_ENV, QUEUE_ENV, TABLE_ENV

if TYPE_CHECKING:
    from continuity_core.admin.forget import Forgetter
    from continuity_core.admin.health import HealthReader
    from continuity_core.admin.ratelimit import RateLimiter
    from continuity_core.admin.tokens import TokenService
    from continuity_core.checkpoints.agent_digests import DigestService
    from continuity_core.checkpoints.dynamo_checkpoints import DynamoCheckpointStore
    from continuity_core.checkpoints.dynamo_ledger import DynamoLedgerStore
    from continuity_core.checkpoints.idle import IdleSweeper
    from continuity_core.checkpoints.writer import CheckpointWriter
    from continuity_core.hooks.dynamo_state import DynamoStateStore
    from continuity_core.hooks.ingest import HookDispatcher
    from continuity_core.recovery.dynamo_handoffs import DynamoHandoffStore
    from continuity_core.recovery.dynamo_injections import DynamoInjectionLog
    from continuity_core.recovery.handoff import HandoffService
    from continuity_core.recovery.inherit import InheritanceService
    from continuity_core.recovery.start import StartPreview
    from continuity_core.recovery.tiers import TieredRecovery
    from continuity_core.retention.retention import Pruner
    from continuity_core.sessions.dashboard import DashboardReader
    from continuity_core.sessions.ports import TranscriptSearch
    from continuity_core.sessions.reads import CheckpointReader, LedgerReader
    from continuity_core.sessions.search import SearchIndex
    from continuity_core.sessions.sessions import SessionReader
    from continuity_core.transcripts.append import TranscriptAppender
    from continuity_core.transcripts.dynamo_transcripts import DynamoTranscriptStorage
    from continuity_core.transcripts.read import TranscriptReader


T = TypeVar("T")
_sandboxes: dict[str | None, dict[str, Any]] = {}
_sandbox: list[str | None] = [None]  # the one whose services the factories return


def use_sandbox(name: str | None) -> str | None:
    """Tests: the factories build and return ``name``'s own services from now on (None: the
    test's own); returns the sandbox in use before."""
    previous, _sandbox[0] = _sandbox[0], name
    return previous


def _cached(factory: Callable[[], T]) -> Callable[[], T]:
    """One instance per sandbox, built on first use."""

    @functools.wraps(factory)
    def get() -> T:
        built = _sandboxes.setdefault(_sandbox[0], {})
        if factory.__name__ not in built:
            built.setdefault(factory.__name__, factory())  # two first calls at once: the first stays
        return cast(T, built[factory.__name__])

    return get


def utc_now() -> datetime:
    return datetime.now(UTC)


@_cached
def state_store() -> DynamoStateStore:
    from continuity_core.hooks.dynamo_state import DynamoStateStore

    return DynamoStateStore(
        required_env(TABLE_ENV), ttl=timedelta(days=get_config().retention_days), clock=utc_now
    )


@_cached
def injection_log() -> DynamoInjectionLog:
    """What each session start and sub-agent start injected, with the session's retention."""
    from continuity_core.recovery.dynamo_injections import DynamoInjectionLog

    return DynamoInjectionLog(
        required_env(TABLE_ENV), retention=timedelta(days=get_config().retention_days), clock=utc_now
    )


@_cached
def checkpoint_store() -> DynamoCheckpointStore:
    from continuity_core.checkpoints.dynamo_checkpoints import DynamoCheckpointStore

    return DynamoCheckpointStore(
        required_env(TABLE_ENV), retention=timedelta(days=get_config().retention_days), clock=utc_now
    )


@_cached
def checkpoint_writer() -> CheckpointWriter:
    from continuity_core.checkpoints.writer import CheckpointWriter

    return CheckpointWriter(
        state_store(), checkpoint_store(), get_config(), utc_now, transcripts=transcript_store()
    )


@_cached
def ledger_store() -> DynamoLedgerStore:
    from continuity_core.checkpoints.dynamo_ledger import DynamoLedgerStore

    return DynamoLedgerStore(required_env(TABLE_ENV))


@_cached
def checkpoint_reader() -> CheckpointReader:
    from continuity_core.sessions.reads import CheckpointReader

    return CheckpointReader(checkpoint_store())


@_cached
def ledger_reader() -> LedgerReader:
    from continuity_core.sessions.reads import LedgerReader

    return LedgerReader(ledger_store())


@_cached
def start_preview() -> StartPreview:
    """What a session starting now would be given (``GET /api/preview``): reads only."""
    from continuity_core.recovery.start import StartPreview

    return StartPreview(checkpoint_store(), get_config(), utc_now)


@_cached
def handoff_store() -> DynamoHandoffStore:
    from continuity_core.recovery.dynamo_handoffs import DynamoHandoffStore

    return DynamoHandoffStore(
        required_env(TABLE_ENV), retention=timedelta(days=get_config().retention_days), clock=utc_now
    )


@_cached
def handoff_service() -> HandoffService:
    """``POST /api/sessions/{session_key}/handoff``: the session's ``handoff`` checkpoint and hand-off."""
    from continuity_core.recovery.handoff import HandoffService

    return HandoffService(checkpoint_writer(), handoff_store(), utc_now)


@_cached
def digest_service() -> DigestService:
    from continuity_core.checkpoints.agent_digests import DigestService

    return DigestService(state_store(), checkpoint_store(), ledger_store(), get_config(), utc_now)


@_cached
def tiered_recovery() -> TieredRecovery:
    from continuity_core.recovery.tiers import TieredRecovery

    return TieredRecovery(checkpoint_store(), ledger_store(), utc_now, search=transcript_search())


@_cached
def transcript_storage() -> DynamoTranscriptStorage:
    from continuity_core.transcripts.dynamo_transcripts import DynamoTranscriptStorage
    from continuity_core.transcripts.s3_bodies import S3BodyStore

    return DynamoTranscriptStorage(
        required_env(TABLE_ENV),
        S3BodyStore(),  # the bucket (TRANSCRIPT_BUCKET_NAME) is resolved when a body first moves to S3
        retention=timedelta(days=get_config().transcript_retention_days),
    )


@_cached
def transcript_store() -> TranscriptReader:
    """What search, inheritance, the writer and the session API read of transcripts."""
    from continuity_core.transcripts.read import TranscriptReader

    return TranscriptReader(transcript_storage(), state_store(), utc_now)


@_cached
def transcript_appender() -> TranscriptAppender:
    from continuity_core.transcripts.append import TranscriptAppender

    config = get_config()
    return TranscriptAppender(
        transcript_storage(), chunk_chars=config.transcript_chunk_chars, keep_chars=config.tail_chars
    )


@_cached
def search_index() -> SearchIndex:
    """Process-wide: a warm function keeps what it indexed and reads only what was appended since.

    Sized to the function: 64 Ki characters per MB (text plus index take about a quarter of it)."""
    from continuity_core.sessions.search import SearchIndex

    memory_mb = int(os.environ.get("AWS_LAMBDA_FUNCTION_MEMORY_SIZE") or 1024)
    return SearchIndex(max_chars=memory_mb * 65_536)


@_cached
def transcript_search() -> TranscriptSearch | None:
    """Search over live transcripts (ranked full text over the sessions in scope)."""
    from continuity_core.sessions.search import TranscriptSearchService

    return TranscriptSearchService(transcript_store(), get_config(), search_index())


@_cached
def session_reader() -> SessionReader:
    """The session API: lists, transcript pages, and search over the scope it works out."""
    from continuity_core.sessions.sessions import SessionReader

    return SessionReader(transcript_store(), transcript_search(), handoff_store())


@_cached
def dashboard_reader() -> DashboardReader:
    """The dashboard's pages: sessions with their state, a session's timeline, a checkpoint's diff."""
    from continuity_core.sessions.dashboard import DashboardReader

    return DashboardReader(
        transcript_store(), state_store(), checkpoint_store(), utc_now, injection_log(), handoff_store()
    )


@_cached
def inheritance() -> InheritanceService:
    from continuity_core.recovery.inherit import InheritanceService

    return InheritanceService(transcript_store(), checkpoint_store(), state_store(), get_config())


@_cached
def hook_service() -> HookDispatcher:
    """Every hook event's handler, behind the one dispatcher the hooks function calls."""
    from continuity_core.hooks.ingest import wire_hooks
    from continuity_core.hooks.sqs_flush_queue import SqsFlushQueue

    return wire_hooks(
        states=state_store(),
        checkpoints=checkpoint_store(),
        flushes=SqsFlushQueue(required_env(QUEUE_ENV)),
        writer=checkpoint_writer(),
        transcripts=transcript_appender(),
        inheritance=inheritance(),
        injections=injection_log(),
        config=get_config(),
        clock=utc_now,
    )


@_cached
def token_service() -> TokenService:
    from continuity_core.admin.dynamo_tokens import DynamoTokenStore
    from continuity_core.admin.tokens import TokenService

    return TokenService(DynamoTokenStore(required_env(TABLE_ENV)), utc_now, os.environ.get(API_TOKEN_ENV))


@_cached
def health_reader() -> HealthReader:
    """The admin's health page: queue depths, requests per minute, the pruner's cursor."""
    from continuity_core.admin.dynamo_health import AwsHealthSource
    from continuity_core.admin.dynamo_tokens import DynamoTokenStore
    from continuity_core.admin.health import HealthReader

    table = required_env(TABLE_ENV)
    source = AwsHealthSource(table, required_env(QUEUE_ENV), required_env(DLQ_ENV))
    return HealthReader(DynamoTokenStore(table), source, utc_now)


@_cached
def rate_limiter() -> RateLimiter:
    from continuity_core.admin.dynamo_rate import DynamoRateCounter
    from continuity_core.admin.ratelimit import RateLimiter

    return RateLimiter(
        DynamoRateCounter(required_env(TABLE_ENV)), get_config().rate_limit_per_minute, utc_now
    )


@_cached
def forgetter() -> Forgetter:
    """Deleting a session's or a project's data now (``admin/forget.py``)."""
    from continuity_core.admin.dynamo_erase import DynamoErasureStore
    from continuity_core.admin.forget import Forgetter
    from continuity_core.transcripts.s3_bodies import S3BodyStore

    return Forgetter(DynamoErasureStore(required_env(TABLE_ENV), S3BodyStore()), get_config(), utc_now)


@_cached
def pruner() -> Pruner:
    """The scheduled pruner: deletes what outlived its retention (``retention/retention.py``)."""
    from continuity_core.retention.dynamo_retention import DynamoRetentionStore
    from continuity_core.retention.retention import Pruner
    from continuity_core.transcripts.s3_bodies import S3BodyStore

    return Pruner(DynamoRetentionStore(required_env(TABLE_ENV), S3BodyStore()), get_config(), utc_now)


@_cached
def idle_sweeper() -> IdleSweeper:
    """The scheduled idle sweep: final checkpoints of sessions whose end never came
    (``checkpoints/idle.py``)."""
    from continuity_core.checkpoints.dynamo_idle import DynamoIdleIndex
    from continuity_core.checkpoints.idle import IdleSweeper

    index = DynamoIdleIndex(required_env(TABLE_ENV))
    return IdleSweeper(index, state_store(), checkpoint_writer(), get_config(), utc_now)


def reset() -> None:
    """Forget every sandbox's services and the config (tests change the environment); a search
    index is emptied as it is let go (it holds an in-memory database)."""
    for built in _sandboxes.values():
        index = built.get(search_index.__name__)
        if index is not None:
            index.reset()
    _sandboxes.clear()
    get_config.cache_clear()
