"""Agent digests, the decision ledger, fork detection, tiered recovery and the compaction nudge."""

import json
from typing import Any

import pytest

from tests.integration.conftest import prompt
from tests.support.api import InProcessService
from tests.support.cold_starts import reset_functions

DIGEST = {
    "summary": "Checkout tests were flaky because the payment mock used wall-clock time.",
    "decisions": [
        {
            "decision": "Freeze time in the payment mock",
            "rationale": "the retry window depended on now()",
            "evidence": [{"path": "tests/mocks/payment.py", "line": 42, "quote": "time.time()"}],
        }
    ],
    "next_steps": ["Remove the sleep in test_checkout_retry", "Run the suite 20 times"],
    "blockers": ["CI cache is stale"],
    "questions": ["Should the mock live in conftest?"],
}


def start(service: InProcessService, session: str, cwd: str = "/work/app", **extra: str) -> str:
    status, body = service.hook("session-start", {"session_id": session, "cwd": cwd, **extra})
    assert status == 200
    return body.get("hookSpecificOutput", {}).get("additionalContext", "")


def prompts(service: InProcessService, session: str, count: int, cwd: str = "/work/app") -> None:
    for n in range(1, count + 1):
        service.hook("user-prompt-submit", prompt(session, n, cwd))
    service.drain_queue()


def decide(service: InProcessService, session: str, *decisions: str) -> None:
    body = {"summary": f"{session} decided", "decisions": [{"decision": d} for d in decisions]}
    status, answer = service.digest(session, body)
    assert status == 201, answer


def test_a_digest_becomes_an_agent_checkpoint_with_its_sections(service: InProcessService) -> None:
    start(service, "s")

    status, answer = service.digest("s", DIGEST)

    assert status == 201
    assert answer["checkpoint"]["trigger"] == "agent"
    stored = service.get(
        "/api/checkpoints/s", "/api/checkpoints/{session_key}", path_parameters={"session_key": "s"}
    )
    digest = stored[1]["checkpoints"][-1]["digest"]
    for section in (
        "## Agent Digest",
        "### Decisions",
        "### Next Steps",
        "### Blockers",
        "### Open Questions",
    ):
        assert section in digest
    assert 'tests/mocks/payment.py:42 "time.time()"' in digest


def test_recovery_after_an_agent_digest_keeps_the_prompts_before_it_and_its_own_facts(
    service: InProcessService,
) -> None:
    prompts(service, "s", 10)
    service.digest("s", DIGEST)

    context = start(service, "s", source="compact")

    # The agent's summary, decision, next steps and question, and the prompts checkpointed before it
    assert "_Recovered from this session: agent checkpoint" in context
    where = context.index("### Where things stand\n")
    assert where < context.index("wall-clock time") < context.index("### Decisions")
    assert "- Freeze time in the payment mock (prompt 10)" in context
    assert "- Planned next (prompt 10): Run the suite 20 times" in context
    assert "- Should the mock live in conftest? (prompt 10)" in context
    assert "tests/mocks/payment.py" in context
    assert "### Next\n> step 10: refactor the checkpoint writer\n" in context
    assert len(context) <= 9000


def test_a_digest_for_an_unseen_session_needs_a_project(service: InProcessService) -> None:
    status, answer = service.digest("ghost", {"summary": "hello"})
    assert (status, "project" in answer["detail"]) == (422, True)

    status, answer = service.digest("ghost", {"summary": "hello", "project": "/work/app/"})
    assert status == 201
    assert answer["checkpoint"]["project_normalized"] == "/work/app"


@pytest.mark.parametrize("body", [{}, {"summary": ""}, {"summary": "x", "decisions": [{"rationale": "no"}]}])
def test_a_malformed_digest_gets_422(service: InProcessService, body: dict[str, Any]) -> None:
    start(service, "s")
    status, answer = service.digest("s", body)
    assert (status, answer["error"]) == (422, "invalid_request")


def test_the_ledger_lists_decisions_newest_first_and_pages(service: InProcessService) -> None:
    start(service, "a")
    start(service, "b")
    decide(service, "a", "first", "second")
    decide(service, "b", "third")

    status, page = service.agent_api(
        "GET", "/api/ledger", "/api/ledger", query={"project": "/work/app", "limit": "2"}
    )
    _, rest = service.agent_api(
        "GET",
        "/api/ledger",
        "/api/ledger",
        query={"project": "/work/app", "limit": "2", "next_token": page["next_token"]},
    )

    assert status == 200
    assert [e["decision"] for e in page["entries"]] == ["third", "second"]
    assert [e["session_key"] for e in page["entries"]] == ["b", "a"]
    assert [e["decision"] for e in rest["entries"]] == ["first"]


def test_a_forged_page_token_is_refused(service: InProcessService) -> None:
    status, _ = service.agent_api(
        "GET", "/api/ledger", "/api/ledger", query={"project": "/work/app", "next_token": "bm90LWpzb24"}
    )
    assert status == 400


def test_a_session_sees_decisions_other_sessions_made_since_its_checkpoint(service: InProcessService) -> None:
    prompts(service, "A", 10)
    start(service, "B")
    decide(service, "B", "Use Postgres advisory locks, not Redis")

    context = start(service, "A", source="compact")

    fork = context.split("### Ledger changed since your last checkpoint", 1)[1]
    assert "Use Postgres advisory locks, not Redis" in fork.split("## Session Checkpoint")[0]
    assert "session B" in fork


def test_decisions_older_than_the_checkpoint_are_not_reported_as_changes(service: InProcessService) -> None:
    start(service, "B")
    decide(service, "B", "old decision")
    prompts(service, "A", 10)

    context = start(service, "A", source="compact")

    assert "### Ledger changed" not in context
    assert "## Decision Ledger\n- old decision" in context


def test_recovery_of_nothing_is_404_and_of_nowhere_is_422(service: InProcessService) -> None:
    assert service.recover(project="/nowhere")[0] == 404
    assert service.recover(level="1")[0] == 422
    assert service.recover(project="/work/app", level="4")[0] == 422


def test_an_explicit_checkpoint_is_written_now(service: InProcessService) -> None:
    service.hook("user-prompt-submit", prompt("s", 1))

    status, answer = service.agent_api(
        "POST",
        "/api/sessions/s/checkpoint",
        "/api/sessions/{session_key}/checkpoint",
        path_parameters={"session_key": "s"},
    )

    assert (status, answer["checkpoint"]["trigger"]) == (200, "explicit")


def test_a_digest_or_checkpoint_post_is_answered_with_ids_and_counts_not_the_rolling_digest(
    service: InProcessService,
) -> None:
    # Given a session with prompts and a checkpoint whose rolling digest holds them
    prompts(service, "s", 10)
    # When the agent posts its digest, and then asks for an explicit checkpoint
    digest = service.digest("s", DIGEST)
    explicit = service.agent_api(
        "POST",
        "/api/sessions/s/checkpoint",
        "/api/sessions/{session_key}/checkpoint",
        path_parameters={"session_key": "s"},
    )
    # Then each answer says which checkpoint was written and what it covers
    for status, answer in (digest, explicit):
        assert status in (200, 201)
        written = answer["checkpoint"]
        assert written["session_key"] == "s" and written["id"] and written["digest_chars"] > 0
        assert set(written) == {
            "id", "session_key", "trigger", "sequence", "created_at", "project_normalized",
            "prompt_count", "first_prompt", "last_prompt", "digest_chars",
        }  # fmt: skip
    assert explicit[1]["checkpoint"]["sequence"] == digest[1]["checkpoint"]["sequence"] + 1
    # and none of what the session said (prompt 10's words are in the stored checkpoint)
    stored = service.get(
        "/api/checkpoints/s", "/api/checkpoints/{session_key}", path_parameters={"session_key": "s"}
    )
    said = prompt("s", 10)["prompt"]
    assert said in json.dumps(stored[1])
    assert said not in json.dumps(digest[1]) and said not in json.dumps(explicit[1])


def nudge_prompt(service: InProcessService, chars: int) -> str:
    body = {**prompt("s", 1), "transcript_chars": chars}
    _, answer = service.hook("user-prompt-submit", body)
    return answer.get("hookSpecificOutput", {}).get("additionalContext", "")


@pytest.fixture
def small_window(monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setenv("CONTINUITY_CONTEXT_WINDOW_TOKENS", "10000")
    reset_functions()
    from continuity_core.kernel.config import ContinuityConfig

    return 10000 * 4 * ContinuityConfig().nudge_threshold_percent // 100  # threshold in characters


def test_the_nudge_fires_once_per_crossing(service: InProcessService, small_window: int) -> None:
    assert nudge_prompt(service, small_window - 1) == ""
    assert "session_digest" in nudge_prompt(service, small_window)
    assert nudge_prompt(service, small_window + 500) == ""
    assert nudge_prompt(service, 1000) == ""  # compaction: the context shrank, re-armed
    assert "session_digest" in nudge_prompt(service, small_window + 10)


def test_no_nudge_when_the_agent_already_wrote_a_digest(service: InProcessService, small_window: int) -> None:
    nudge_prompt(service, 10)
    service.digest("s", DIGEST)

    assert nudge_prompt(service, small_window + 1) == ""


def test_a_digest_sent_again_with_its_key_answers_the_first_checkpoint(service: InProcessService) -> None:
    start(service, "keyed")
    body = {**DIGEST, "idempotency_key": "digest-1"}
    _, first = service.digest("keyed", body)

    status, again = service.digest("keyed", body)

    assert (status, again["checkpoint"]["id"]) == (201, first["checkpoint"]["id"])
    assert len(service.session_checkpoints("keyed")) == 1


def test_a_key_reused_with_a_different_digest_answers_409_naming_the_key(service: InProcessService) -> None:
    start(service, "reused")
    service.digest("reused", {**DIGEST, "idempotency_key": "digest-1"})

    status, answer = service.digest(
        "reused", {**DIGEST, "summary": "Another story.", "idempotency_key": "digest-1"}
    )

    assert status == 409
    assert answer == {
        "error": "conflict",
        "detail": "idempotency key 'digest-1' was already used for a different request; "
        "send this one with a new key",
    }
    assert [c["summary"] for c in service.session_checkpoints("reused")] == [DIGEST["summary"]]
