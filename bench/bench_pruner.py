"""The pruner's reads per item it retires, in-process on moto, a day of hourly runs.

- pruner_read_per_deleted_1k / _100k: items read ÷ items retired over 24 hourly runs (an injected
  clock, the cursor where a pruner that has been running would have it) that retire about 1,000 /
  100,000 DynamoDB items, while twice as many live items are stored. Items read are counted from the
  DynamoDB responses of the pruner's own client (``ScannedCount`` of each Query, the item of each
  GetItem, the item an UpdateItem hands back); items retired are the session states and transcript
  heads it deletes and the checkpoints it leaves to DynamoDB's TTL (hidden at their instant; the S3
  bodies are not counted). Since 2026-11-27 each bucket is read twice, a span ahead (to keep active
  sessions' newest checkpoints before they would be hidden) and when it comes due: goal ≤ 2.4 at both
  sizes (≤ 1.2 while the pruner read a bucket once and deleted checkpoints itself).

The stored sessions: one every few minutes, 15 min to 8 h long (uniform), a checkpoint every 15
minutes of it, its state, and its transcript head (one in four with an S3 body). Of the sessions
whose items come due in the day, one in ten was resumed since (a session-start within the window,
no new checkpoint): its state and newest checkpoint stay, the rest of it goes. The items are built
with the service's own builders and key/expiry helpers and put straight into moto's table (no
request, nothing counted); the bench checks that the table lost exactly what the pruner reports
deleting, and that every checkpoint it left is past its TTL but the resumed sessions' newest.

moto answers every Query by sorting and scanning the whole table (about a second at 300,000 items)
and re-measures an item on every attribute it sets. ``faster_moto`` hands moto's Query only the
items of the queried partition (or index partition), lets an index page hold more items and skips
the 400 KB item check: the answers, ``ScannedCount`` included, are the same (1k: 1.089 with or
without it, when each bucket was read once), only moto's time changes. The 100k run takes about 5
minutes.
"""

from __future__ import annotations

import os
import random
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from continuity_core.kernel import names

RETENTION = timedelta(days=7)
# The simulated day: 24 hourly runs from W0 (a bucket boundary), the cursor already at W0.
W0 = datetime(2025, 3, 10, tzinfo=UTC)
RUNS = 24
LIVE_PER_EXPIRED = 2
RESUMED_SHARE = 0.1
CHECKPOINT_EVERY = timedelta(minutes=15)
AGENT = "bench"
PROJECT = "/bench/project"


@dataclass(frozen=True)
class Session:
    key: str
    start: datetime
    hours: float
    resumed_at: datetime | None = None  # a session-start since, within the retention window
    body: bool = False  # the transcript has a chunk in S3

    @property
    def end(self) -> datetime:
        return self.start + timedelta(hours=self.hours)

    @property
    def checkpoint_times(self) -> list[datetime]:
        count = max(1, int(self.hours * 3600 // CHECKPOINT_EVERY.total_seconds()))
        return [self.start + CHECKPOINT_EVERY * (n + 1) for n in range(count)]

    @property
    def items(self) -> int:
        return len(self.checkpoint_times) + 2

    @property
    def expiring_items(self) -> int:
        """What the simulated day retires of it (a resumed session keeps its state and newest)."""
        return self.items - 2 if self.resumed_at else self.items


def sessions(rng: random.Random, expired_target: int) -> tuple[list[Session], int]:
    """Sessions whose items all come due in the day (about ``expired_target`` deletions), and live
    ones (nothing due) holding ``LIVE_PER_EXPIRED`` times as many items."""
    out: list[Session] = []
    expiring = 0
    while expiring < expired_target:
        hours = rng.uniform(0.25, 8)
        # prunable instants ceil(t + 7 d) inside (W0, W0 + 24 h]: t in (W0 - 7 d, W0 + 18 h - 7 d]
        start = W0 - RETENTION + timedelta(seconds=rng.uniform(60, (18 - hours) * 3600))
        resumed = W0 + timedelta(hours=rng.uniform(-48, 0)) if rng.random() < RESUMED_SHARE else None
        session = Session(f"old-{len(out)}", start, hours, resumed, body=rng.random() < 0.25)
        out.append(session)
        expiring += session.expiring_items
    live_items = 0
    while live_items < LIVE_PER_EXPIRED * expiring:
        hours = rng.uniform(0.25, 8)
        start = W0 - RETENTION + timedelta(days=1, seconds=rng.uniform(0, 5 * 86400))
        session = Session(f"live-{len(out)}", start, hours, body=rng.random() < 0.25)
        out.append(session)
        live_items += session.items
    return out, expiring


@contextmanager
def faster_moto() -> Iterator[None]:
    """moto's Query over the queried partition's items only (same answer, without the table scan)."""
    from moto.dynamodb.models import table as table_module
    from moto.dynamodb.models.dynamo_type import LimitedSizeDict
    from moto.dynamodb.models.table import Table

    original = Table.query
    # An index partition's items, found on its first page and reused for the next pages (minus what
    # left the table since; moto checks the index key of each candidate again).
    index_partitions: dict[tuple[int, str, str], list[Any]] = {}

    def query(self: Any, hash_key: Any, *args: Any, **kwargs: Any) -> Any:
        index_name = args[6] if len(args) > 6 else kwargs.get("index_name")
        first_page = (args[3] if len(args) > 3 else kwargs.get("exclusive_start_key")) is None
        conditions = kwargs.get("hash_key_conditions") or []
        if index_name is None and hash_key is not None:
            partition = self.items.get(hash_key, {})
            candidates = sorted(partition.values(), key=lambda item: item.range_key)
        elif index_name is not None and conditions:
            key = (id(self), index_name, repr(conditions))
            if first_page or key not in index_partitions:
                index_partitions[key] = [
                    item
                    for partition in self.items.values()
                    for item in partition.values()
                    if all(_equal(item.attrs.get(name), value) for name, value in conditions)
                ]
            candidates = [
                item
                for item in index_partitions[key]
                if self.items.get(item.hash_key, {}).get(item.range_key) is item
            ]
        else:
            return original(self, hash_key, *args, **kwargs)
        self.all_items = lambda: candidates
        try:
            return original(self, hash_key, *args, **kwargs)
        finally:
            del self.all_items

    Table.query = query  # type: ignore[method-assign]
    # moto sizes an index page by the whole item (DynamoDB by the projected one) and re-sorts the
    # partition for every page: fewer, larger pages. Reads are counted in items, not pages.
    size_limit = table_module.RESULT_SIZE_LIMIT
    table_module.RESULT_SIZE_LIMIT = 16 * size_limit
    # moto re-measures the whole item on every attribute it sets (against the 400 KB item limit): the
    # bench's items are a few KB, skip the check.
    checked_setitem = LimitedSizeDict.__setitem__
    LimitedSizeDict.__setitem__ = dict.__setitem__  # type: ignore[method-assign]
    try:
        yield
    finally:
        Table.query = original  # type: ignore[method-assign]
        table_module.RESULT_SIZE_LIMIT = size_limit
        LimitedSizeDict.__setitem__ = checked_setitem  # type: ignore[method-assign]


def _equal(attribute: Any, value: Any) -> bool:
    return attribute is not None and bool(attribute == value)


class ItemsRead:
    """Items in the DynamoDB responses of one client (botocore ``after-call``)."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, parsed: dict[str, Any], model: Any, **_: Any) -> None:
        operation = model.name
        if operation in ("Query", "Scan"):
            self.count += int(parsed.get("ScannedCount", 0))
        elif operation == "GetItem":
            self.count += 1 if parsed.get("Item") else 0
        elif operation == "UpdateItem":
            self.count += 1 if parsed.get("Attributes") else 0
        elif operation == "BatchGetItem":
            self.count += sum(len(items) for items in parsed.get("Responses", {}).values())


def seed(sessions_: list[Session], table: str, bucket: str) -> int:
    """Everything as the service stores it (its own item builders, key and expiry helpers), written
    with BatchWriteItem through a client that is not counted; returns the number of items."""
    import boto3

    from continuity_core.checkpoints.dynamo_checkpoints import DynamoCheckpointStore
    from continuity_core.kernel.dynamo_expiry import expiry_values
    from continuity_core.kernel.dynamo_items import project_pk, session_pk, timestamp, to_attributes
    from continuity_core.kernel.expiry import expiry
    from continuity_core.models.checkpoint import Checkpoint
    from continuity_core.models.checkpoint_trigger import CheckpointTrigger
    from continuity_core.transcripts.s3_bodies import chunk_key

    s3: Any = boto3.client("s3")
    checkpoints = DynamoCheckpointStore(table, retention=RETENTION)
    identity = {"harness": "claude-code", "project": PROJECT, "project_normalized": PROJECT}
    items: list[dict[str, Any]] = []
    for session in sessions_:
        pk = session_pk(AGENT, session.key)
        for sequence, made in enumerate(session.checkpoint_times, start=1):
            checkpoint = Checkpoint(
                id=str(uuid.UUID(int=random.getrandbits(128))),
                session_key=session.key,
                trigger=CheckpointTrigger.PERIODIC,
                digest=f"## Session Checkpoint\n{session.key} #{sequence}\n" + "work in progress. " * 20,
                prompt_count=10,
                sequence=sequence,
                created_at=made,
                **identity,
            )
            items.append(checkpoints.item(AGENT, checkpoint))
        active = session.resumed_at or session.end
        items.append(
            to_attributes(
                {
                    names.PK: pk,
                    names.SK: names.STATE_SK,
                    "session_key": session.key,
                    **identity,
                    "started_at": timestamp(session.start),
                    "last_activity_at": timestamp(active),
                    "total_prompts": 10 * len(session.checkpoint_times),
                    "checkpoints_written": len(session.checkpoint_times),
                    "version": 10 * len(session.checkpoint_times),
                    **expiry_values(pk, names.STATE_SK, expiry(active, RETENTION)),
                }
            )
        )
        chunk_ids = []
        if session.body:
            chunk_ids = [uuid.UUID(int=random.getrandbits(128)).hex[:16]]
            body = "User: go on\nAssistant: " + "done. " * 4000
            s3.put_object(
                Bucket=bucket, Key=chunk_key(AGENT, session.key, 0, chunk_ids[0]), Body=body.encode()
            )
        items.append(
            to_attributes(
                {
                    names.PK: pk,
                    names.SK: names.TRANSCRIPT_SK,
                    "session_key": session.key,
                    **identity,
                    "created_at": timestamp(session.start),
                    "updated_at": timestamp(session.end),
                    "length": 24_030 if session.body else 30,
                    "flushed": 24_000 if session.body else 0,
                    "chunk_ids": chunk_ids,
                    "chunk_ends": [24_000] if session.body else [],
                    "parts": ["Assistant: done.\n" + " " * 13],
                    names.SESSION_INDEX_PK: project_pk(AGENT, PROJECT),
                    names.SESSION_INDEX_SK: f"{timestamp(session.end)}#{session.key}",
                    **expiry_values(pk, names.TRANSCRIPT_SK, expiry(session.end, RETENTION)),
                }
            )
        )
    stored = _moto_table(table)
    for item in items:
        stored.put_item(item)
    return len(items)


def _moto_table(table: str) -> Any:
    from moto.core import DEFAULT_ACCOUNT_ID
    from moto.dynamodb.models import dynamodb_backends

    return dynamodb_backends[DEFAULT_ACCOUNT_ID]["us-east-1"].get_table(table)


def table_size(table: str) -> int:
    """Items in the table, counted in moto's backend (a Scan of 300,000 items takes a minute)."""
    return sum(len(partition) for partition in _moto_table(table).items.values())


def read_per_deleted(expired_target: int) -> float:
    from moto import mock_aws

    os.environ.update(
        AWS_ACCESS_KEY_ID="bench",
        AWS_SECRET_ACCESS_KEY="bench",
        AWS_DEFAULT_REGION="us-east-1",
        POWERTOOLS_METRICS_DISABLED="true",
        POWERTOOLS_LOG_LEVEL="ERROR",
    )
    os.environ.pop("AWS_ENDPOINT_URL", None)
    from continuity_core.kernel.aws import client, reset_clients
    from continuity_core.kernel.config import load_config
    from continuity_core.kernel.dynamo_items import timestamp
    from continuity_core.kernel.expiry import prunable_at
    from continuity_core.retention.dynamo_retention import CURSOR_KEY, DynamoRetentionStore
    from continuity_core.retention.retention import Pruner
    from continuity_core.transcripts.s3_bodies import S3BodyStore
    from tests.support.cold_starts import reset_functions
    from tests.support.provision import provision

    rng = random.Random(expired_target)
    random.seed(expired_target)
    population, expiring = sessions(rng, expired_target)
    with mock_aws(), faster_moto():
        reset_clients()
        reset_functions()
        os.environ.update(provision("bench"))
        table = os.environ[names.TABLE_ENV]
        stored = seed(population, table, os.environ[names.BUCKET_ENV])
        client("dynamodb").put_item(  # the cursor of a pruner that has been running
            TableName=table, Item={**CURSOR_KEY, "cursor": {"S": timestamp(prunable_at(W0))}}
        )
        before = table_size(table)
        reads = ItemsRead()
        client("dynamodb").meta.events.register("after-call.dynamodb", reads)
        now = W0
        pruner = Pruner(DynamoRetentionStore(table, S3BodyStore()), load_config({}), clock=lambda: now)
        deleted = left_to_ttl = 0
        for hour in range(1, RUNS + 1):
            now = W0 + timedelta(hours=hour)
            report = pruner.run()
            deleted += sum(report.deleted[kind] for kind in ("checkpoint", "state", "transcript"))
            left_to_ttl += report.left_to_ttl
        client("dynamodb").meta.events.unregister("after-call.dynamodb", reads)
        after = table_size(table)
        resumed = sum(1 for session in population if session.resumed_at)
        assert before == stored + 1 and before - after == deleted, (stored, before, after, deleted)
        assert deleted + left_to_ttl == expiring, (deleted, left_to_ttl, expiring)
        assert past_ttl(table, now) == left_to_ttl and visible_checkpoints(table, now, "old-") == resumed
        reset_clients()
        reset_functions()
    return reads.count / (deleted + left_to_ttl)


def past_ttl(table: str, now: datetime) -> int:
    """Checkpoints in moto's table past their TTL: what DynamoDB's TTL would delete."""
    return sum(
        1
        for partition in _moto_table(table).items.values()
        for item in partition.values()
        if str(item.range_key.value).startswith(names.CHECKPOINT_PREFIX)
        and int(item.attrs[names.TTL_ATTRIBUTE].value) < now.timestamp()
    )


def visible_checkpoints(table: str, now: datetime, prefix: str) -> int:
    """Checkpoints of sessions keyed ``prefix…`` a read still returns."""
    return sum(
        1
        for partition in _moto_table(table).items.values()
        for item in partition.values()
        if str(item.range_key.value).startswith(names.CHECKPOINT_PREFIX)
        and str(item.attrs["session_key"].value).startswith(prefix)
        and int(item.attrs[names.TTL_ATTRIBUTE].value) >= now.timestamp()
    )


def run() -> dict[str, float]:
    return {
        "pruner_read_per_deleted_1k": read_per_deleted(1_000),
        "pruner_read_per_deleted_100k": read_per_deleted(100_000),
    }
