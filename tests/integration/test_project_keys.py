"""Project paths never appear in keys (issue 22, part 3), and data written under raw-path keys by the
version before is moved by ``infra.migrate_project_keys`` and read through every project route."""

from __future__ import annotations

import contextlib
import json
import os
import zlib
from typing import Any

import boto3
import pytest

from continuity_core.extraction import paths
from continuity_core.kernel import dynamo_items
from continuity_core.kernel.names import PK, PROJECT_INDEX_PK, SESSION_INDEX_PK, TABLE_ENV
from infra import wiring
from infra.migrate_project_keys import hashed_key, migrate
from tests.support.api import InProcessService
from tests.support.lambda_events import http_event, invoke

GITHUB_TOKEN = "ghp_" + "Q7w2" * 9
PLAIN = "/work/app"
SECRET = f"/work/{GITHUB_TOKEN}/app"
KEY_ATTRIBUTES = (PK, PROJECT_INDEX_PK, SESSION_INDEX_PK)


def table_items() -> list[dict[str, Any]]:
    client = boto3.client("dynamodb")
    return list(client.scan(TableName=os.environ[TABLE_ENV])["Items"])


def stored_text() -> str:
    """Every item as text, compressed attributes (bodies) decompressed."""

    def plain(value: Any) -> Any:
        if isinstance(value, dict) and "B" in value:
            data = bytes(value["B"])
            with contextlib.suppress(zlib.error, UnicodeDecodeError):
                return dynamo_items.decompress_text(data)
            with contextlib.suppress(ValueError, zlib.error, UnicodeDecodeError):
                return dynamo_items.decompress_short_text(data)
            return repr(data)
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items()}
        if isinstance(value, list):
            return [plain(v) for v in value]
        return value

    return json.dumps([plain(item) for item in table_items()], ensure_ascii=False)


def keys_holding(text: str) -> list[str]:
    return [
        item[name]["S"]
        for item in table_items()
        for name in KEY_ATTRIBUTES
        if text in item.get(name, {}).get("S", "")
    ]


def lived(service: InProcessService, session: str, project: str, decision: str) -> None:
    """A prompt with its transcript, an agent digest with a decision (the ledger), a checkpoint."""
    body = {
        "session_id": session,
        "cwd": project,
        "project_normalized": project,  # as the client sends it
        "prompt": "move the queue to SQS",
        "transcript": {"offset": 0, "text": "User: move the queue to SQS\n"},
    }
    assert service.hook("user-prompt-submit", body)[0] == 200
    status, answer = service.digest(
        session, {"summary": "queue moved", "decisions": [{"decision": decision}]}
    )
    assert status == 201, answer


def get(function: str, route: str, **query: str) -> tuple[int, Any]:
    response = invoke(function, http_event("GET", route, route, query=query))
    return response["statusCode"], json.loads(response["body"])


def project_views(project: str) -> dict[str, int]:
    """How many sessions, checkpoints and decisions each project route shows for ``project``."""
    answers = {
        "sessions": get(wiring.SESSIONS.key, "/api/sessions", project=project),
        "overview": get(wiring.SESSIONS.key, "/api/sessions/overview", project=project),
        "checkpoints": get(wiring.READ_API.key, "/api/checkpoints", project=project),
        "ledger": get(wiring.AGENT_API.key, "/api/ledger", project=project),
    }
    for name, (status, answer) in answers.items():
        assert status == 200, (name, answer)
        assert GITHUB_TOKEN not in json.dumps(answer), name
    return {
        "sessions": len(answers["sessions"][1]["sessions"]),
        "overview": len(answers["overview"][1]["sessions"]),
        "checkpoints": len(answers["checkpoints"][1]["checkpoints"]),
        "ledger": len(answers["ledger"][1]["entries"]),
    }


def test_a_project_path_is_only_hashed_in_keys_and_redacted_where_stored(service: InProcessService) -> None:
    # Given a session in a directory named after a key
    lived(service, "s1", SECRET, "use SQS")

    # Then no key holds the path, no attribute holds the secret, and the raw path still finds it
    assert keys_holding("/work") == []
    assert GITHUB_TOKEN not in stored_text() and "[REDACTED:github_token]" in stored_text()
    assert project_views(SECRET) == {"sessions": 1, "overview": 1, "checkpoints": 1, "ledger": 1}


def test_hashed_key_rewrites_only_raw_project_keys() -> None:
    hashed = dynamo_items.project_pk("a", PLAIN)

    assert hashed_key(f"A#a#P#{PLAIN}") == hashed
    assert hashed_key(f"A#a#PS#{PLAIN}") == dynamo_items.project_notes_pk("a", PLAIN)
    assert hashed_key(f"A#a#L#{PLAIN}#with#hashes") == dynamo_items.ledger_pk("a", f"{PLAIN}#with#hashes")
    assert hashed_key(hashed) is None
    assert hashed_key("A#a#S#s1") is None and hashed_key("TOKEN#abc") is None


def test_data_written_under_raw_path_keys_is_moved_and_read_through_every_project_route(
    service: InProcessService, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given sessions, checkpoints, transcripts and decisions written by the version before (keys
    # hold the normalised path itself, not redacted)
    with monkeypatch.context() as before:
        before.setattr(dynamo_items, "project_hash", lambda project: project)
        before.setattr(paths, "redact", lambda text: text)
        lived(service, "s1", PLAIN, "use SQS")
        lived(service, "s2", SECRET, "keep Redis")
    assert keys_holding(PLAIN) and keys_holding(GITHUB_TOKEN)
    # ...and, after the deploy but before the migration, a decision under the new keys
    lived(service, "s3", PLAIN, "batch the sends")
    assert project_views(PLAIN) == {"sessions": 1, "overview": 1, "checkpoints": 1, "ledger": 1}

    # When the migration runs
    result = migrate(boto3.client("dynamodb"), os.environ[TABLE_ENV])

    # Then every project route shows the old data with the new, under the path as the caller gives it
    assert result.failed == [] and result.merged == 1
    assert project_views(PLAIN) == {"sessions": 2, "overview": 2, "checkpoints": 2, "ledger": 2}
    assert project_views(SECRET) == {"sessions": 1, "overview": 1, "checkpoints": 1, "ledger": 1}
    # ...the merged ledger head counts both decisions, no key holds a path, and a second run changes nothing
    head = [
        i
        for i in table_items()
        if i[PK]["S"] == dynamo_items.ledger_pk("default", PLAIN) and i["sk"]["S"] == "HEAD"
    ]
    assert head[0]["decision_count"] == {"N": "2"}
    assert keys_holding("/work") == []
    assert not [i for i in table_items() if GITHUB_TOKEN in i.get("project_normalized", {}).get("S", "")]
    assert migrate(boto3.client("dynamodb"), os.environ[TABLE_ENV]).changed == 0
