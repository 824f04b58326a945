"""The transcript append protocol through the hook handler, on moto (DynamoDB + S3)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import boto3
import pytest

from continuity_core import services
from continuity_core.models.state import SessionIdentity
from tests.support.api import InProcessService
from tests.support.sessions import SessionsApi, Transcript

INLINE_MAX = 16_384  # the smallest inline budget: S3 chunks after ~16 KB


@pytest.fixture
def small_inline(service: InProcessService, monkeypatch: pytest.MonkeyPatch) -> Iterator[InProcessService]:
    monkeypatch.setenv("CONTINUITY_TRANSCRIPT_INLINE_MAX_BYTES", str(INLINE_MAX))
    services.reset()
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
    state = services.state_store().get("default", "s1")
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
    service: InProcessService,
) -> None:
    store = services.transcript_store()
    first = datetime(2026, 11, 22, 9, 0, tzinfo=UTC)
    identity = SessionIdentity(session_key="s1", harness="opencode", project="/a", project_normalized="/a")
    store.append("default", identity, 0, "one ", first)
    other = SessionIdentity(session_key="s1", harness="codex", project="/b", project_normalized="/b")
    store.append("default", other, 4, "two", first + timedelta(minutes=5))
    head = store.head("default", "s1")
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
    assert 1 <= len(objects) <= len(transcript.text.encode()) // (INLINE_MAX // 2)
    assert all(o["Size"] >= INLINE_MAX // 2 for o in objects)
    assert all(o["Key"].startswith("transcripts/default/") for o in objects)


def test_the_head_item_stays_small_and_keeps_the_tail_inline(small_inline: InProcessService) -> None:
    transcript = Transcript("big")
    for n in range(40):
        transcript.grow(f"turn {n} " + "x" * 1500 + "\n")
        small_inline.hook("user-prompt-submit", prompt_with(transcript, n))
    head = services.transcript_store().head("default", "big")
    assert head is not None
    assert head.inline_bytes <= INLINE_MAX
    assert len(head.inline) >= 3000
    assert transcript.text.endswith(head.inline)


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


def test_an_append_landing_during_a_flush_wins_and_the_flush_retries(small_inline: InProcessService) -> None:
    # Given a session about to flush, and another append that lands between the chunk's PUT and
    # the item's rewrite (moto is not atomic across threads, so the race is staged)
    store = services.transcript_store()
    identity = SessionIdentity(session_key="race", harness="claude-code")
    now = datetime.now(UTC)
    first = "a" * 15_000
    store.append("default", identity, 0, first, now)
    bodies = store._bodies
    real_put = bodies.put
    raced: list[str] = []

    def put_then_race(key: str, text: str) -> None:
        real_put(key, text)
        if not raced:
            raced.append(key)
            store.append("default", identity, len(first), "b" * 10, now)  # fits inline: no flush

    bodies.put = put_then_race  # type: ignore[method-assign]
    # When the flushing append runs (overlapping the racer's text)
    store.append("default", identity, len(first), "b" * 10 + "c" * 5000, now)
    # Then the copy is the transcript once, and the losing chunk was removed
    head = store.head("default", "race")
    assert head is not None
    assert store.read("default", head) == first + "b" * 10 + "c" * 5000
    assert raced and raced[0] not in {o["Key"] for o in bucket_objects()}


def test_transcripts_are_per_tenant(service: InProcessService) -> None:
    service.hook("user-prompt-submit", {"session_id": "s1", "transcript": {"offset": 0, "text": "mine"}})
    status, _ = SessionsApi(agent_id="someone-else").transcript("s1")
    assert status == 404


def test_an_append_is_one_request(service: InProcessService) -> None:
    # Given a session with a transcript
    service.hook("user-prompt-submit", {"session_id": "s1", "transcript": {"offset": 0, "text": "a"}})
    from continuity_core.adapters.aws import client

    calls: list[str] = []
    dynamodb = client("dynamodb")
    dynamodb.meta.events.register("before-call", lambda model, **_: calls.append(model.name))
    # When the next delta is appended
    services.transcript_store().append(
        "default", SessionIdentity(session_key="s1", harness="claude-code"), 1, "b", datetime.now(UTC)
    )
    # Then it took one UpdateItem
    assert calls == ["UpdateItem"]


def _calls() -> list[str]:
    from continuity_core.adapters.aws import client

    calls: list[str] = []
    for name in ("dynamodb", "s3"):
        client(name).meta.events.register("before-call", lambda model, **_: calls.append(model.name))
    return calls


def test_a_warm_flush_costs_the_put_and_one_update(small_inline: InProcessService) -> None:
    # Given a session this process wrote, just under the inline budget
    store = services.transcript_store()
    identity = SessionIdentity(session_key="s1", harness="claude-code")
    store.append("default", identity, 0, "a" * 16_000, datetime.now(UTC))
    calls = _calls()
    # When the next append passes the budget
    store.append("default", identity, 16_000, "b" * 1000, datetime.now(UTC))
    # Then the chunk is put and the item rewritten with the append: no read first
    assert calls == ["PutObject", "UpdateItem"]


def test_a_cold_flush_gets_the_item_from_the_failed_condition(small_inline: InProcessService) -> None:
    # Given a session another process wrote
    store = services.transcript_store()
    identity = SessionIdentity(session_key="s1", harness="claude-code")
    store.append("default", identity, 0, "a" * 16_000, datetime.now(UTC))
    services.reset()
    cold = services.transcript_store()
    calls = _calls()
    # When the next append passes the budget
    cold.append("default", identity, 16_000, "b" * 1000, datetime.now(UTC))
    # Then the failed condition stands in for the read, and the result is the same
    assert calls == ["UpdateItem", "PutObject", "UpdateItem"]
    head = cold.head("default", "s1")
    assert head is not None and cold.read("default", head) == "a" * 16_000 + "b" * 1000


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
    state = services.state_store().get("default", "s1")
    assert state is not None and state.total_prompts == 2
    assert stored("s1")["text"] == "0123456789ABCDEx"
