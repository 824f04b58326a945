"""The pruner through its handler, on moto: what goes when, what is kept, and running it twice.

Time moves with an injected clock (every service reads it), never by sleeping.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from typing import Any

import boto3
import pytest

from tests.integration.conftest import prompt
from tests.support.api import InProcessService
from tests.support.clock import Clock, install_clock, run_pruner
from tests.support.cold_starts import reset_functions
from tests.support.sessions import SessionsApi, Transcript

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)
RETENTION = timedelta(days=7)
# Past any bucket boundary the retention ran out in (buckets close every 6 hours).
LATER = timedelta(hours=7)


@pytest.fixture
def clock(service: InProcessService, monkeypatch: pytest.MonkeyPatch) -> Clock:
    return install_clock(monkeypatch, T0)


def prompts(service: InProcessService, clock: Clock, session: str, count: int, first: int = 1) -> None:
    """``count`` prompts 30 s apart, flushed as they come: a checkpoint every 10 prompts."""
    for n in range(first, first + count):
        clock.now += timedelta(seconds=30)
        service.hook("user-prompt-submit", prompt(session, n))
        if n % 10 == 0:
            service.drain_queue()


def stored_items(session: str, agent: str = "default") -> list[str]:
    """Sort keys of what the table holds for the session, expired or not."""
    response = boto3.client("dynamodb").query(
        TableName=os.environ["CONTINUITY_TABLE_NAME"],
        KeyConditionExpression="pk = :pk",
        ExpressionAttributeValues={":pk": {"S": f"A#{agent}#S#{session}"}},
    )
    return [item["sk"]["S"] for item in response["Items"]]


def deleted(report: dict[str, Any]) -> dict[str, int]:
    return {kind: n for kind, n in report["deleted"].items() if n}


def left_for_ttl(session: str, now: datetime) -> list[str]:
    """What the table still holds of the session: checkpoints and injection records past their TTL
    (DynamoDB's TTL deletes them, for free; moto never does)."""
    response = boto3.client("dynamodb").query(
        TableName=os.environ["CONTINUITY_TABLE_NAME"],
        KeyConditionExpression="pk = :pk",
        ExpressionAttributeValues={":pk": {"S": f"A#default#S#{session}"}},
    )
    items = response["Items"]
    assert all(int(i["expires_at"]["N"]) < now.timestamp() for i in items)
    assert all(i["sk"]["S"].startswith(("CP#", "INJECTION#")) for i in items)
    return [i["sk"]["S"].split("#")[0] for i in items]


def test_a_session_past_its_retention_goes_and_a_second_run_deletes_nothing_more(
    service: InProcessService, clock: Clock
) -> None:
    # Given a session with two checkpoints a week ago, and one from yesterday
    prompts(service, clock, "old", 20)
    clock.now = T0 + timedelta(days=6)
    prompts(service, clock, "fresh", 10)
    # When the pruner runs after the first session's retention ran out
    clock.now = T0 + RETENTION + LATER
    first = run_pruner(clock)
    # Then its state is deleted and its checkpoints are past their TTL (no read returns them, TTL
    # deletes them: the pruner sends no delete), the other session is untouched
    assert deleted(first) == {"state": 1} and first["left_to_ttl"] == 2
    assert service.session_checkpoints("old") == []
    assert left_for_ttl("old", clock.now) == ["CP", "CP"]
    assert len(service.session_checkpoints("fresh")) == 1
    # And a second run finds nothing more to do, and fails on nothing
    second = run_pruner(clock)
    assert deleted(second) == {} and second["kept_latest"] == 0
    assert len(stored_items("fresh")) == 2


def test_the_newest_checkpoint_stays_while_the_session_is_active_and_goes_with_it(
    service: InProcessService, clock: Clock
) -> None:
    # Given two checkpoints a week ago, and the session active again five days later (no checkpoint)
    prompts(service, clock, "long", 20)
    clock.now = T0 + timedelta(days=5)
    service.hook("session-start", {"session_id": "long", "cwd": "/work/app"})
    # When the pruner runs in the hour after the bucket before the checkpoints' closed (06:30)
    due = datetime(2025, 3, 8, 12, tzinfo=UTC)
    clock.now = due - timedelta(hours=5, minutes=30)
    report = run_pruner(clock)
    # Then the newest is kept before it would be hidden: its TTL moved to the session's own
    assert deleted(report) == {} and report["kept_latest"] == 1
    newest = [sk for sk in stored_items("long") if sk.startswith("CP#")][-1]
    key = {"pk": {"S": "A#default#S#long"}, "sk": {"S": newest}}
    kept = boto3.client("dynamodb").get_item(TableName=os.environ["CONTINUITY_TABLE_NAME"], Key=key)["Item"]
    state_until = datetime(2025, 3, 13, 12, tzinfo=UTC)  # five days on + 7, at its bucket's end
    assert kept["expires_at"] == {"N": str(int(state_until.timestamp()))}
    # And past the checkpoints' retention the older is hidden, the newest reads
    clock.now = T0 + RETENTION + LATER
    assert run_pruner(clock)["left_to_ttl"] == 1
    assert [c["last_prompt"] for c in service.session_checkpoints("long")] == [20]
    # And it stays readable past its original TTL (the pruner moved it with the session)
    clock.now = T0 + RETENTION + timedelta(days=2)
    reset_functions()
    assert [c["last_prompt"] for c in service.session_checkpoints("long")] == [20]
    # When the session's own last activity leaves the window
    clock.now = T0 + timedelta(days=5) + RETENTION + LATER
    later = run_pruner(clock)
    # Then the kept checkpoint goes with the state: the state deleted, the checkpoint (and the
    # block its session-start got, kept for the inspector as long as the session) past their TTL
    assert deleted(later) == {"state": 1}
    assert service.session_checkpoints("long") == []
    assert sorted(left_for_ttl("long", clock.now)) == ["CP", "CP", "INJECTION"]


def test_the_per_session_cap_holds_while_the_pruner_keeps_the_newest(
    service: InProcessService, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a cap of 3 and a session that wrote 5 checkpoints (the writer evicted the oldest 2)
    monkeypatch.setenv("CONTINUITY_MAX_CHECKPOINTS_PER_SESSION", "3")
    reset_functions()
    prompts(service, clock, "capped", 50)
    assert [c["sequence"] for c in service.session_checkpoints("capped")] == [3, 4, 5]
    clock.now = T0 + timedelta(days=6)
    service.hook("session-start", {"session_id": "capped", "cwd": "/work/app"})
    # When the pruner runs past their retention
    clock.now = T0 + RETENTION + LATER
    report = run_pruner(clock)
    # Then only the newest reads (never more than the cap at any point)
    assert deleted(report) == {} and report["kept_latest"] == 1
    assert [c["sequence"] for c in service.session_checkpoints("capped")] == [5]
    # And the session goes on within the cap
    clock.now = T0 + RETENTION + LATER + timedelta(minutes=1)
    prompts(service, clock, "capped", 30, first=51)
    assert [c["sequence"] for c in service.session_checkpoints("capped")] == [6, 7, 8]


def test_a_transcript_and_its_bodies_go_after_the_transcript_retention(
    service: InProcessService, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given transcripts kept 2 days, checkpoints 7, and a transcript large enough to have S3 bodies
    monkeypatch.setenv("CONTINUITY_TRANSCRIPT_RETENTION_DAYS", "2")
    monkeypatch.setenv("CONTINUITY_TRANSCRIPT_CHUNK_CHARS", "16384")
    reset_functions()
    transcript = Transcript("talk")
    for n in range(1, 11):
        transcript.grow(f"User: question {n}\nAssistant: {'a long answer ' * 250}\n")
        service.hook(
            "user-prompt-submit", transcript.hook_body(hook_event_name="UserPromptSubmit", prompt=f"q{n}")
        )
    service.drain_queue()
    bodies = bucket_objects()
    assert bodies, "the transcript should have moved chunks to S3"
    # When the pruner runs after two days and the head's extra day (before the checkpoints' seven)
    clock.now = T0 + timedelta(days=3) + LATER
    report = run_pruner(clock)
    # Then the transcript's head and every body are gone; its checkpoint and state stay
    assert deleted(report) == {"transcript": 1, "transcript_body": len(bodies)}
    assert bucket_objects() == []
    assert SessionsApi().transcript("talk")[0] == 404
    left = sorted(stored_items("talk"))
    assert [sk for sk in left[1:] if not sk.startswith("TRANSCRIPT#D#")] == ["STATE"]
    # The appends stay for DynamoDB TTL to delete (free; deleting costs as much as writing), and
    # every one is past its TTL already: no read returns them, a new transcript ignores them
    appends = boto3.client("dynamodb").query(
        TableName=os.environ["CONTINUITY_TABLE_NAME"],
        KeyConditionExpression="pk = :pk AND begins_with(sk, :d)",
        ExpressionAttributeValues={":pk": {"S": "A#default#S#talk"}, ":d": {"S": "TRANSCRIPT#D#"}},
    )["Items"]
    assert appends and all(int(a["expires_at"]["N"]) < clock.now.timestamp() for a in appends)


def test_the_pruner_counts_what_it_deleted_by_kind(
    service: InProcessService, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    from functions.pruner import handler

    counted: list[tuple[str, int, dict[str, str]]] = []
    monkeypatch.setattr(handler, "count", lambda name, value=1, **dims: counted.append((name, value, dims)))
    prompts(service, clock, "old", 20)
    clock.now = T0 + RETENTION + LATER

    run_pruner(clock)

    assert ("PrunedItems", 1, {"kind": "state"}) in counted
    assert not [c for c in counted if c[2] == {"kind": "checkpoint"}]
    assert ("PrunerLeftToTtl", 2, {}) in counted
    # the lease; the 3 index entries twice (look-ahead, due)
    assert ("PrunerItemsRead", 7, {}) in counted


def test_a_run_while_another_run_holds_the_lease_is_skipped(service: InProcessService, clock: Clock) -> None:
    from continuity_core.retention.dynamo_retention import DynamoRetentionStore
    from continuity_core.transcripts.s3_bodies import S3BodyStore

    prompts(service, clock, "old", 20)
    clock.now = T0 + RETENTION + LATER
    store = DynamoRetentionStore(os.environ["CONTINUITY_TABLE_NAME"], S3BodyStore())
    assert store.acquire(clock.now, until=clock.now + timedelta(minutes=15)) is not None

    report = run_pruner(clock)

    assert report["skipped"] is True and deleted(report) == {}
    clock.now += timedelta(minutes=16)  # the other run's lease ran out
    assert deleted(run_pruner(clock)) == {"state": 1}


def bucket_objects() -> list[Any]:
    s3 = boto3.client("s3")
    return s3.list_objects_v2(Bucket=os.environ["TRANSCRIPT_BUCKET_NAME"]).get("Contents", [])
