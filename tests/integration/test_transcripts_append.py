"""The transcript append protocol through the hook handler, on moto (DynamoDB + S3)."""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import boto3
import pytest

from continuity_core.models.state import SessionIdentity
from tests.support import on_aws
from tests.support.api import InProcessService
from tests.support.clock import install_clock
from tests.support.cold_starts import reset_functions
from tests.support.sessions import SessionsApi, Transcript

CHUNK = 16_384  # the smallest chunk the config allows: S3 chunks after ~16 K characters


@pytest.fixture
def small_inline(service: InProcessService, monkeypatch: pytest.MonkeyPatch) -> Iterator[InProcessService]:
    monkeypatch.setenv("CONTINUITY_TRANSCRIPT_CHUNK_CHARS", str(CHUNK))
    reset_functions()
    yield service


def prompt_with(transcript: Transcript, n: int) -> dict:
    return transcript.hook_body(hook_event_name="UserPromptSubmit", prompt=f"step {n}")


def stored(session: str) -> dict:
    status, body = SessionsApi().transcript(session)
    assert status == 200, body
    return body


def bucket_objects() -> list[Any]:
    s3 = boto3.client("s3")
    return s3.list_objects_v2(Bucket=os.environ["TRANSCRIPT_BUCKET_NAME"]).get("Contents", [])


def test_each_prompt_appends_only_the_new_part(service: InProcessService) -> None:
    # Given a transcript growing over three prompts, each hook sending what is new
    transcript = Transcript("s1")
    for n in range(3):
        transcript.grow(f"User: question {n}\nAssistant: answer {n}\n")
        status, answer = service.hook("user-prompt-submit", prompt_with(transcript, n))
        assert (status, answer) == (200, {})
    # When it is read back / Then it is the client's transcript exactly
    assert stored("s1")["text"] == transcript.text


def test_a_repeated_append_changes_nothing(service: InProcessService) -> None:
    transcript = Transcript("s1")
    transcript.grow("hello world\n")
    body = prompt_with(transcript, 1)
    service.hook("user-prompt-submit", body)
    # When the same delta arrives again (a retried hook)
    status, _ = service.hook("user-prompt-submit", body)
    # Then it is accepted and the copy is unchanged
    assert status == 200
    assert stored("s1")["text"] == "hello world\n"


def test_an_overlapping_append_adds_only_what_is_new(service: InProcessService) -> None:
    service.hook("user-prompt-submit", {"session_id": "s1", "transcript": {"offset": 0, "text": "hello wor"}})
    # When the next delta starts before the stored end
    status, _ = service.hook(
        "user-prompt-submit", {"session_id": "s1", "transcript": {"offset": 6, "text": "world and more"}}
    )
    # Then only the part past the stored end is added
    assert status == 200
    assert stored("s1")["text"] == "hello world and more"


def test_a_gap_answers_409_with_the_stored_length_and_the_prompt_still_counts(
    service: InProcessService,
) -> None:
    service.hook(
        "user-prompt-submit", {"session_id": "s1", "transcript": {"offset": 0, "text": "0123456789"}}
    )
    # When a delta starts past the stored end (the client missed a hook)
    status, body = service.hook(
        "user-prompt-submit", {"session_id": "s1", "prompt": "p", "transcript": {"offset": 15, "text": "xyz"}}
    )
    # Then the client learns where to resend from, and nothing was stored out of place
    assert status == 409
    assert body["stored_length"] == 10
    assert stored("s1")["text"] == "0123456789"
    state = on_aws.state_store().get("default", "s1")
    assert state is not None and state.total_prompts == 2
    # and resending from there works
    status, _ = service.hook(
        "user-prompt-submit", {"session_id": "s1", "transcript": {"offset": 10, "text": "ABCDEFGHxyz"}}
    )
    assert status == 200
    assert stored("s1")["text"] == "0123456789ABCDEFGHxyz"


def test_a_shorter_transcript_after_compaction_never_overwrites_the_fuller_copy(
    service: InProcessService,
) -> None:
    full = "".join(f"turn {n}: a long exchange about the writer\n" for n in range(100))
    service.hook("user-prompt-submit", {"session_id": "s1", "transcript": {"offset": 0, "text": full}})
    # When the harness compacted and its transcript, resent from the start, is now short
    status, _ = service.hook(
        "pre-compaction", {"session_id": "s1", "transcript": {"offset": 0, "text": "Summary: writer work."}}
    )
    # Then the fuller copy stays
    assert status == 200
    assert stored("s1")["text"] == full


def test_pre_compaction_and_session_end_append_too(service: InProcessService) -> None:
    transcript = Transcript("s1")
    transcript.grow("before compaction\n")
    service.hook("pre-compaction", transcript.hook_body(trigger="auto"))
    transcript.grow("at the end\n")
    service.hook("session-end", transcript.hook_body(reason="exit"))
    assert stored("s1")["text"] == "before compaction\nat the end\n"


def test_identity_and_created_at_come_from_the_first_write_updated_at_from_the_latest(
    service: InProcessService, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = install_clock(monkeypatch, datetime.now(UTC).replace(microsecond=0))  # stored to the ms
    appender = on_aws.transcript_appender()
    first = clock.now - timedelta(minutes=10)
    identity = SessionIdentity(session_key="s1", harness="opencode", project="/a", project_normalized="/a")
    appender.append("default", identity, 0, "one ", first)
    other = SessionIdentity(session_key="s1", harness="codex", project="/b", project_normalized="/b")
    appender.append("default", other, 4, "two", first + timedelta(minutes=5))
    head = on_aws.transcript_reader(clock).assembled_head("default", "s1")
    assert head is not None
    assert (head.harness, head.project, head.project_normalized) == ("opencode", "/a", "/a")
    assert (head.created_at, head.updated_at) == (first, first + timedelta(minutes=5))


def test_a_transcript_over_the_s3_threshold_reads_back_byte_identical(small_inline: InProcessService) -> None:
    # Given a transcript with multi-byte text growing well past the inline budget, prompt by prompt
    transcript = Transcript("big")
    for n in range(60):
        transcript.grow(f'turn {n}: naïve café ☕ 😀 \u00a0tab\there «quotes» "json" \\ back\n' * 12)
        status, _ = small_inline.hook("user-prompt-submit", prompt_with(transcript, n))
        assert status == 200
    # When it is read back
    body = stored("big")
    # Then it is byte-identical, and most of it lives in S3 in a few sizeable chunks
    assert body["text"].encode("utf-8") == transcript.text.encode("utf-8")
    assert body["length"] == len(transcript.text)
    objects = bucket_objects()
    assert 1 <= len(objects) <= len(transcript.text) // (CHUNK // 2)
    assert all(o["Key"].startswith("transcripts/default/") for o in objects)
    s3 = boto3.client("s3")
    for o in objects:
        got = s3.get_object(Bucket=os.environ["TRANSCRIPT_BUCKET_NAME"], Key=o["Key"])
        assert got["ContentEncoding"] == "gzip"
        assert len(gzip.decompress(got["Body"].read()).decode("utf-8")) >= CHUNK // 2
        assert o["Size"] < CHUNK // 2  # compressed at rest


def transcript_items(session: str) -> list[dict[str, Any]]:
    from continuity_core.kernel.dynamo_items import session_pk

    table = boto3.client("dynamodb")
    return table.query(
        TableName=os.environ["CONTINUITY_TABLE_NAME"],
        KeyConditionExpression="pk = :pk AND begins_with(sk, :t)",
        ExpressionAttributeValues={":pk": {"S": session_pk("default", session)}, ":t": {"S": "TRANSCRIPT"}},
    )["Items"]


def test_every_item_stays_small_and_the_tail_stays_in_dynamodb(small_inline: InProcessService) -> None:
    # Given a transcript growing past several chunks
    transcript = Transcript("big")
    for n in range(40):
        transcript.grow(f"turn {n} " + "x" * 1500 + "\n")
        small_inline.hook("user-prompt-submit", prompt_with(transcript, n))
    # Then the head holds no text and each append is its own small, compressed item
    items = transcript_items("big")
    head = next(i for i in items if i["sk"]["S"] == "TRANSCRIPT")
    assert "parts" not in head and len(json.dumps(head)) < 2000
    appends = [i for i in items if i["sk"]["S"].startswith("TRANSCRIPT#D#")]
    assert len(appends) == 40
    assert all(len(i["z"]["B"]) < 1000 for i in appends)
    # And the tail the inherit block needs is read from DynamoDB, not S3
    stored_head = on_aws.transcript_reader().assembled_head("default", "big")
    assert stored_head is not None
    assert len(stored_head.inline) >= 3000
    assert transcript.text.endswith(stored_head.inline)
    assert stored_head.flushed + len(stored_head.inline) == len(transcript.text)


def test_one_append_larger_than_the_inline_budget_goes_straight_to_s3(small_inline: InProcessService) -> None:
    text = "é" * 100_000
    status, _ = small_inline.hook(
        "user-prompt-submit", {"session_id": "s1", "transcript": {"offset": 0, "text": text}}
    )
    assert status == 200
    assert stored("s1")["text"] == text
    assert len(bucket_objects()) == 1


def test_a_page_of_the_transcript_can_be_read(small_inline: InProcessService) -> None:
    text = "".join(f"{n:05d}\n" for n in range(10_000))
    small_inline.hook("user-prompt-submit", {"session_id": "s1", "transcript": {"offset": 0, "text": text}})
    status, body = SessionsApi().transcript("s1", offset="29994", limit="12")
    assert status == 200
    assert (body["text"], body["next_offset"]) == (text[29_994:30_006], 30_006)


def test_transcripts_are_per_tenant(service: InProcessService) -> None:
    service.hook("user-prompt-submit", {"session_id": "s1", "transcript": {"offset": 0, "text": "mine"}})
    status, _ = SessionsApi(agent_id="someone-else").transcript("s1")
    assert status == 404


def _calls() -> list[str]:
    from continuity_core.kernel.aws import client

    calls: list[str] = []
    for name in ("dynamodb", "s3"):
        client(name).meta.events.register("before-call", lambda model, **_: calls.append(model.name))
    return calls


def test_a_prompt_appends_with_one_put_next_to_its_state_update(
    service: InProcessService,
) -> None:
    # Given a session with a transcript
    transcript = Transcript("s1")
    transcript.grow("User: one\n")
    service.hook("user-prompt-submit", prompt_with(transcript, 1))
    calls = _calls()
    # When the next prompt carries the next delta
    transcript.grow("User: two\n")
    assert service.hook("user-prompt-submit", prompt_with(transcript, 2))[0] == 200
    # Then the state update (which carries the transcript's hint) and one put are all it took: the
    # tail the new text is redacted after is the one this instance stored
    assert calls == ["UpdateItem", "PutItem"]
    assert stored("s1")["text"] == transcript.text


def test_on_a_new_instance_a_prompt_appends_with_one_small_read_and_one_put(
    service: InProcessService,
) -> None:
    # Given a session with a transcript, and its next prompt served by an instance that did not store it
    transcript = Transcript("s1")
    transcript.grow("User: one\n")
    service.hook("user-prompt-submit", prompt_with(transcript, 1))
    reset_functions()
    calls = _calls()
    # When the next prompt carries the next delta
    transcript.grow("User: two\n")
    assert service.hook("user-prompt-submit", prompt_with(transcript, 2))[0] == 200
    # Then that instance reads the latest append (the tail the new text is redacted after) before its
    # put (then, at the answer, the new instance's first count on the token's rate window)
    assert calls[:3] == ["UpdateItem", "Query", "PutItem"] and calls.count("Query") == 1
    assert stored("s1")["text"] == transcript.text


def test_after_deciding_from_what_is_stored_the_next_prompt_takes_the_one_put_path_again(
    service: InProcessService,
) -> None:
    # Given a transcript started by a pre-compaction hook (before the session had a state)
    transcript = Transcript("s1")
    transcript.grow("User: one\n")
    service.hook("pre-compaction", transcript.hook_body(hook_event_name="PreCompact", trigger="auto"))
    # and a prompt whose state knew nothing of it (it decides from what is stored)
    transcript.grow("User: two\n")
    assert service.hook("user-prompt-submit", prompt_with(transcript, 2))[0] == 200
    calls = _calls()
    # When the next prompt comes
    transcript.grow("User: three\n")
    assert service.hook("user-prompt-submit", prompt_with(transcript, 3))[0] == 200
    # Then the state's hint was corrected: the state update and one put again
    assert calls == ["UpdateItem", "PutItem"]
    assert stored("s1")["text"] == transcript.text


def test_the_first_append_starts_the_transcript_without_reading(service: InProcessService) -> None:
    calls = _calls()
    transcript = Transcript("s1")
    transcript.grow("User: one\n")
    assert service.hook("user-prompt-submit", prompt_with(transcript, 1))[0] == 200
    # state update (and, as it created the session, the project's note of it and the projects
    # page's record), the head, the append, the state's hint: no read; then, at the answer, the
    # instance's first count of the minute on the token's rate window (with the hook's mark)
    assert calls == ["UpdateItem", "PutItem", "UpdateItem", "PutItem", "PutItem", "UpdateItem", "UpdateItem"]


def test_moving_text_to_s3_reads_only_what_it_moves(small_inline: InProcessService) -> None:
    appender, store = on_aws.transcript_appender(), on_aws.transcript_reader()
    identity = SessionIdentity(session_key="s1", harness="claude-code")
    appender.append("default", identity, 0, "a" * 16_000, datetime.now(UTC))
    calls = _calls()
    # When an append passes the chunk size
    appender.append("default", identity, 16_000, "b" * 4000, datetime.now(UTC))
    # Then (after deciding from what is stored, no hint given) the move reads the head and the
    # appends since the last chunk, puts one object and updates the head; the tail stays
    assert calls[-4:] == ["GetItem", "Query", "PutObject", "UpdateItem"]
    head = store.assembled_head("default", "s1")
    assert head is not None and store.read("default", head) == "a" * 16_000 + "b" * 4000
    assert head.flushed == 16_000 and head.inline == "b" * 4000


def test_an_append_lost_after_the_state_update_is_mended_by_the_resend(
    service: InProcessService, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a prompt whose state update (with the transcript hint) landed but whose append failed
    from continuity_core.kernel.errors import StorageUnavailableError
    from continuity_core.transcripts.dynamo_transcripts import DynamoTranscriptStorage

    transcript = Transcript("s1")
    transcript.grow("User: one\n")
    service.hook("user-prompt-submit", prompt_with(transcript, 1))
    transcript.grow("User: two\n")
    body = {**prompt_with(transcript, 2), "idempotency_key": "s1:prompt:2"}
    real = DynamoTranscriptStorage.put_append
    failures = iter([True])

    def flaky(self: DynamoTranscriptStorage, *args: Any, **kwargs: Any) -> bool:
        if next(failures, False):
            raise StorageUnavailableError("throttled")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(DynamoTranscriptStorage, "put_append", flaky)
    assert service.hook("user-prompt-submit", body)[0] == 503
    # When the client resends the hook (its spool keeps it), and then goes on
    assert service.hook("user-prompt-submit", body)[0] == 200
    transcript.grow("User: three\n")
    assert service.hook("user-prompt-submit", prompt_with(transcript, 3))[0] == 200
    # Then the transcript has no hole and the prompt counted once per hook
    assert stored("s1")["text"] == transcript.text
    state = on_aws.state_store().get("default", "s1")
    assert state is not None and state.total_prompts == 3


def test_a_resent_hook_with_the_same_idempotency_key_mends_the_gap(service: InProcessService) -> None:
    # Given a stored transcript of 10 characters and a hook whose delta starts past it
    service.hook(
        "user-prompt-submit", {"session_id": "s1", "transcript": {"offset": 0, "text": "0123456789"}}
    )
    hook = {
        "session_id": "s1",
        "prompt": "p",
        "idempotency_key": "k1",
        "transcript": {"offset": 15, "text": "x"},
    }
    assert service.hook("user-prompt-submit", hook)[0] == 409
    # When the client resends the same hook (same key) from the stored length
    hook["transcript"] = {"offset": 10, "text": "ABCDEx"}
    status, _ = service.hook("user-prompt-submit", hook)
    # Then the prompt is not counted twice and the transcript is mended
    assert status == 200
    state = on_aws.state_store().get("default", "s1")
    assert state is not None and state.total_prompts == 2
    assert stored("s1")["text"] == "0123456789ABCDEx"


def test_a_transcript_stored_by_the_earlier_layout_reads_and_grows(small_inline: InProcessService) -> None:
    # Given a head item of the earlier layout: its text inline in `parts`, nothing in S3
    from tests.support.earlier_layout import earlier_layout_head

    old = "User: before the upgrade\n" * 400  # 10,000 characters
    item = earlier_layout_head("default", "legacy", old, datetime.now(UTC))
    boto3.client("dynamodb").put_item(TableName=os.environ["CONTINUITY_TABLE_NAME"], Item=item)
    # Then it reads back whole
    assert stored("legacy")["text"] == old
    # When the client goes on from there, past the chunk size
    transcript = Transcript("legacy")
    transcript.text = old
    transcript.grow("User: after the upgrade\n" * 400)
    assert small_inline.hook("user-prompt-submit", prompt_with(transcript, 1))[0] == 200
    # Then nothing was lost, and the old inline text moved to S3 with the first chunk
    assert stored("legacy")["text"] == transcript.text
    head = next(i for i in transcript_items("legacy") if i["sk"]["S"] == "TRANSCRIPT")
    assert "parts" not in head and int(head["flushed"]["N"]) >= len(old)


def test_read_since_reads_what_came_after_a_length_the_transcript_had(small_inline: InProcessService) -> None:
    # Given a transcript grown by three prompts, the middle length noted, then past a chunk into S3
    transcript = Transcript("since")
    for n, size in ((1, 100), (2, 200)):
        transcript.grow(f"User: step {n}\n\n" + "x" * size + "\n\n")
        small_inline.hook("user-prompt-submit", prompt_with(transcript, n))
    noted = len(transcript.text)
    transcript.grow("User: step 3\n\nAssistant: " + "y" * 2 * CHUNK + "\n\n")
    small_inline.hook("user-prompt-submit", prompt_with(transcript, 3))
    store = on_aws.transcript_reader()
    # When the digest reads from the noted length, from the start, and from a length past the end
    after, end = store.read_since("default", "since", noted) or ("", -1)
    whole, _ = store.read_since("default", "since", 0) or ("", -1)
    # Then it gets exactly the new part (text in S3 included), or everything
    assert (after, end) == (transcript.text[noted:], len(transcript.text))
    assert whole == transcript.text
    assert store.read_since("default", "nobody", 0) is None
