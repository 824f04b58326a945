"""Compaction of moto's request recording: what a replay after a restart needs, and only that."""

import base64
import json
from pathlib import Path
from typing import Any

from infra.local.recording import DrainMarks, compact, read_entries, request_action, sent_queue_name, wipe

QUEUE_URL = "http://127.0.0.1:5000/123456789012/continuity-local-checkpoint-queue"


def recorded(target: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
    """An entry as moto's recorder writes it (bodies read as bytes are base64-encoded)."""
    return {
        "headers": {
            "Host": "127.0.0.1:5000",
            "X-Amz-Target": target,
            "Content-Type": "application/x-amz-json-1.0",
        },
        "method": "POST",
        "url": "http://127.0.0.1:5000/",
        "body": base64.b64encode(json.dumps(body or {}).encode()).decode(),
        "body_encoded": True,
    }


def send(n: int) -> dict[str, Any]:
    return recorded("AmazonSQS.SendMessage", {"QueueUrl": QUEUE_URL, "MessageBody": str(n)})


def actions(path: Path) -> list[str]:
    entries, _ = read_entries(path)
    return [f"{a[0]}:{a[1]}" for e in entries if (a := request_action(e.data))]


def write(path: Path, entries: list[dict[str, Any]]) -> list[int]:
    """Write entries one per line; returns each entry's byte offset."""
    offsets, text = [], ""
    for entry in entries:
        offsets.append(len(text))
        text += json.dumps(entry) + "\n"
    path.write_text(text)
    return offsets


def test_reads_and_consumer_calls_are_dropped_and_writes_kept_in_order(tmp_path: Path) -> None:
    path = tmp_path / "rec.log"
    write(
        path,
        [
            recorded("DynamoDB_20120810.CreateTable"),
            recorded("DynamoDB_20120810.DescribeTable"),
            recorded("AmazonSQS.CreateQueue"),
            recorded("AmazonSQS.GetQueueUrl"),
            recorded("DynamoDB_20120810.PutItem"),
            recorded("DynamoDB_20120810.Query"),
            recorded("AmazonSQS.ReceiveMessage"),
            recorded("AmazonSQS.DeleteMessageBatch"),
            recorded("AmazonSQS.ChangeMessageVisibilityBatch"),
            recorded("DynamoDB_20120810.UpdateItem"),
            recorded("DynamoDB_20120810.TransactWriteItems"),
            recorded("DynamoDB_20120810.DeleteItem"),
            recorded("DynamoDB_20120810.BatchGetItem"),
        ],
    )

    result = compact(path, {})

    assert actions(path) == [
        "dynamodb:CreateTable",
        "sqs:CreateQueue",
        "dynamodb:PutItem",
        "dynamodb:UpdateItem",
        "dynamodb:TransactWriteItems",
        "dynamodb:DeleteItem",
    ]
    assert (result.kept, result.dropped_reads) == (6, 7)


def test_sends_before_the_queue_was_seen_drained_are_dropped_and_later_ones_kept(tmp_path: Path) -> None:
    path = tmp_path / "rec.log"
    offsets = write(path, [send(1), send(2), send(3)])

    result = compact(path, {"continuity-local-checkpoint-queue": offsets[2]})

    entries, _ = read_entries(path)
    assert [json.loads(base64.b64decode(e.data["body"]))["MessageBody"] for e in entries] == ["3"]
    assert result.dropped_sends == 2


def test_sends_to_a_queue_never_seen_drained_are_all_kept(tmp_path: Path) -> None:
    path = tmp_path / "rec.log"
    write(path, [send(1), send(2)])

    assert compact(path, {"other-queue": 10_000}).kept == 2


def test_entries_that_share_a_line_are_both_read(tmp_path: Path) -> None:
    path = tmp_path / "rec.log"
    # Two threads appending: a big entry's newline landed after the next entry.
    path.write_text(json.dumps(recorded("DynamoDB_20120810.PutItem")) + json.dumps(send(1)) + "\n\n")

    entries, unreadable = read_entries(path)

    assert [request_action(e.data) for e in entries] == [("dynamodb", "PutItem"), ("sqs", "SendMessage")]
    assert entries[1].offset > 0
    assert unreadable == 0


def test_an_unreadable_fragment_is_skipped_and_counted(tmp_path: Path) -> None:
    path = tmp_path / "rec.log"
    path.write_text('{"headers": {"X-Amz-Tar\n' + json.dumps(recorded("DynamoDB_20120810.PutItem")) + "\n")

    result = compact(path, {})

    assert (result.kept, result.unreadable) == (1, 1)


def test_query_protocol_requests_are_understood() -> None:
    entry = {
        "headers": {"Authorization": "AWS4-HMAC-SHA256 Credential=k/20260101/us-east-1/sqs/aws4_request, X"},
        "method": "POST",
        "url": "http://127.0.0.1:5000/",
        "body": f"Action=SendMessage&QueueUrl={QUEUE_URL}&MessageBody=x",
        "body_encoded": False,
    }

    assert request_action(entry) == ("sqs", "SendMessage")
    assert sent_queue_name(entry) == "continuity-local-checkpoint-queue"


def test_drain_marks_only_move_forward_and_survive_a_restart(tmp_path: Path) -> None:
    recording = tmp_path / "rec.log"
    recording.write_text("x" * 42)
    marks = DrainMarks(recording, tmp_path / "marks.json")

    assert marks.mark() == 42
    marks.drained("q", 40)
    marks.drained("q", 30)

    assert DrainMarks(recording, tmp_path / "marks.json").marks == {"q": 40}
    marks.reset()
    assert DrainMarks(recording, tmp_path / "marks.json").marks == {}


def test_compaction_keeps_the_recording_private_and_wipe_keeps_the_token(tmp_path: Path) -> None:
    path = tmp_path / "moto-recording.log"
    write(path, [recorded("DynamoDB_20120810.PutItem")])
    (tmp_path / "token").write_text("t")

    compact(path, {})
    mode = path.stat().st_mode & 0o777
    wipe(tmp_path)

    assert mode == 0o600
    assert not path.exists()
    assert (tmp_path / "token").exists()
