"""What every function builds the same way: the DynamoDB-backed stores and the services over them.

Plain functions, no cache: a root calls them once, on its cold start, and passes what one returns
to the next (the state store the writer and the reader share is one instance). Each imports what it
builds, so a function loads only the adapters and rules it uses (the hook path never imports
search, tokens or the ledger), which keeps cold starts small.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING

from continuity_core.kernel.clock import Clock
from continuity_core.kernel.config import ConfigError, ContinuityConfig, describe_errors
from continuity_core.kernel.names import BUCKET_ENV, TABLE_ENV

if TYPE_CHECKING:
    from continuity_core.admin.ratelimit import RateLimiter
    from continuity_core.checkpoints.dynamo_checkpoints import DynamoCheckpointStore
    from continuity_core.checkpoints.writer import CheckpointWriter
    from continuity_core.hooks.dynamo_state import DynamoStateStore
    from continuity_core.recovery.dynamo_handoffs import DynamoHandoffStore
    from continuity_core.recovery.dynamo_injections import DynamoInjectionLog
    from continuity_core.sessions.search import SearchIndex, TranscriptSearchService
    from continuity_core.transcripts.append import TranscriptAppender
    from continuity_core.transcripts.dynamo_transcripts import DynamoTranscriptStorage
    from continuity_core.transcripts.read import TranscriptReader
    from continuity_core.transcripts.s3_bodies import S3BodyStore


def required(env: Mapping[str, str], name: str) -> str:
    value = env.get(name)
    if not value:
        raise RuntimeError(f"environment variable {name} is not set")
    return value


def config(env: Mapping[str, str]) -> ContinuityConfig:
    """The ``CONTINUITY_*`` settings; a bad value fails the cold start naming its variable."""
    from pydantic import ValidationError

    try:
        return ContinuityConfig.from_environment(env)
    except ValidationError as error:
        raise ConfigError(f"invalid Continuity configuration: {describe_errors(error)}") from error


def table(env: Mapping[str, str]) -> str:
    return required(env, TABLE_ENV)


def bodies(env: Mapping[str, str]) -> S3BodyStore:
    """Transcript bodies in S3; a function without the bucket variable fails only when a body
    first moves there (as the adapter resolves it)."""
    from continuity_core.transcripts.s3_bodies import S3BodyStore

    return S3BodyStore(env.get(BUCKET_ENV) or None)


def state_store(env: Mapping[str, str], settings: ContinuityConfig, clock: Clock) -> DynamoStateStore:
    from continuity_core.hooks.dynamo_state import DynamoStateStore

    return DynamoStateStore(table(env), ttl=timedelta(days=settings.retention_days), clock=clock)


def checkpoint_store(
    env: Mapping[str, str], settings: ContinuityConfig, clock: Clock
) -> DynamoCheckpointStore:
    from continuity_core.checkpoints.dynamo_checkpoints import DynamoCheckpointStore

    return DynamoCheckpointStore(table(env), retention=timedelta(days=settings.retention_days), clock=clock)


def injection_log(env: Mapping[str, str], settings: ContinuityConfig, clock: Clock) -> DynamoInjectionLog:
    """What each session start and sub-agent start injected, with the session's retention."""
    from continuity_core.recovery.dynamo_injections import DynamoInjectionLog

    return DynamoInjectionLog(table(env), retention=timedelta(days=settings.retention_days), clock=clock)


def handoff_store(env: Mapping[str, str], settings: ContinuityConfig, clock: Clock) -> DynamoHandoffStore:
    from continuity_core.recovery.dynamo_handoffs import DynamoHandoffStore

    return DynamoHandoffStore(table(env), retention=timedelta(days=settings.retention_days), clock=clock)


def transcript_storage(env: Mapping[str, str], settings: ContinuityConfig) -> DynamoTranscriptStorage:
    from continuity_core.transcripts.dynamo_transcripts import DynamoTranscriptStorage

    return DynamoTranscriptStorage(
        table(env), bodies(env), retention=timedelta(days=settings.transcript_retention_days)
    )


def transcript_reader(
    env: Mapping[str, str], settings: ContinuityConfig, clock: Clock, states: DynamoStateStore
) -> TranscriptReader:
    """What search, inheritance, the writer and the session API read of transcripts."""
    from continuity_core.transcripts.read import TranscriptReader

    return TranscriptReader(transcript_storage(env, settings), states, clock)


def transcript_appender(env: Mapping[str, str], settings: ContinuityConfig) -> TranscriptAppender:
    from continuity_core.transcripts.append import TranscriptAppender

    return TranscriptAppender(
        transcript_storage(env, settings),
        chunk_chars=settings.transcript_chunk_chars,
        keep_chars=settings.tail_chars,
    )


def checkpoint_writer(
    env: Mapping[str, str], settings: ContinuityConfig, clock: Clock, states: DynamoStateStore
) -> CheckpointWriter:
    """The writer over ``states`` and its own checkpoint and transcript stores."""
    from continuity_core.checkpoints.writer import CheckpointWriter

    return CheckpointWriter(
        states,
        checkpoint_store(env, settings, clock),
        settings,
        clock,
        transcripts=transcript_reader(env, settings, clock, states),
    )


def rate_limiter(env: Mapping[str, str], settings: ContinuityConfig, clock: Clock) -> RateLimiter:
    """Each token's requests per minute, counted across instances (every HTTP function's)."""
    from continuity_core.admin.dynamo_rate import DynamoRateCounter
    from continuity_core.admin.ratelimit import RateLimiter

    return RateLimiter(DynamoRateCounter(table(env)), settings.rate_limit_per_minute, clock)


def search_index(env: Mapping[str, str]) -> SearchIndex:
    """Kept by the warm function: it reads only what was appended since it last indexed.

    Sized to the function: 64 Ki characters per MB (text plus index take about a quarter of it)."""
    from continuity_core.sessions.search import SearchIndex

    memory_mb = int(env.get("AWS_LAMBDA_FUNCTION_MEMORY_SIZE") or 1024)
    return SearchIndex(max_chars=memory_mb * 65_536)


@dataclass(frozen=True)
class Search:
    """Ranked full text over the live transcripts of the sessions in scope, and the in-memory index
    it keeps warm (closed when the function's build is let go)."""

    index: SearchIndex
    service: TranscriptSearchService

    def close(self) -> None:
        self.index.reset()


def search(env: Mapping[str, str], settings: ContinuityConfig, transcripts: TranscriptReader) -> Search:
    from continuity_core.sessions.search import TranscriptSearchService

    index = search_index(env)
    return Search(index, TranscriptSearchService(transcripts, settings, index))
