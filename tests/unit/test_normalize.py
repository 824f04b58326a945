import pytest
from pydantic import ValidationError

from continuity_core.extraction.paths import normalize_project
from continuity_core.hooks.normalize import normalize_hook
from continuity_core.models.hooks import HookEvent, HookRequest, HookResponse


def test_claude_code_hook_json_is_normalised() -> None:
    request = HookRequest.model_validate(
        {
            "session_id": "abc",
            "transcript_path": "/home/u/.claude/projects/x/abc.jsonl",
            "cwd": "/work/app/",
            "hook_event_name": "UserPromptSubmit",
            "prompt": "fix the bug",
            "permission_mode": "default",
            "agent_id": "sub-1",
            "agent_type": "Explore",
        }
    )

    hook = normalize_hook(HookEvent.USER_PROMPT_SUBMIT, request)

    assert hook.session_key == "abc"
    assert hook.harness == "claude-code"
    assert hook.project == "/work/app/"
    assert hook.project_normalized == "/work/app"
    assert hook.prompt == "fix the bug"
    assert (hook.subagent_id, hook.subagent_type) == ("sub-1", "Explore")


def test_signet_field_names_are_accepted() -> None:
    request = HookRequest.model_validate(
        {
            "sessionKey": "k1",
            "harness": "opencode",
            "project": "/srv/p",
            "userPrompt": "hello there",
            "sessionContext": "ctx",
            "content": "remember this",
            "previousSessionKey": "k0",
        }
    )

    hook = normalize_hook(HookEvent.REMEMBER, request)

    assert (hook.session_key, hook.harness, hook.project) == ("k1", "opencode", "/srv/p")
    assert (hook.prompt, hook.session_context, hook.content) == ("hello there", "ctx", "remember this")
    assert hook.previous_session_key == "k0"


def test_the_clients_realpath_wins_over_the_raw_path() -> None:
    request = HookRequest.model_validate(
        {"session_id": "s", "cwd": "/home/u/link", "project_normalized": "/data/real/project"}
    )

    assert normalize_hook(HookEvent.SESSION_START, request).project_normalized == "/data/real/project"


@pytest.mark.parametrize("body", [{}, {"session_id": ""}, {"session_id": "   "}, {"cwd": "/x"}])
def test_a_hook_without_a_session_id_is_refused(body: dict[str, str]) -> None:
    with pytest.raises(ValidationError, match="session_id"):
        HookRequest.model_validate(body)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("/a/b/../c/./d/", "/a/c/d"),
        ("/a//b", "/a/b"),
        ("//a/b", "/a/b"),
        ("C:\\Users\\me\\proj\\", "c:/Users/me/proj"),
        ("  ", None),
        (None, None),
    ],
)
def test_project_paths_are_normalised_lexically(raw: str | None, expected: str | None) -> None:
    assert normalize_project(raw) == expected


def test_an_empty_answer_is_an_empty_object_and_context_uses_claude_codes_event_name() -> None:
    assert HookResponse(event=HookEvent.USER_PROMPT_SUBMIT).to_claude_code() == {}
    assert HookResponse(event=HookEvent.PRE_COMPACTION, additional_context="x").to_claude_code() == {
        "hookSpecificOutput": {"hookEventName": "PreCompact", "additionalContext": "x"}
    }
