"""What the client reads from each harness's stdin and sends to the service."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from continuity_client.hook import harness, spool
from tests.client.client_support import plain, run_hook
from tests.client.fake_continuity_service import FakeService

# Shapes as each harness documents them.
CLAUDE_SESSION_START = {
    "session_id": "c-1",
    "transcript_path": "/home/u/.claude/projects/p/c-1.jsonl",
    "cwd": "/work/repo",
    "hook_event_name": "SessionStart",
    "source": "compact",
    "permission_mode": "default",
}
CLAUDE_PRE_COMPACT = {
    "session_id": "c-1",
    "transcript_path": "/t.jsonl",
    "cwd": "/work/repo",
    "hook_event_name": "PreCompact",
    "trigger": "manual",
    "custom_instructions": "keep the plan",
}
CLAUDE_SUBAGENT_START = {
    "session_id": "c-1",
    "transcript_path": "/t.jsonl",
    "cwd": "/work/repo",
    "hook_event_name": "SubagentStart",
    "agent_id": "agent-7",
    "agent_type": "Explore",
}
CLAUDE_SESSION_END = {
    "session_id": "c-1",
    "cwd": "/work/repo",
    "hook_event_name": "SessionEnd",
    "reason": "clear",
}
CODEX_USER_PROMPT = {
    "session_id": "x-1",
    "transcript_path": None,
    "cwd": "/work/repo",
    "hook_event_name": "UserPromptSubmit",
    "model": "gpt-5-codex",
    "turn_id": "t-1",
    "prompt": "fix the tests",
}
GEMINI_BEFORE_AGENT = {
    "session_id": "g-1",
    "transcript_path": "/g.json",
    "cwd": "/work/repo",
    "hook_event_name": "BeforeAgent",
    "timestamp": "2025-01-01T00:00:00Z",
    "prompt": "continue",
}


@pytest.mark.parametrize(
    ("args", "payload", "event", "harness_name"),
    [
        (["session-start"], CLAUDE_SESSION_START, "session-start", "claude-code"),
        (["pre-compaction"], CLAUDE_PRE_COMPACT, "pre-compaction", "claude-code"),
        (["subagent-start"], CLAUDE_SUBAGENT_START, "subagent-start", "claude-code"),
        (["session-end"], CLAUDE_SESSION_END, "session-end", "claude-code"),
        (["user-prompt-submit", "--harness", "codex"], CODEX_USER_PROMPT, "user-prompt-submit", "codex"),
        (["user-prompt-submit", "--harness=gemini"], GEMINI_BEFORE_AGENT, "user-prompt-submit", "gemini"),
    ],
)
def test_each_harness_shape_is_posted_as_is_with_our_fields(
    args: list[str],
    payload: dict,
    event: str,
    harness_name: str,
    service: FakeService,
    client_env: dict[str, str],
) -> None:
    # Given a harness's hook JSON
    # When the hook runs
    result = run_hook(args, payload, client_env)

    # Then the service gets every field as-is, plus the client's own
    assert result.code == 0
    (received,) = service.requests
    assert received.event == event
    assert {k: received.body[k] for k in payload} == payload
    assert received.body["harness"] == harness_name
    assert received.body["project_normalized"] == os.path.realpath(payload["cwd"])
    origin = spool.origin(client_env["CONTINUITY_HOME"])
    assert received.body["idempotency_key"] == f"{payload['session_id']}:{event}:{origin}.1"
    assert received.headers["Authorization"] == "Bearer good-token"


def test_default_harness_is_claude_code(service: FakeService, client_env: dict[str, str]) -> None:
    run_hook(["session-end"], CLAUDE_SESSION_END, client_env)
    assert service.requests[0].body["harness"] == "claude-code"


def test_camel_case_session_id_is_accepted(service: FakeService, client_env: dict[str, str]) -> None:
    run_hook(["user-prompt-submit"], {"sessionId": "camel-1", "cwd": "/tmp", "prompt": "x"}, client_env)
    body = service.requests[0].body
    assert body["session_id"] == "camel-1"
    assert body["idempotency_key"].startswith("camel-1:user-prompt-submit:")


def test_project_is_the_real_path_of_claude_project_dir(
    tmp_path: Path, service: FakeService, client_env: dict[str, str]
) -> None:
    # Given a project reached through a symlink, and the agent cd'd into a sub-folder
    real = tmp_path / "real-project"
    (real / "src").mkdir(parents=True)
    link = tmp_path / "link-project"
    link.symlink_to(real)
    env = {**client_env, "CLAUDE_PROJECT_DIR": str(link)}

    run_hook(["user-prompt-submit"], {"session_id": "s", "cwd": str(link / "src"), "prompt": "x"}, env)

    body = service.requests[0].body
    assert body["project_normalized"] == str(real)
    assert body["cwd"] == str(link / "src")  # as the harness sent it


def test_project_falls_back_to_the_raw_path_when_it_cannot_be_resolved(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(path: str) -> str:
        raise OSError("permission denied")

    monkeypatch.setattr(os.path, "realpath", broken)
    body = harness.build_body({"cwd": "/some/where"}, "codex", {})
    assert body["project_normalized"] == "/some/where"


def test_gemini_project_dir_is_used_for_gemini(tmp_path: Path) -> None:
    body = harness.build_body({"cwd": "/elsewhere"}, "gemini", {"GEMINI_PROJECT_DIR": str(tmp_path)})
    assert body["project_normalized"] == os.path.realpath(tmp_path)


def test_missing_cwd_is_filled_from_the_process(tmp_path: Path) -> None:
    body = harness.build_body({"session_id": "s"}, "claude-code", {}, getcwd=lambda: str(tmp_path))
    assert body["cwd"] == str(tmp_path)
    assert body["project_normalized"] == os.path.realpath(tmp_path)


def test_remember_takes_text_from_arguments_or_plain_stdin(
    service: FakeService, client_env: dict[str, str]
) -> None:
    env = {**client_env, "CONTINUITY_SESSION_ID": "r-1"}
    run_hook(["remember", "we", "use", "uv"], None, env)
    run_hook(["remember"], "the API is frozen until Friday", env)

    first, second = service.requests
    assert (first.event, first.body["content"], first.body["session_id"]) == ("remember", "we use uv", "r-1")
    assert second.body["content"] == "the API is frozen until Friday"


def test_harness_event_names_are_accepted_as_aliases(
    service: FakeService, client_env: dict[str, str]
) -> None:
    run_hook(["BeforeAgent", "--harness", "gemini"], GEMINI_BEFORE_AGENT, client_env)
    run_hook(["PreCompress", "--harness", "gemini"], {"session_id": "g-1", "trigger": "manual"}, client_env)
    assert [r.event for r in service.requests] == ["user-prompt-submit", "pre-compaction"]


def test_sequence_numbers_grow_per_session(service: FakeService, client_env: dict[str, str]) -> None:
    for session in ("a", "b", "a", "a"):
        run_hook(["user-prompt-submit"], {"session_id": session, "prompt": "x"}, client_env)
    assert [plain(r.key) for r in service.requests] == [
        "a:user-prompt-submit:1",
        "b:user-prompt-submit:1",
        "a:user-prompt-submit:2",
        "a:user-prompt-submit:3",
    ]


def test_unconfigured_client_posts_nothing_and_says_why_in_the_log(
    service: FakeService, client_env: dict[str, str], home: Path
) -> None:
    env = {k: v for k, v in client_env.items() if k not in ("CONTINUITY_URL", "CONTINUITY_TOKEN")}
    result = run_hook(["session-start"], CLAUDE_SESSION_START, env)
    assert (result.code, result.stdout, service.requests) == (0, "", [])
    assert "continuity login" in (home / "client.log").read_text()


def test_huge_free_text_is_cut_so_the_body_stays_under_the_service_limit(
    service: FakeService, client_env: dict[str, str]
) -> None:
    run_hook(["user-prompt-submit"], {"session_id": "big", "prompt": "log line\n" * 200_000}, client_env)
    assert len(service.requests[0].body["prompt"]) == harness.MAX_TEXT_CHARS
