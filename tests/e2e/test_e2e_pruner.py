"""The pruner on the local stack: its timer route runs it, it keeps what is fresh, and it deletes a
session stored eight days ago (written straight into the stack's moto with the service's own item
layout, since the stack's clock is the real one), S3 bodies included; its checkpoint and injection
record are TTL's to delete (moto never does; reads leave them out)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import boto3
import pytest

from tests.e2e.local_stack import Api, LocalStackProcess, free_port, wait_for

pytestmark = pytest.mark.e2e

TABLE = "continuity-local-continuity-table"
BUCKET = "continuity-local-transcript-bucket"
PROJECT = "/work/e2e-pruner"


def unique(name: str) -> str:
    return f"{name}-{uuid.uuid4().hex[:8]}"


def run_pruner(api: Api) -> dict[str, Any]:
    answer = api.http.post(f"{api.stack.url}/local/schedules/pruner", timeout=60)
    assert answer.status_code == 200, answer.text
    result: dict[str, Any] = answer.json()["result"]
    return result


def test_the_timer_route_runs_the_pruner_and_fresh_sessions_stay(api: Api) -> None:
    # Given a session with a checkpoint written just now
    session = unique("fresh")
    for n in range(1, 11):
        body = {
            "session_id": session,
            "cwd": PROJECT,
            "hook_event_name": "UserPromptSubmit",
            "prompt": f"p{n}",
        }
        assert api.hook("user-prompt-submit", body).status_code == 200
    assert len(wait_for(lambda: api.session_checkpoints(session), bool)) == 1
    # When the pruner runs, twice
    first, second = run_pruner(api), run_pruner(api)
    # Then it ran to the present, deleted nothing fresh, and the second run had nothing to do
    assert first["caught_up"] and not first["skipped"]
    assert sum(second["deleted"].values()) == 0 and second["buckets"] <= 1
    assert len(api.session_checkpoints(session)) == 1


@pytest.fixture(scope="module")
def own_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Api, str]]:
    """A local stack of this module's own, on a known moto port (to seed backdated items)."""
    base: Path = tmp_path_factory.mktemp("pruner-stack")
    moto_port = free_port()
    stack = LocalStackProcess(base / "data", base / "stack.log", extra_args=["--moto-port", str(moto_port)])
    stack.start()
    yield Api(stack), f"http://127.0.0.1:{moto_port}"
    stack.stop()


@pytest.fixture
def moto(own_stack: tuple[Api, str], monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """This process's AWS clients point at the stack's moto while the test runs."""
    from continuity_core.kernel.aws import reset_clients

    _, moto_url = own_stack
    for name, value in {
        "AWS_ENDPOINT_URL": moto_url,
        "AWS_ACCESS_KEY_ID": "local",
        "AWS_SECRET_ACCESS_KEY": "local",
        "AWS_DEFAULT_REGION": "us-east-1",
        "TRANSCRIPT_BUCKET_NAME": BUCKET,
    }.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AWS_SESSION_TOKEN", raising=False)
    reset_clients()
    yield moto_url
    reset_clients()


def seed_session(session: str, at: datetime) -> None:
    """State, a checkpoint, a transcript with an S3 body and a start's injection, as the service
    writes them at ``at``."""
    from continuity_core.checkpoints.dynamo_checkpoints import DynamoCheckpointStore
    from continuity_core.hooks.dynamo_state import DynamoStateStore
    from continuity_core.models.checkpoint import Checkpoint
    from continuity_core.models.checkpoint_trigger import CheckpointTrigger
    from continuity_core.models.state import SessionIdentity
    from continuity_core.transcripts.append import TranscriptAppender
    from continuity_core.transcripts.dynamo_transcripts import DynamoTranscriptStorage
    from continuity_core.transcripts.s3_bodies import S3BodyStore

    week = timedelta(days=7)
    identity = SessionIdentity(
        session_key=session, harness="claude-code", project=PROJECT, project_normalized=PROJECT
    )
    DynamoStateStore(TABLE, ttl=week).touch("default", identity, at)
    transcripts = TranscriptAppender(
        DynamoTranscriptStorage(TABLE, S3BodyStore(), week), chunk_chars=16_384, keep_chars=3000
    )
    # The transcript's head outlives its appends by a day: start it a day earlier, so that all three
    # are due together; the second append passes the chunk size and moves the first to S3.
    started = at - timedelta(days=1)
    first = "User: hello\nAssistant: " + "words " * 5000
    transcripts.append("default", identity, 0, first, started)
    transcripts.append("default", identity, len(first), "User: more\n" + "x" * 5000, started)
    checkpoint = Checkpoint(
        id=str(uuid.uuid4()),
        session_key=session,
        harness="claude-code",
        project=PROJECT,
        project_normalized=PROJECT,
        trigger=CheckpointTrigger.PERIODIC,
        digest="## Session Checkpoint\nseeded",
        prompt_count=10,
        sequence=1,
        created_at=at,
    )
    DynamoCheckpointStore(TABLE, retention=week).put("default", checkpoint, at, evict=[])
    # What its start injected (the dashboard's inspector), kept as long as the session
    from continuity_core.models.injections import InjectionRecord
    from continuity_core.recovery.dynamo_injections import DynamoInjectionLog

    start = InjectionRecord(
        session_key=session, event="session_start", at=at, text="## Recovered", cap_chars=9000
    )
    DynamoInjectionLog(TABLE, retention=week, clock=lambda: at).record("default", start)


def bodies(session_prefix: str = "transcripts/default/") -> list[str]:
    listed = boto3.client("s3").list_objects_v2(Bucket=BUCKET, Prefix=session_prefix)
    return [obj["Key"] for obj in listed.get("Contents", [])]


def test_a_session_stored_eight_days_ago_is_pruned_with_its_bodies(
    own_stack: tuple[Api, str], moto: str
) -> None:
    api, _ = own_stack
    # Given a session stored eight days ago: its checkpoint reads as gone already (past its TTL,
    # which moto never acts on), its state, transcript and S3 body are still stored
    old = unique("old")
    seed_session(old, datetime.now(UTC) - timedelta(days=8))
    assert api.session_checkpoints(old) == []
    assert bodies()
    # When the stack's timer route runs the pruner
    report = run_pruner(api)
    # Then the state, the transcript and its S3 body are deleted; the checkpoint is left to TTL
    assert report["deleted"] == {
        "checkpoint": 0,
        "state": 1,
        "transcript": 1,
        "transcript_body": 1,
        "injection": 0,
    }
    assert report["left_to_ttl"] == 1  # the injection record is in no index since 2026-11-27
    assert api.session_checkpoints(old) == []
    assert api.http.get(f"{api.stack.url}/api/sessions/{old}/transcript", timeout=30).status_code == 404
    assert bodies() == []
    left = boto3.client("dynamodb").query(
        TableName=TABLE,
        KeyConditionExpression="pk = :pk",
        ExpressionAttributeValues={":pk": {"S": f"A#default#S#{old}"}},
    )["Items"]
    # (with the transcript's appends, always TTL's)
    keys = [item["sk"]["S"] for item in left]
    kinds = {key.split("#")[0] for key in keys if not key.startswith("TRANSCRIPT#D#")}
    assert kinds == {"CP", "INJECTION"}
    # And running it again deletes nothing more
    assert sum(run_pruner(api)["deleted"].values()) == 0


def test_the_stacks_timer_runs_the_idle_sweep_which_closes_a_session_that_never_ended(
    own_stack: tuple[Api, str], moto: str
) -> None:
    from continuity_core.hooks.dynamo_state import idle_sort_key
    from continuity_core.kernel.dynamo_items import timestamp
    from continuity_core.kernel.names import IDLE_SK

    api, _ = own_stack
    # Given three prompts through the stack, and no session end; the session last heard from 40
    # minutes ago (backdated in the stack's moto: the stack's clock is the real one)
    session = unique("quiet")
    for n in range(1, 4):
        body = {
            "session_id": session,
            "cwd": PROJECT,
            "hook_event_name": "UserPromptSubmit",
            "prompt": f"q{n}",
        }
        assert api.hook("user-prompt-submit", body).status_code == 200
    then_at = datetime.now(UTC) - timedelta(minutes=40)
    then, place = timestamp(then_at), idle_sort_key(then_at)
    boto3.client("dynamodb").update_item(
        TableName=TABLE,
        Key={"pk": {"S": f"A#default#S#{session}"}, "sk": {"S": "STATE"}},
        UpdateExpression="SET last_activity_at = :then, #idle = :place",
        ExpressionAttributeNames={"#idle": IDLE_SK},
        ExpressionAttributeValues={":then": {"S": then}, ":place": {"S": place}},
    )
    # When the stack's timer route runs the idle sweep
    answer = api.http.post(f"{api.stack.url}/local/schedules/idle_sweep", timeout=60)
    # Then the session's three prompts are in its final checkpoint, trigger idle
    assert answer.status_code == 200, answer.text
    assert answer.json()["result"]["closed"] >= 1
    (checkpoint,) = api.session_checkpoints(session)
    assert (checkpoint["trigger"], checkpoint["first_prompt"], checkpoint["last_prompt"]) == ("idle", 1, 3)
