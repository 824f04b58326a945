"""The client's side of the OpenCode and OpenClaw plugins: what ``continuity hook --harness
opencode|openclaw`` posts and prints, and the OpenCode session copy read as a transcript."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from continuity_client.hook import context_usage, harness, transcript
from tests.client.client_support import run_hook
from tests.client.fake_continuity_service import FakeService

RECOVERY = "## Session Recovery Context\nYou were freezing the payment mock's clock."
ROOT = "/work/shop"


def answer(context: str = RECOVERY) -> dict:
    return {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": context}}


def message(role: str, ident: str, parts: list[dict], **info: object) -> dict:
    return {
        "info": {"id": ident, "sessionID": "ses_1", "role": role, "time": {"created": 1}, **info},
        "parts": parts,
    }


# One OpenCode session as the plugin copies it (SDK shapes: {info: Message, parts: Part[]}).
SESSION = [
    message(
        "user",
        "m1",
        [
            {"type": "text", "text": "The payment tests are flaky."},
            {"type": "text", "text": "Called the Read tool with the file's content", "synthetic": True},
            {
                "type": "file",
                "mime": "image/png",
                "filename": "failure.png",
                "url": "data:image/png;base64,AAAA",
            },
        ],
    ),
    message(
        "assistant",
        "m2",
        [
            {"type": "step-start"},
            {"type": "reasoning", "text": "Maybe the clock."},
            {"type": "text", "text": "The mock's clock is not frozen."},
            {
                "type": "tool",
                "tool": "read",
                "state": {
                    "status": "completed",
                    "input": {"filePath": "/work/shop/mock.py"},
                    "output": "import random",
                },
            },
            {
                "type": "tool",
                "tool": "bash",
                "state": {"status": "error", "input": {"command": "pytest"}, "error": "exit 1"},
            },
            {"type": "step-finish"},
        ],
        tokens={"input": 1200, "output": 40, "reasoning": 0, "cache": {"read": 30000, "write": 800}},
        time={"created": 2, "completed": 3},
    ),
    message("user", "m3", [{"type": "compaction", "auto": True}]),
    message(
        "assistant",
        "m4",
        [{"type": "text", "text": "We froze the clock; next: run the suite."}],
        summary=True,
        tokens={"input": 150000, "output": 900, "reasoning": 0, "cache": {"read": 0, "write": 0}},
    ),
]


def test_an_opencode_session_reads_as_the_conversation_without_opencodes_own_text() -> None:
    text = transcript.render_all(harness.OPENCODE, SESSION)

    assert text == (
        "User: The payment tests are flaky.\n\n"
        "User: [file failure.png]\n\n"
        "Assistant: The mock's clock is not frozen.\n\n"
        "Tool read: /work/shop/mock.py\n\n"
        "Result: import random\n\n"
        "Tool bash: pytest\n\n"
        "Result (error): exit 1\n\n"
        "--- context compacted (auto) ---\n\n"
        "[Compact summary] We froze the clock; next: run the suite.\n\n"
    )


def test_the_compaction_is_where_an_opencode_context_restarts_and_its_size_is_forgotten() -> None:
    state: dict = {}
    rendered = [transcript.render(harness.OPENCODE, record, state) for record in SESSION[:2]]
    before = context_usage.context_tokens(state)

    boundary = transcript.render(harness.OPENCODE, SESSION[2], state)
    transcript.render(harness.OPENCODE, SESSION[3], state)

    assert not any(r.boundary for r in rendered) and boundary.boundary
    assert before == 1200 + 30000 + 800  # input + cache read + cache write of the last reply
    assert context_usage.context_tokens(state) is None  # the summary counted the old context


@pytest.mark.parametrize(
    ("harness_name", "event", "expected_name"),
    [
        ("opencode", "session-start", "session.created"),
        ("opencode", "user-prompt-submit", "chat.message"),
        ("opencode", "pre-compaction", "experimental.session.compacting"),
        ("openclaw", "session-start", "session_start"),
        ("openclaw", "user-prompt-submit", "before_prompt_build"),
        ("openclaw", "subagent-start", "subagent_spawned"),
    ],
)
def test_the_plugins_get_the_answer_and_report_the_configured_cap(
    harness_name: str, event: str, expected_name: str, service: FakeService, client_env: dict[str, str]
) -> None:
    # Given a cap set for harnesses without a known one, and an answer to inject
    service.answers[event] = answer()
    env = {**client_env, "CONTINUITY_INJECTION_CAP_CHARS": "6000"}

    result = run_hook([event, "--harness", harness_name], {"session_id": "s", "cwd": ROOT}, env)

    assert result.output == {
        "hookSpecificOutput": {"hookEventName": expected_name, "additionalContext": RECOVERY}
    }
    (received,) = service.requests
    assert (received.body["harness"], received.body["injection_cap_chars"]) == (harness_name, 6000)


@pytest.mark.parametrize(
    ("harness_name", "event"),
    [
        ("opencode", "session-end"),
        ("opencode", "stop"),
        ("openclaw", "pre-compaction"),
        ("openclaw", "session-end"),
    ],
)
def test_events_that_cannot_inject_print_nothing_and_claim_no_cap(
    harness_name: str, event: str, service: FakeService, client_env: dict[str, str]
) -> None:
    service.answers[event] = answer()

    result = run_hook([event, "--harness", harness_name], {"session_id": "s", "cwd": ROOT}, client_env)

    assert (result.code, result.stdout) == (0, "")
    assert "injection_cap_chars" not in service.requests[0].body


def test_stop_brings_the_turns_transcript_from_the_opencode_copy(
    tmp_path: Path, service: FakeService, client_env: dict[str, str]
) -> None:
    # Given the plugin's copy of a session with a finished turn
    copy = tmp_path / "ses_1.jsonl"
    copy.write_text("".join(json.dumps(record) + "\n" for record in SESSION[:2]))

    # When the session goes idle
    run_hook(
        ["stop", "--harness", "opencode"],
        {"session_id": "ses_1", "cwd": ROOT, "transcript_path": str(copy)},
        client_env,
    )

    # Then the reply reached the service with its context size
    (received,) = service.requests
    assert received.event == "stop"
    assert received.body["transcript"]["offset"] == 0
    assert "Assistant: The mock's clock is not frozen." in received.body["transcript"]["text"]
    assert received.body["context_tokens"] == 32000


@pytest.mark.parametrize(("alias", "name"), [("OpenCode", "opencode"), ("open-claw", "openclaw")])
def test_the_harness_names_are_accepted_as_spelled(alias: str, name: str) -> None:
    assert harness.canonical_harness(alias) == name
