"""What the service holds, read over its HTTP API (the tests assert only from outside)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from continuity_client.hook import transcript
from tests.e2e.local_stack import Api, wait_for


def stored_transcript(api: Api, session: str) -> str | None:
    answer = api.http.get(f"{api.stack.url}/api/sessions/{session}/transcript", timeout=30)
    if answer.status_code == 404:
        return None
    assert answer.status_code == 200, answer.text
    return str(answer.json()["text"])


def rendered(harness: str, path: Path) -> str:
    """The harness's own transcript file as the client renders it (what the service should hold)."""
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return transcript.render_all(harness, records)


def triggers(api: Api, session: str) -> list[str]:
    return [str(c["trigger"]) for c in api.session_checkpoints(session)]


def checkpoint(api: Api, session: str, trigger: str, timeout_s: float = 15) -> dict[str, Any] | None:
    """The session's newest checkpoint of ``trigger``, waiting for the writer when it is queued."""
    found = wait_for(
        lambda: [c for c in api.session_checkpoints(session) if c["trigger"] == trigger], bool, timeout_s
    )
    return found[0] if found else None
