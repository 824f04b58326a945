"""DELETE /api/sessions/{key} and DELETE /api/projects through the handlers on moto: the S3 bodies go
too, a hook of the deleted session arriving later answers 410 and stores nothing, and a token
without the scope is told which one it lacks in words."""

from __future__ import annotations

import json
import os
from typing import Any

import boto3
import pytest

from continuity_core.kernel.names import BUCKET_ENV
from infra import wiring
from tests.support.api import InProcessService
from tests.support.lambda_events import http_event, invoke

PROJECT = "/work/app"


def forget(
    method_path: str, query: dict[str, str] | None = None, scopes: str | None = None
) -> tuple[int, Any]:
    if method_path.startswith("/api/sessions/"):
        key = method_path.rsplit("/", 1)[1]
        request = http_event(
            "DELETE", method_path, "/api/sessions/{session_key}", path_parameters={"session_key": key}
        )
    else:
        request = http_event("DELETE", method_path, method_path, query=query)
    if scopes is not None:
        request["requestContext"]["authorizer"]["lambda"]["scopes"] = scopes
    response = invoke(wiring.FORGET.key, request)  # under the forget function's own grant
    return response["statusCode"], json.loads(response["body"])


def bodies_in_s3() -> list[str]:
    listed = boto3.client("s3").list_objects_v2(Bucket=os.environ[BUCKET_ENV])
    return [item["Key"] for item in listed.get("Contents", [])]


def lived(service: InProcessService, session: str) -> None:
    """Ten prompts (a checkpoint) and a transcript long enough to put a chunk in S3."""
    first = "User: " + "the migration plan, step by step. " * 440 + "\n"
    second = "Assistant: " + "done. " * 900 + "\n"
    deltas = [{"offset": 0, "text": first}, {"offset": len(first), "text": second}]
    for n in range(1, 11):
        body: dict[str, object] = {"session_id": session, "cwd": PROJECT, "prompt": f"step {n} of {session}"}
        if deltas:
            body["transcript"] = deltas.pop(0)
        assert service.hook("user-prompt-submit", body)[0] == 200
    service.drain_queue()


@pytest.fixture
def service(service: InProcessService, monkeypatch: pytest.MonkeyPatch) -> InProcessService:
    monkeypatch.setenv("CONTINUITY_TRANSCRIPT_CHUNK_CHARS", "16384")
    return service


def test_deleting_a_session_takes_its_transcript_bodies_out_of_s3(service: InProcessService) -> None:
    lived(service, "s1")
    lived(service, "s2")
    assert len(bodies_in_s3()) == 2

    status, answer = forget("/api/sessions/s1")

    assert status == 200, answer
    assert answer["deleted"]["transcript_bodies"] == 1 and answer["deleted"]["checkpoints"] == 1
    assert len(bodies_in_s3()) == 1
    assert service.session_checkpoints("s1") == [] and len(service.session_checkpoints("s2")) == 1


def test_a_spooled_hook_of_a_deleted_session_answers_410_and_stores_nothing(
    service: InProcessService,
) -> None:
    # Given a deleted session
    lived(service, "s1")
    assert forget("/api/sessions/s1")[0] == 200

    # When a hook of it, spooled by the client before the delete, arrives
    status, answer = service.hook(
        "user-prompt-submit",
        {
            "session_id": "s1",
            "cwd": PROJECT,
            "prompt": "late",
            "transcript": {"offset": 0, "text": "User: late\n"},
        },
    )

    # Then it is refused in words, and nothing is stored
    assert status == 410
    assert answer["error"] == "gone" and "was deleted" in answer["detail"]
    service.drain_queue()
    assert service.session_checkpoints("s1") == []
    assert forget("/api/sessions/s1")[1]["deleted"] == {key: 0 for key in answer_keys()}


def answer_keys() -> list[str]:
    from continuity_core.models.forget import DeletedCounts

    return list(DeletedCounts.model_fields)


def test_deleting_a_project_takes_all_its_sessions(service: InProcessService) -> None:
    lived(service, "s1")
    lived(service, "s2")

    status, answer = forget("/api/projects", {"project": PROJECT + "/"})

    assert status == 200, answer
    assert answer["sessions"] == ["s1", "s2"] and answer["project_normalized"] == PROJECT
    assert bodies_in_s3() == []
    assert (
        service.get("/api/checkpoints", "/api/checkpoints", query={"project": PROJECT})[1]["checkpoints"]
        == []
    )


def test_a_token_without_the_scope_is_told_which_one_in_words(service: InProcessService) -> None:
    status, answer = forget("/api/sessions/s1", scopes="read")

    assert status == 403
    assert answer["detail"] == "this token lacks the 'hooks' or 'admin' scope"
    assert "<Scope" not in json.dumps(answer)


def test_deleting_a_session_takes_the_injections_its_starts_stored(service: InProcessService) -> None:
    from tests.support import on_aws

    # Given a session that lived and was resumed (its start's block is kept for the inspector)
    lived(service, "s1")
    assert service.hook("session-start", {"session_id": "s1", "cwd": PROJECT, "source": "resume"})[0] == 200
    assert on_aws.injection_log().for_session("default", "s1", 10)
    # When it is deleted
    assert forget("/api/sessions/s1")[0] == 200
    # Then nothing of what it was given remains
    assert on_aws.injection_log().for_session("default", "s1", 10) == []
