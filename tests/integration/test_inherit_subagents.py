"""Sub-agent inheritance end to end in-process (hooks → DynamoDB/S3 on moto → hooks, sessions API).

The issue's scenario: a parent session with 12 prompts and a growing transcript (a checkpoint after
10); a sub-agent start answers the inherited block with the parent's checkpoint and transcript tail;
search finds a word said only in the parent transcript.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.api import InProcessService
from tests.support.cold_starts import reset_functions
from tests.support.sessions import SessionsApi, Transcript

EVENTS = Path(__file__).resolve().parents[2] / "events"
CWD = "/work/shop"
HEADING = "## Inherited from Parent Session"


@pytest.fixture
def parent(service: InProcessService) -> Iterator[Transcript]:
    """12 prompts, each with a growing transcript; the periodic checkpoint after the 10th lands."""
    transcript = Transcript("parent-1", cwd=CWD)
    for n in range(1, 13):
        transcript.grow(f"User: step {n}: make the payment mock deterministic\n")
        if n == 4:
            transcript.grow("User: we must never call the real Stripe API from tests.\n")
        transcript.grow(f"Assistant: done with step {n}; " + "edited payments/mock.py. " * 20 + "\n")
        if n == 11:
            transcript.grow("Assistant: the flaky one was the zanzibar fixture, now seeded.\n")
        body = transcript.hook_body(hook_event_name="UserPromptSubmit", prompt=f"step {n}: payment mock")
        if n == 4:
            body["prompt"] = "we must never call the real Stripe API from tests"
        status, _ = service.hook("user-prompt-submit", body)
        assert status == 200
        if n == 10:
            assert service.drain_queue() == 1
    yield transcript


def context(answer: dict) -> str:
    return str(answer["hookSpecificOutput"]["additionalContext"])


def test_claude_code_subagent_start_inherits_the_checkpoint_and_the_tail(
    service: InProcessService, parent: Transcript
) -> None:
    # Given Claude Code's SubagentStart: the parent's session id, with the sub-agent's agent_id
    body = {**json.loads((EVENTS / "subagent-start.json").read_text()), "session_id": "parent-1", "cwd": CWD}
    # When it is posted
    status, answer = service.hook("subagent-start", body)
    # Then the sub-agent gets the parent's key, checkpoint and the transcript since that checkpoint
    assert status == 200
    assert answer["hookSpecificOutput"]["hookEventName"] == "SubagentStart"
    block = context(answer)
    assert block.startswith(HEADING)
    assert "`parent-1`" in block and "Claude Code session id" in block
    assert "### Parent's Latest Checkpoint (periodic" in block
    tail = block.split("### Parent Transcript Since That Checkpoint\n", 1)[1]
    assert "zanzibar fixture" in tail  # said after the checkpoint
    assert tail.rstrip().endswith(
        "done with step 12; " + "edited payments/mock.py. " * 19 + "edited payments/mock.py."
    )
    assert "step 10" not in tail  # before the checkpoint
    constraints = block.split("### Active Constraints\n", 1)[1].split("\n\n", 1)[0]
    assert constraints == "- we must never call the real Stripe API from tests."
    assert "agent-7c1e" not in block


def test_claude_code_session_start_with_agent_id_of_an_unknown_session_takes_the_recent_one(
    service: InProcessService, parent: Transcript
) -> None:
    status, answer = service.hook(
        "session-start", {"session_id": "sub-9", "cwd": CWD, "agent_id": "agent-1", "agent_type": "Plan"}
    )
    assert status == 200
    block = context(answer)
    assert HEADING in block and "`parent-1`" in block and "zanzibar" in block


def test_an_openclaw_subagent_inherits_from_its_main_session(service: InProcessService) -> None:
    # Given an OpenClaw main session with a transcript (no checkpoint yet)
    main = Transcript("agent:coder:main", cwd=CWD, harness="openclaw")
    main.grow("User: port the billing job to the new queue\nAssistant: started on billing/queue.py\n")
    service.hook("user-prompt-submit", main.hook_body(prompt="port the billing job"))
    # When its sub-agent starts
    status, answer = service.hook(
        "session-start", {"session_id": "agent:coder:subagent:1b9d", "cwd": CWD, "harness": "openclaw"}
    )
    # Then it inherits the main session's transcript
    assert status == 200
    block = context(answer)
    assert "`agent:coder:main`" in block and "OpenClaw session key" in block
    assert "billing/queue.py" in block


def test_opencode_parent_id_is_used_directly(service: InProcessService, parent: Transcript) -> None:
    status, answer = service.hook(
        "session-start",
        {"sessionId": "ses_child", "cwd": "/elsewhere", "harness": "opencode", "parentID": "parent-1"},
    )
    assert status == 200
    assert "`parent-1`" in context(answer)


def test_codex_gets_no_inherited_block(service: InProcessService, parent: Transcript) -> None:
    status, answer = service.hook(
        "session-start", {"session_id": "codex-1", "cwd": "/elsewhere", "harness": "codex", "agent_id": "a"}
    )
    assert (status, answer) == (200, {})


def test_a_parent_with_nothing_yet_gives_no_block(service: InProcessService) -> None:
    status, answer = service.hook(
        "session-start", {"session_id": "agent:x:subagent:1", "cwd": "/nowhere", "harness": "openclaw"}
    )
    assert (status, answer) == (200, {})


def test_inherit_context_false_turns_it_off(
    service: InProcessService, parent: Transcript, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CONTINUITY_INHERIT_CONTEXT", "false")
    reset_functions()
    body = {"session_id": "parent-1", "cwd": CWD, "agent_id": "a1", "hook_event_name": "SubagentStart"}
    assert service.hook("subagent-start", body) == (200, {})


def test_a_subagent_session_inherits_its_parent_instead_of_a_guessed_recovery(
    service: InProcessService, parent: Transcript
) -> None:
    # Given a new sub-agent session of the parent's project (the session index must not get in the way)
    status, answer = service.hook(
        "session-start", {"session_id": "sub-2", "cwd": CWD, "agent_id": "a2", "source": "startup"}
    )
    assert status == 200
    text = context(answer)
    # Then it gets its parent's context, with the parent's rule, once: not the project's latest
    # checkpoint (the parent's) a second time as a recovery
    assert text.startswith(HEADING)
    assert "## Session Recovery Context" not in text
    assert "zanzibar" in text
    constraints = text.split("### Active Constraints\n", 1)[1].split("\n\n", 1)[0]
    assert "we must never call the real Stripe API from tests" in constraints
    assert len(text) <= 9000


def test_search_finds_a_word_said_only_in_the_parent_transcript(
    service: InProcessService, parent: Transcript
) -> None:
    # Given a sub-agent of the same project asking
    service.hook(
        "user-prompt-submit", {"session_id": "sub-3", "cwd": CWD, "transcript": {"offset": 0, "text": "hi"}}
    )
    # When it searches its project for a word only the parent's transcript has
    status, body = SessionsApi().search(query="zanzibar", project=CWD, asking_session_key="sub-3")
    # Then the parent is found, with a snippet around the word
    assert status == 200
    (hit,) = body["results"]
    assert hit["session_key"] == "parent-1"
    assert "«zanzibar»" in hit["snippet"]


def test_the_parent_is_listed_with_its_transcript(service: InProcessService, parent: Transcript) -> None:
    _, page = SessionsApi().sessions(project=CWD)
    assert [s["session_key"] for s in page["sessions"]] == ["parent-1"]
    _, body = SessionsApi().transcript("parent-1")
    assert body["text"] == parent.text
