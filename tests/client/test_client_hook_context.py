"""What a hook tells the service about the agent's context: the harness's own figure and its cap."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.client.client_support import run_hook
from tests.client.fake_continuity_service import FakeService

SESSION = "7f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b"


def assistant(context: int, text: str = "Working on it.") -> dict:
    usage = {
        "input_tokens": 6,
        "cache_creation_input_tokens": 1_000,
        "cache_read_input_tokens": context - 1_006,
    }
    return {
        "type": "assistant",
        "message": {
            "role": "assistant",
            "content": [{"type": "text", "text": text}],
            "usage": {**usage, "output_tokens": 400},
        },
    }


def user(text: str) -> dict:
    return {"type": "user", "message": {"role": "user", "content": text}}


def write(path: Path, *records: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.write("".join(json.dumps(record) + "\n" for record in records))


def payload(path: Path, event: str = "UserPromptSubmit", **extra: str) -> dict:
    return {
        "session_id": SESSION,
        "transcript_path": str(path),
        "cwd": str(path.parent),
        "hook_event_name": event,
        **extra,
    }


def test_a_prompt_carries_the_context_the_harness_recorded(
    tmp_path: Path, service: FakeService, client_env: dict[str, str]
) -> None:
    # Given a Claude Code transcript whose last response counted 151,000 tokens of input
    path = tmp_path / "projects" / f"{SESSION}.jsonl"
    write(path, user("Port the parser."), assistant(120_000), assistant(151_000, "Ported."))

    # When the user submits the next prompt
    run_hook(["user-prompt-submit"], payload(path, prompt="now the tests"), client_env)

    # Then the body carries the harness's figure next to the (much smaller) readable size
    body = service.requests[-1].body
    assert body["context_tokens"] == 151_000
    assert body["transcript_chars"] == len(
        "User: Port the parser.\n\nAssistant: Working on it.\n\nAssistant: Ported.\n\n"
    )
    assert body["injection_cap_chars"] == 10_000


def test_no_figure_is_sent_before_the_first_response_or_after_a_compaction(
    tmp_path: Path, service: FakeService, client_env: dict[str, str]
) -> None:
    path = tmp_path / "projects" / f"{SESSION}.jsonl"
    write(path, user("Start."))
    run_hook(["user-prompt-submit"], payload(path, prompt="one"), client_env)
    write(
        path,
        assistant(90_000),
        {
            "type": "system",
            "subtype": "compact_boundary",
            "compactMetadata": {"trigger": "manual", "preTokens": 90_000},
        },
    )
    run_hook(["pre-compaction"], payload(path, "PreCompact", trigger="manual"), client_env)
    run_hook(["user-prompt-submit"], payload(path, prompt="two"), client_env)

    first, compaction, second = (request.body for request in service.requests)
    assert "context_tokens" not in first
    assert "context_tokens" not in compaction and "injection_cap_chars" not in compaction
    assert "context_tokens" not in second and second["transcript_chars"] > 0


@pytest.mark.parametrize(
    ("harness", "event", "cap"),
    [
        ("claude-code", "session-start", 10_000),
        ("claude-code", "subagent-start", 10_000),
        ("codex", "session-start", 7_500),
        ("codex", "user-prompt-submit", 7_500),
        ("gemini", "session-start", 9_000),
        ("gemini", "user-prompt-submit", 9_000),
        ("codex", "subagent-start", 7_500),
        ("claude-code", "session-end", None),
        ("codex", "pre-compaction", None),
        ("codex", "stop", None),
        ("claude-code", "post-compaction", None),
    ],
)
def test_hooks_that_may_inject_carry_the_harness_cap(
    harness: str, event: str, cap: int | None, service: FakeService, client_env: dict[str, str]
) -> None:
    run_hook([event, "--harness", harness], {"session_id": "s-1", "cwd": "/work/repo"}, client_env)

    assert service.requests[-1].body.get("injection_cap_chars") == cap


def test_the_cap_of_other_harnesses_is_a_client_setting(
    service: FakeService, client_env: dict[str, str], home: Path
) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.json").write_text(json.dumps({"injection_cap_chars": 6_000}))
    start = {"session_id": "s-1", "cwd": "/work/repo"}

    run_hook(["session-start", "--harness", "gemini"], start, client_env)
    run_hook(
        ["session-start", "--harness", "gemini"],
        start,
        {**client_env, "CONTINUITY_INJECTION_CAP_CHARS": "50"},
    )
    run_hook(["session-start", "--harness", "claude-code"], start, client_env)

    caps = [request.body["injection_cap_chars"] for request in service.requests]
    assert caps == [6_000, 200, 10_000]  # the file, the environment (raised to the service's floor), fixed
