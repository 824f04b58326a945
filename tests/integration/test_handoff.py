"""Hand-off through the handlers on moto: ``POST /api/sessions/{key}/handoff`` on session A, then
the next new session of the project gets it first, marked, once; a third one does not."""

from __future__ import annotations

from typing import Any

import pytest

from tests.integration.conftest import prompt
from tests.support.api import InProcessService

PROJECT = "/work/app"
HANDOFF = {
    "note": "finish the refund retry; the flaky test is test_refund_timeout",
    "branch": "fix/refunds",
    "commit": "4f2a9c1d",
    "uncommitted": ["src/refunds.py", "tests/test_refunds.py"],
    "user": "ana",
    "machine": "ana-laptop",
}


def start(service: InProcessService, session: str, **fields: Any) -> str:
    body = {"session_id": session, "cwd": PROJECT, "hook_event_name": "SessionStart", **fields}
    status, answer = service.hook("session-start", body)
    assert status == 200, answer
    return str(answer.get("hookSpecificOutput", {}).get("additionalContext", ""))


def worked(service: InProcessService, session: str) -> None:
    start(service, session, source="startup")
    service.hook("user-prompt-submit", prompt(session, 1))
    service.hook(
        "user-prompt-submit",
        {"session_id": session, "cwd": PROJECT, "prompt": "never retry a refund more than 3 times"},
    )


def handed_off(service: InProcessService, session: str, **fields: Any) -> dict[str, Any]:
    status, answer = service.handoff(session, {**HANDOFF, **fields})
    assert status == 201, answer
    return dict(answer["handoff"])


def open_handoffs(service: InProcessService) -> list[dict[str, Any]]:
    status, page = service.sessions("/api/sessions", "/api/sessions", query={"project": PROJECT})
    assert status == 200, page
    return list(page["handoffs"])


def test_the_next_session_gets_the_handoff_first_marked_and_in_full(service: InProcessService) -> None:
    # Given session A worked and handed off
    worked(service, "A")
    written = handed_off(service, "A")
    assert written["consumed_by"] is None and written["by"] == "ana"
    # When a new session B starts in the project
    block = start(service, "B", source="startup")
    # Then the block opens with the hand-off, its note, git state and A's story
    assert block.startswith("## Hand-off from ana: finish the refund retry"), block[:200]
    assert "branch `fix/refunds` at commit `4f2a9c1d`" in block
    assert "`src/refunds.py`, `tests/test_refunds.py`" in block
    assert "never retry a refund more than 3 times" in block
    assert "Session `A` (claude-code, on ana-laptop)" in block


def test_a_handoff_is_given_once(service: InProcessService) -> None:
    # Given A handed off and B received it
    worked(service, "A")
    handed_off(service, "A")
    assert "## Hand-off from" in start(service, "B", source="startup")
    # When a third session starts
    third = start(service, "C", source="startup")
    # Then it is not handed A's work again (the project's guess at most), and none is listed open
    assert "## Hand-off from" not in third
    assert "finish the refund retry" not in third
    assert open_handoffs(service) == []


def test_the_open_handoff_is_listed_with_the_sessions_until_received(service: InProcessService) -> None:
    worked(service, "A")
    handed_off(service, "A")
    listed = open_handoffs(service)
    assert [(h["session_key"], h["branch"], h["note"]) for h in listed] == [
        ("A", "fix/refunds", HANDOFF["note"])
    ]
    start(service, "B", source="startup")
    assert open_handoffs(service) == []


def test_the_session_that_handed_off_does_not_take_its_own_handoff(service: InProcessService) -> None:
    worked(service, "A")
    handed_off(service, "A")
    # A resumed (a compaction's start): its own recovery, and the hand-off stays open
    block = start(service, "A", source="compact")
    assert "## Hand-off from" not in block
    assert len(open_handoffs(service)) == 1


def test_a_sub_agent_does_not_take_the_handoff(service: InProcessService) -> None:
    worked(service, "A")
    handed_off(service, "A")
    start(service, "A:subagent:x1", source="startup", parent_session_key="A")
    assert len(open_handoffs(service)) == 1


def test_a_handoff_to_a_person_waits_for_that_person(
    aws: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CONTINUITY_FLUSH_DELAY_SECONDS", "0")
    from tests.support.cold_starts import reset_functions

    reset_functions()
    ana, bob = InProcessService(token_name="ana"), InProcessService(token_name="bob")
    worked(ana, "A")
    handed_off(ana, "A", to="Bob", user=None)
    # Ana's next session is not Bob: nothing handed over
    assert "## Hand-off from" not in start(ana, "A2", source="startup")
    # Bob's (same agent, his own token) gets it, from ana (her token's name)
    block = start(bob, "B", source="startup")
    assert block.startswith("## Hand-off from ana:"), block[:120]
    assert "handed its work to you (Bob)" in block
    reset_functions()


def test_a_client_set_user_counts_as_the_person(service: InProcessService) -> None:
    worked(service, "A")
    handed_off(service, "A", to="bob")
    assert "## Hand-off from" in start(service, "B", source="startup", user="bob")


def test_another_agents_token_sees_no_handoff(aws: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CONTINUITY_FLUSH_DELAY_SECONDS", "0")
    from tests.support.cold_starts import reset_functions

    reset_functions()
    mine, theirs = InProcessService("agent-a"), InProcessService("agent-b")
    worked(mine, "A")
    handed_off(mine, "A")
    # The other tenant's session in a project of the same path gets nothing, and lists nothing
    assert "Hand-off" not in start(theirs, "X", source="startup")
    assert open_handoffs(theirs) == []
    # and did not consume it: the owner's next session still gets it
    assert "## Hand-off from" in start(mine, "B", source="startup")
    reset_functions()


def test_handing_off_an_unknown_session_is_a_404(service: InProcessService) -> None:
    status, answer = service.handoff("nobody", HANDOFF)
    assert status == 404, answer
    assert answer["error"] == "not_found"


def test_a_bad_handoff_body_is_a_422_naming_the_field(service: InProcessService) -> None:
    worked(service, "A")
    status, answer = service.handoff("A", {"commit": "not a sha"})
    assert status == 422, answer
    assert "commit" in answer["detail"]


def test_the_preview_shows_an_open_handoff_without_taking_it(service: InProcessService) -> None:
    worked(service, "A")
    handed_off(service, "A")
    status, preview = service.get("/api/preview", "/api/preview", query={"project": PROJECT})
    assert status == 200, preview
    assert preview["source"] == "handoff" and preview["text"].startswith("## Hand-off from ana")
    assert "## Hand-off from" in start(service, "B", source="startup")


def test_forgetting_the_session_takes_its_handoff_with_it(service: InProcessService) -> None:
    from tests.integration.test_forget_routes import forget

    worked(service, "A")
    handed_off(service, "A")
    status, answer = forget("/api/sessions/A")
    assert status == 200, answer
    assert open_handoffs(service) == []
    assert "never retry a refund" not in start(service, "B", source="startup")


def test_the_dashboards_sessions_page_lists_the_open_handoff(service: InProcessService) -> None:
    worked(service, "A")
    handed_off(service, "A")
    route = "/api/sessions/overview"
    status, page = service.sessions(route, route, query={"project": PROJECT})
    assert status == 200, page
    assert [(h["session_key"], h["by"]) for h in page["handoffs"]] == [("A", "ana")]
    assert "digest" not in page["handoffs"][0] and "session_digest" not in page["handoffs"][0]
