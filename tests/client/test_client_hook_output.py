"""What the client prints: each harness's own format, and nothing when there is nothing to inject."""

from __future__ import annotations

import json

import pytest

from continuity_client.hook import harness
from tests.client.client_support import run_hook, run_hook_cli
from tests.client.fake_continuity_service import FakeService

RECOVERY = "## Session Recovery Context\nYou were refactoring the spool."


def answer(event_name: str, context: str = RECOVERY) -> dict:
    return {"hookSpecificOutput": {"hookEventName": event_name, "additionalContext": context}}


@pytest.mark.parametrize(
    ("harness_name", "event", "expected_name"),
    [
        ("claude-code", "session-start", "SessionStart"),
        ("claude-code", "user-prompt-submit", "UserPromptSubmit"),
        ("claude-code", "subagent-start", "SubagentStart"),
        ("codex", "session-start", "SessionStart"),
        ("codex", "user-prompt-submit", "UserPromptSubmit"),
        ("codex", "subagent-start", "SubagentStart"),
        ("gemini", "session-start", "SessionStart"),
        ("gemini", "user-prompt-submit", "BeforeAgent"),
    ],
)
def test_context_is_printed_in_the_harness_format(
    harness_name: str, event: str, expected_name: str, service: FakeService, client_env: dict[str, str]
) -> None:
    # Given the service answers with a recovery block (named in Claude Code's terms)
    service.answers[event] = answer("SessionStart")

    # When the harness runs the hook
    result = run_hook([event, "--harness", harness_name], {"session_id": "s", "cwd": "/tmp"}, client_env)

    # Then stdout is exactly the harness's documented shape
    assert result.code == 0
    expected = {"hookEventName": expected_name, "additionalContext": RECOVERY}
    assert result.output == {"hookSpecificOutput": expected}


CODEX_ALLOWED_TOP = {
    "continue",
    "stopReason",
    "suppressOutput",
    "systemMessage",
    "hookSpecificOutput",
    "decision",
}


@pytest.mark.parametrize("event", harness.EVENTS)
def test_codex_output_has_only_documented_fields(
    event: str, service: FakeService, client_env: dict[str, str]
) -> None:
    # Given a service answer with extra, undocumented fields
    service.answers[event] = {
        "hookSpecificOutput": {"hookEventName": "X", "additionalContext": RECOVERY, "debug": 1},
        "checkpointId": "cp-1",
    }

    result = run_hook([event, "--harness", "codex"], {"session_id": "s"}, client_env)

    # Then Codex gets its strict schema: hookSpecificOutput only where the event has one, with
    # exactly hookEventName (its own name, a const) and additionalContext
    if event not in harness.CONTEXT_EVENTS["codex"]:
        assert result.stdout == ""
        return
    output = result.output
    assert output is not None
    assert set(output) <= CODEX_ALLOWED_TOP
    assert set(output["hookSpecificOutput"]) == {"hookEventName", "additionalContext"}
    assert output["hookSpecificOutput"]["hookEventName"] == harness.HARNESS_EVENTS["codex"][event]


@pytest.mark.parametrize(
    ("harness_name", "event"),
    [
        ("claude-code", "pre-compaction"),
        ("claude-code", "session-end"),
        ("claude-code", "remember"),
        ("gemini", "pre-compaction"),
        ("gemini", "session-end"),
        ("gemini", "subagent-start"),
    ],
)
def test_events_without_context_print_nothing(
    harness_name: str, event: str, service: FakeService, client_env: dict[str, str]
) -> None:
    service.answers[event] = answer("PreCompact")
    result = run_hook([event, "--harness", harness_name], {"session_id": "s"}, client_env)
    assert (result.code, result.stdout) == (0, "")


EMPTY_ANSWERS = [{}, {"hookSpecificOutput": {"hookEventName": "SessionStart"}}, answer("X", "  ")]


@pytest.mark.parametrize("body", EMPTY_ANSWERS)
def test_empty_answers_print_nothing(body: dict, service: FakeService, client_env: dict[str, str]) -> None:
    service.answers["session-start"] = body
    result = run_hook(["session-start"], {"session_id": "s"}, client_env)
    assert (result.code, result.stdout) == (0, "")


def test_the_real_process_prints_one_json_line_and_nothing_on_stderr(
    service: FakeService, client_env: dict[str, str]
) -> None:
    service.answers["session-start"] = answer("SessionStart")
    result = run_hook_cli(["session-start"], {"session_id": "s", "source": "clear"}, client_env)
    assert result.code == 0
    assert result.stderr == ""
    assert result.stdout.count("\n") == 1
    assert json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"] == RECOVERY
