"""What the pruner relies on, on moto: every item that ages out is in its expiry bucket, activity moves
it, and reads treat an item past its TTL as gone while DynamoDB still holds it (TTL lags)."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from typing import Any

import boto3
import pytest

from continuity_core.kernel.expiry import Expiry
from continuity_core.retention.ports import ItemKind
from tests.integration.conftest import prompt
from tests.support import on_aws
from tests.support.api import InProcessService
from tests.support.clock import Clock, install_clock
from tests.support.sessions import SessionsApi, Transcript

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)


@pytest.fixture
def clock(service: InProcessService, monkeypatch: pytest.MonkeyPatch) -> Clock:
    monkeypatch.setenv("CONTINUITY_TRANSCRIPT_RETENTION_DAYS", "2")
    return install_clock(monkeypatch, T0)


def item(session: str, sk: str) -> dict[str, Any]:
    response = boto3.client("dynamodb").get_item(
        TableName=os.environ["CONTINUITY_TABLE_NAME"],
        Key={"pk": {"S": f"A#default#S#{session}"}, "sk": {"S": sk}},
    )
    return dict(response.get("Item", {}))


def epoch(moment: datetime) -> str:
    return str(int(moment.timestamp()))


def ten_prompts_with_a_transcript(service: InProcessService, clock: Clock, session: str) -> Transcript:
    transcript = Transcript(session)
    for n in range(1, 11):
        clock.now += timedelta(seconds=30)
        transcript.grow(f"User: question {n}\nAssistant: answer {n}\n")
        service.hook(
            "user-prompt-submit", transcript.hook_body(hook_event_name="UserPromptSubmit", prompt=f"q{n}")
        )
    service.drain_queue()
    return transcript


def test_state_checkpoints_and_transcripts_sit_in_the_bucket_their_retention_runs_out_in(
    service: InProcessService, clock: Clock
) -> None:
    # Given ten prompts from 09:00:30 to 09:05 on March 1st (retention 7 days, transcripts 2)
    ten_prompts_with_a_transcript(service, clock, "s")
    # When the stored items are read
    state, head = item("s", "STATE"), item("s", "TRANSCRIPT")
    (checkpoint_sk,) = [c for c in stored_keys("s") if c.startswith("CP#")]
    checkpoint = item("s", checkpoint_sk)
    # Then each is in the bucket closing at the next 6-hour boundary; what the pruner deletes has its
    # TTL one day later, the checkpoint (TTL deletes it) at that instant. The transcript's head
    # (written at its first append, not at every one) is kept a day longer than an append, so it
    # never goes before the transcript's last append expires
    for stored, bucket, grace in (
        (state, "2025-03-08T12", timedelta(days=1)),
        (checkpoint, "2025-03-08T12", timedelta(0)),
        (head, "2025-03-04T12", timedelta(days=1)),
    ):
        assert stored["gsi3pk"] == {"S": f"EXP#{bucket}"}
        prunable = datetime.strptime(bucket, "%Y-%m-%dT%H").replace(tzinfo=UTC)
        assert stored["expires_at"] == {"N": epoch(prunable + grace)}
    # And a session's items sit side by side in their bucket
    assert len({stored["gsi3sk"]["S"].split("#")[0] for stored in (state, head, checkpoint)}) == 1


def test_activity_moves_the_state_and_the_transcript_to_a_later_bucket(
    service: InProcessService, clock: Clock
) -> None:
    transcript = ten_prompts_with_a_transcript(service, clock, "s")
    before = {sk: item("s", sk) for sk in ("STATE", "TRANSCRIPT")}
    # When the session is active again three days later, and its transcript grows
    clock.now = T0 + timedelta(days=3)
    transcript.grow("User: one more\n")
    service.hook("user-prompt-submit", transcript.hook_body(hook_event_name="UserPromptSubmit", prompt="q11"))
    # Then both moved to the bucket of their new last change (7 and 2 + 1 days on), keeping their place
    after = {sk: item("s", sk) for sk in ("STATE", "TRANSCRIPT")}
    assert after["STATE"]["gsi3pk"] == {"S": "EXP#2025-03-11T12"}
    assert after["TRANSCRIPT"]["gsi3pk"] == {"S": "EXP#2025-03-07T12"}
    assert all(after[sk]["gsi3sk"] == before[sk]["gsi3sk"] for sk in after)


def test_reads_leave_out_what_is_past_its_ttl_while_dynamodb_still_holds_it(
    service: InProcessService, clock: Clock
) -> None:
    # Given a session with a checkpoint and a transcript, and no pruner run since
    ten_prompts_with_a_transcript(service, clock, "s")
    assert len(service.session_checkpoints("s")) == 1
    # When the clock passes their TTL (TTL has not deleted them: it can lag for days)
    clock.now = T0 + timedelta(days=8, hours=4)
    # Then every read treats them as gone
    assert service.session_checkpoints("s") == []
    status, listed = service.get("/api/checkpoints", "/api/checkpoints", query={"project": "/work/app"})
    assert (status, listed["checkpoints"]) == (200, [])
    assert SessionsApi().transcript("s")[0] == 404
    assert SessionsApi().sessions(project="/work/app")[1]["sessions"] == []
    assert on_aws.state_store(clock).get("default", "s") is None
    # And a returning session recovers nothing from them
    _, answer = service.hook("session-start", {"session_id": "s", "cwd": "/work/app"})
    assert "Session Recovery" not in str(answer)
    # While the table still holds them
    assert {"STATE", "TRANSCRIPT"} <= set(stored_keys("s"))


def test_a_state_moved_after_its_bucket_was_read_is_not_deleted(
    service: InProcessService, clock: Clock
) -> None:
    from continuity_core.retention.dynamo_retention import DynamoRetentionStore
    from continuity_core.transcripts.s3_bodies import S3BodyStore

    # Given the pruner reading the state's bucket
    service.hook("session-start", {"session_id": "s", "cwd": "/work/app"})
    store = DynamoRetentionStore(os.environ["CONTINUITY_TABLE_NAME"], S3BodyStore())
    due = Expiry(datetime(2025, 3, 8, 12, tzinfo=UTC))
    (state,) = [i for i in store.expiring(due) if i.kind is ItemKind.STATE]
    # When a prompt lands before it deletes
    clock.now = T0 + timedelta(days=8)
    service.hook("user-prompt-submit", prompt("s", 1))
    # Then the delete does not happen
    assert store.delete_if_unmoved(state) is False
    assert item("s", "STATE")


def stored_keys(session: str) -> list[str]:
    response = boto3.client("dynamodb").query(
        TableName=os.environ["CONTINUITY_TABLE_NAME"],
        KeyConditionExpression="pk = :pk",
        ExpressionAttributeValues={":pk": {"S": f"A#default#S#{session}"}},
    )
    return [stored["sk"]["S"] for stored in response["Items"]]
