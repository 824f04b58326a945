"""Secrets sent through prompts, remembers, compaction context and digests are never stored."""

from __future__ import annotations

import gzip
import json
import os
from datetime import UTC, datetime
from typing import Any

import boto3
import pytest

from tests.support.api import InProcessService
from tests.unit.redaction.support import leaked, load_positives

POSITIVES = load_positives()


def stored_text() -> str:
    """Every item in the table, as text: what a scan of the store would find."""
    from continuity_core.kernel.dynamo_items import decompress_text

    table = os.environ["CONTINUITY_TABLE_NAME"]
    items = []
    for page in boto3.client("dynamodb").get_paginator("scan").paginate(TableName=table):
        items += page["Items"]
    # Transcript appends and checkpoint bodies are stored compressed, and so is each pending prompt
    # snippet in a state's list: read them as the service does.
    for item in items:
        for name, value in item.items():
            if "B" in value:
                item[name] = {"S": decompress_text(bytes(value["B"]))}
            elif "L" in value:
                item[name] = {"L": [_plain_element(element) for element in value["L"]]}
    return json.dumps(items)


def _plain_element(element: dict[str, Any]) -> dict[str, Any]:
    from continuity_core.kernel.dynamo_items import decompress_short_text

    return {"S": decompress_short_text(bytes(element["B"]))} if "B" in element else element


def test_no_secret_of_any_kind_reaches_the_store(service: InProcessService) -> None:
    session = {"session_id": "leaky", "cwd": "/work/app"}
    for n, positive in enumerate(POSITIVES):
        field = n % 3
        if field == 0:
            service.hook("user-prompt-submit", {**session, "prompt": f"please use {positive.text} now"})
        elif field == 1:
            service.hook("remember", {**session, "content": positive.text})
        else:
            service.hook("pre-compaction", {**session, "custom_instructions": positive.text})
    service.drain_queue()
    for positive in POSITIVES[:20]:
        status, _ = service.digest(
            "leaky",
            {
                "summary": positive.text,
                "decisions": [{"decision": positive.text, "rationale": positive.text}],
            },
        )
        assert status == 201
    service.hook("session-end", {**session, "reason": "logout"})

    stored = stored_text()

    assert "[REDACTED:" in stored
    assert [p.kind for p in POSITIVES if leaked(p.secret, stored)] == []


def test_secrets_already_stored_are_redacted_again_when_served(service: InProcessService) -> None:
    from continuity_core.hooks.ports import PromptRecord
    from continuity_core.models.state import SessionIdentity
    from tests.support import on_aws

    secret = next(p for p in POSITIVES if p.kind == "github_token").secret
    identity = SessionIdentity(
        session_key="old", harness="claude-code", project="/work/app", project_normalized="/work/app"
    )
    # Written before redaction existed (straight to the store, past the ingest path).
    for _ in range(10):
        on_aws.state_store().record_prompt(
            "default", identity, PromptRecord(f"token {secret}"), datetime.now(UTC)
        )
    on_aws.checkpoint_writer().flush("default", "old")

    listed = json.dumps(service.session_checkpoints("old"))
    _, recovered = service.hook(
        "session-start", {"session_id": "old", "cwd": "/work/app", "source": "compact"}
    )

    assert not leaked(secret, listed) and "[REDACTED:github_token]" in listed
    assert not leaked(secret, json.dumps(recovered))


def test_transcript_deltas_are_redacted_without_moving_offsets(service: InProcessService) -> None:
    from continuity_core.redaction.engine import fitted_marker

    secrets = [p for p in POSITIVES if len(p.secret) >= 16][:40]
    text = "".join(f"User: step {n} {p.text}\n" for n, p in enumerate(secrets))
    middle = len(text) // 2
    first = {
        "session_id": "tx",
        "cwd": "/work/app",
        "prompt": "a",
        "transcript": {"offset": 0, "text": text[:middle]},
    }
    second = {
        "session_id": "tx",
        "cwd": "/work/app",
        "prompt": "b",
        "transcript": {"offset": middle, "text": text[middle:]},
    }
    repeat = {**second, "idempotency_key": "tx:2"}

    assert service.hook("user-prompt-submit", first)[0] == 200
    assert service.hook("user-prompt-submit", second)[0] == 200
    assert service.hook("user-prompt-submit", repeat)[0] == 200  # an overlap: nothing new

    stored = stored_text()
    assert [p.kind for p in secrets if leaked(p.secret, stored)] == []
    from tests.support.sessions import SessionsApi

    status, body = SessionsApi().transcript("tx")
    assert status == 200
    assert len(body["text"]) == len(text)  # the client's offsets still address the copy
    assert fitted_marker("github_token", 40) == "[REDACTED:github_token]" + "*" * 17


def test_transcript_bodies_moved_to_s3_hold_no_secrets(
    service: InProcessService, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.support.cold_starts import reset_functions

    monkeypatch.setenv("CONTINUITY_TRANSCRIPT_CHUNK_CHARS", "16384")
    reset_functions()
    secrets = [p for p in POSITIVES if len(p.secret) >= 16]
    lines = [f"Result: {'x' * 300} {secrets[n % len(secrets)].text}\n" for n in range(120)]
    offset = 0
    for start in range(0, len(lines), 10):  # the client sends whole messages, ten at a time here
        chunk = "".join(lines[start : start + 10])
        delta = {"offset": offset, "text": chunk}
        body = {"session_id": "big", "cwd": "/work/app", "prompt": "go", "transcript": delta}
        assert service.hook("user-prompt-submit", body)[0] == 200
        offset += len(chunk)

    s3 = boto3.client("s3")
    bucket = os.environ["TRANSCRIPT_BUCKET_NAME"]
    objects = s3.list_objects_v2(Bucket=bucket).get("Contents", [])
    bodies = "".join(
        gzip.decompress(s3.get_object(Bucket=bucket, Key=o["Key"])["Body"].read()).decode() for o in objects
    )

    assert objects, "the transcript should have moved to S3"
    assert [p.kind for p in secrets if leaked(p.secret, bodies + stored_text())] == []


def test_a_secret_split_across_two_deltas_is_stored_redacted_and_no_two_pages_join_into_it(
    service: InProcessService,
) -> None:
    from tests.support.sessions import SessionsApi

    # Given a secret of each kind, each in its own session's transcript, sent as two deltas cut in
    # the middle of the secret (the unit tests cut every corpus secret at every position)
    one_of_each = list({p.kind: p for p in POSITIVES}.values())
    for n, positive in enumerate(one_of_each):
        line = f"Tool: {positive.text}\nUser: next\n"
        cut = line.index(positive.secret) + len(positive.secret) // 2
        for offset, part in ((0, line[:cut]), (cut, line[cut:])):
            body: dict[str, object] = {"session_id": f"cut{n}", "cwd": "/work/app", "prompt": f"{offset}"}
            body["transcript"] = {"offset": offset, "text": part}
            assert service.hook("user-prompt-submit", body)[0] == 200

    # Then no item of the table holds a piece of any of them
    assert [p.kind for p in one_of_each if leaked(p.secret, stored_text())] == []

    # and the two pages that meet at the cut, read with offset/limit, do not join into it either
    def page(session: str, start: int, end: int) -> str:
        status, body = SessionsApi().transcript(session, offset=str(start), limit=str(end - start))
        assert status == 200, body
        return body["text"]

    joined = {}
    for n, positive in enumerate(one_of_each):
        line = f"Tool: {positive.text}\nUser: next\n"
        cut = line.index(positive.secret) + len(positive.secret) // 2
        joined[positive.kind] = page(f"cut{n}", 0, cut) + page(f"cut{n}", cut, len(line))
    assert [p.kind for p in one_of_each if leaked(p.secret, joined[p.kind])] == []
