"""On the local stack: pre-compaction, session end with /clear, the decision ledger's fork detection,
tiered recovery and the compaction nudge, over HTTP."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from continuity_core.recovery.tiers import LEVEL_LIMITS
from tests.e2e.local_stack import Api, wait_for

pytestmark = pytest.mark.e2e


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def hook(api: Api, event: str, session: str, project: str, **fields: Any) -> dict[str, Any]:
    answer = api.hook(event, {"session_id": session, "cwd": project, **fields})
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def context(answer: dict[str, Any]) -> str:
    return str(answer.get("hookSpecificOutput", {}).get("additionalContext", ""))


def checkpointed(api: Api, session: str, project: str, prompts: int = 10) -> list[dict[str, Any]]:
    for n in range(prompts):
        hook(api, "user-prompt-submit", session, project, prompt=f"step {n} of the payment refactor")
    return wait_for(lambda: api.session_checkpoints(session), lambda found: len(found) >= 1)


def test_pre_compaction_context_comes_back_after_the_compaction(api: Api) -> None:
    session, project = unique("compact"), f"/tmp/{unique('e2e-compact')}"
    hook(api, "user-prompt-submit", session, project, prompt="rename the retry helper")

    hook(
        api,
        "pre-compaction",
        session,
        project,
        trigger="manual",
        custom_instructions="keep the failing tests list",
    )
    hook(
        api,
        "pre-compaction",
        session,
        project,
        trigger="manual",
        custom_instructions="keep the failing tests list",
    )
    answer = hook(api, "session-start", session, project, source="compact")

    assert [c["trigger"] for c in api.session_checkpoints(session)] == ["pre_compaction"]
    assert "_Recovered from this session: pre-compaction checkpoint" in context(answer)
    assert "Compaction instructions: keep the failing tests list" in context(answer)


def test_clear_writes_the_cleared_story_and_the_new_session_recovers_it(api: Api) -> None:
    old, project = unique("old"), f"/tmp/{unique('e2e-clear')}"
    checkpointed(api, old, project)
    hook(api, "user-prompt-submit", old, project, prompt="Never push to main; one more thing")

    hook(api, "session-end", old, project, reason="clear")
    answer = hook(api, "session-start", unique("new"), project, source="clear")

    assert [c["trigger"] for c in api.session_checkpoints(old)] == ["periodic", "clear"]
    assert f"session {old} (the session you just cleared)" in context(answer)
    assert "Never push to main; one more thing" in context(answer)


def test_a_session_sees_decisions_another_session_made_since_its_checkpoint(api: Api) -> None:
    first, second, project = unique("A"), unique("B"), f"/tmp/{unique('e2e-fork')}"
    checkpointed(api, first, project)
    hook(api, "session-start", second, project, source="startup")
    digest: dict[str, Any] = {
        "summary": "switched the lock",
        "decisions": [{"decision": "Use advisory locks, not Redis"}],
    }
    created = api.http.post(f"{api.stack.url}/api/sessions/{second}/digest", json=digest, timeout=30)
    assert created.status_code == 201, created.text

    answer = hook(api, "session-start", first, project, source="compact")

    assert "### Ledger changed since your last checkpoint" in context(answer)
    assert "Use advisory locks, not Redis" in context(answer)


def test_tiered_recovery_stays_within_its_sizes(api: Api) -> None:
    session, project = unique("tiers"), f"/tmp/{unique('e2e-tiers')}"
    checkpointed(api, session, project)
    texts = {}
    for level in (1, 2, 3):
        answer = api.http.get(
            f"{api.stack.url}/api/recovery",
            params={"project": project, "level": str(level), "query": "payment"},
            timeout=30,
        )
        assert answer.status_code == 200, answer.text
        texts[level] = answer.json()["text"]

    assert len(texts[1]) <= LEVEL_LIMITS[1] and len(texts[2]) <= LEVEL_LIMITS[2]
    assert "### Every checkpoint of session" in texts[3]


def test_the_nudge_fires_once_per_crossing(api: Api) -> None:
    session, project = unique("nudge"), f"/tmp/{unique('e2e-nudge')}"
    full = 200_000 * 4  # past any threshold of the default 200k-token window

    answers = [
        context(hook(api, "user-prompt-submit", session, project, prompt="go", transcript_chars=chars))
        for chars in (1000, full, full + 10, 1000, full)
    ]

    assert ["session_digest" in a for a in answers] == [False, True, False, False, True]
