"""The harnesses' current hook events through ``continuity hook``: what is posted, under which
session, and what is printed back.

Payload shapes, by the harness's own definition:
- Claude Code: the hooks reference (code.claude.com/docs/en/hooks) and the Agent SDK's hook input
  types: PostCompact (``trigger``, ``compact_summary``), SessionStart ``source`` incl. ``fork`` (a
  fork's transcript lines carry ``forkedFrom.sessionId``), SubagentStop (``agent_id``,
  ``agent_type``, ``agent_transcript_path``, ``last_assistant_message``, ``stop_hook_active``).
- Codex: codex-rs/hooks/schema/generated/*.command.input.schema.json (SubagentStart, SubagentStop,
  PostCompact, Stop; their outputs ``additionalProperties: false``), sub-agent hooks carrying the
  root's ``session_id`` (openai/codex#22268) and the child's ``agent_id`` (openai/codex#22882).
- Gemini CLI: docs/hooks/reference.md (PreCompress ``trigger`` ``auto``/``manual``, fired before
  the CLI decides whether to compress: chatCompressionService.ts).
"""

from __future__ import annotations

import json
from pathlib import Path

from continuity_client.hook import current, harness
from continuity_client.setup import install as installer
from tests.client.client_support import run_hook
from tests.client.fake_continuity_service import FakeService

RECOVERY = "## Session Recovery Context\n_Recovered from the post_compaction checkpoint of this session_"


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    return path


def codex_message(role: str, text: str) -> dict:
    kind = "input_text" if role == "user" else "output_text"
    content = [{"type": kind, "text": text}]
    return {"type": "response_item", "payload": {"type": "message", "role": role, "content": content}}


# -- Claude Code ----------------------------------------------------------------------------------------


def test_claude_code_post_compact_posts_its_summary_and_prints_nothing(
    service: FakeService, client_env: dict[str, str]
) -> None:
    payload = {
        "session_id": "cc-1",
        "cwd": "/work/shop",
        "hook_event_name": "PostCompact",
        "trigger": "auto",
        "compact_summary": "We use Decimal for amounts.",
    }
    result = run_hook(["PostCompact", "--harness", "claude-code"], payload, client_env)
    assert result.stdout == ""
    posted = service.requests[-1]
    assert posted.event == "post-compaction"
    assert posted.body["compact_summary"] == "We use Decimal for amounts."


def test_a_claude_code_subagent_stop_posts_the_subagents_own_transcript_under_its_own_key(
    tmp_path: Path, home: Path, service: FakeService, client_env: dict[str, str]
) -> None:
    # Given the sub-agent's own transcript file (all sidechain lines)
    agent_file = write_jsonl(
        tmp_path / "cc-1" / "subagents" / "agent-a1b2.jsonl",
        [
            {
                "type": "user",
                "isSidechain": True,
                "message": {"role": "user", "content": "Find the flaky fixture"},
            },
            {
                "type": "assistant",
                "isSidechain": True,
                "message": {
                    "role": "assistant",
                    "content": [{"type": "text", "text": "It is the quokka fixture."}],
                },
            },
        ],
    )
    payload = {
        "session_id": "cc-1",
        "transcript_path": str(tmp_path / "cc-1.jsonl"),
        "cwd": "/work/shop",
        "hook_event_name": "SubagentStop",
        "stop_hook_active": False,
        "agent_id": "a1b2",
        "agent_type": "Explore",
        "agent_transcript_path": str(agent_file),
        "last_assistant_message": "It is the quokka fixture.",
    }
    # When the hook runs
    result = run_hook(["SubagentStop", "--harness", "claude-code"], payload, client_env)
    # Then it is posted under the sub-agent's own session, with its parent, carrying its transcript
    assert result.stdout == ""
    body = service.requests[-1].body
    assert service.requests[-1].event == "subagent-stop"
    assert (body["session_id"], body["parent_session_key"]) == ("cc-1:subagent:a1b2", "cc-1")
    assert body["transcript"] == {
        "offset": 0,
        "text": "User: Find the flaky fixture\n\nAssistant: It is the quokka fixture.\n\n",
    }
    # And the project's current session (for the CLI and the MCP server) is not the sub-agent's
    assert current.read(str(home), "/work/shop") is None


def test_a_fork_names_the_session_it_was_forked_from(
    tmp_path: Path, service: FakeService, client_env: dict[str, str]
) -> None:
    # Given a fork's transcript, whose copied lines carry forkedFrom
    fork_file = write_jsonl(
        tmp_path / "cc-fork.jsonl",
        [
            {
                "type": "user",
                "sessionId": "cc-fork",
                "forkedFrom": {"sessionId": "cc-parent", "messageUuid": "u1"},
                "message": {"role": "user", "content": "hi"},
            },
        ],
    )
    payload = {
        "session_id": "cc-fork",
        "transcript_path": str(fork_file),
        "cwd": "/work/shop",
        "hook_event_name": "SessionStart",
        "source": "fork",
    }
    run_hook(["SessionStart", "--harness", "claude-code"], payload, client_env)
    assert service.requests[-1].body["previous_session_key"] == "cc-parent"


def test_a_fork_not_written_yet_names_the_projects_session_the_hooks_saw_last(
    tmp_path: Path, home: Path, service: FakeService, client_env: dict[str, str]
) -> None:
    project = str(tmp_path)
    run_hook(
        ["UserPromptSubmit", "--harness", "claude-code"],
        {"session_id": "cc-parent", "cwd": project, "prompt": "hi"},
        client_env,
    )
    payload = {
        "session_id": "cc-fork",
        "transcript_path": str(tmp_path / "none.jsonl"),
        "cwd": project,
        "source": "fork",
    }
    run_hook(["SessionStart", "--harness", "claude-code"], payload, client_env)
    assert service.requests[-1].body["previous_session_key"] == "cc-parent"
    pointer = current.read(str(home), project)
    assert pointer is not None and pointer["session_id"] == "cc-fork"


def test_a_plain_start_names_no_previous_session(service: FakeService, client_env: dict[str, str]) -> None:
    run_hook(
        ["SessionStart", "--harness", "claude-code"],
        {"session_id": "cc-2", "cwd": "/work/shop", "source": "startup"},
        client_env,
    )
    assert "previous_session_key" not in service.requests[-1].body


# -- Codex ------------------------------------------------------------------------------------------------


def test_a_codex_subagent_start_keeps_the_root_session_and_prints_only_the_two_allowed_fields(
    service: FakeService, client_env: dict[str, str]
) -> None:
    service.answers["subagent-start"] = {
        "hookSpecificOutput": {"hookEventName": "SubagentStart", "additionalContext": "## Inherited…"},
        "systemMessage": "a field Codex would reject",
    }
    payload = {
        "session_id": "root",
        "turn_id": "t",
        "cwd": "/w",
        "hook_event_name": "SubagentStart",
        "model": "gpt-5-codex",
        "permission_mode": "default",
        "transcript_path": None,
        "agent_id": "child",
        "agent_type": "default",
    }
    result = run_hook(["SubagentStart", "--harness", "codex"], payload, client_env)
    body = service.requests[-1].body
    assert (body["session_id"], body["injection_cap_chars"]) == ("root", 7500)
    assert json.loads(result.stdout) == {
        "hookSpecificOutput": {"hookEventName": "SubagentStart", "additionalContext": "## Inherited…"}
    }


def test_a_hook_inside_a_codex_subagent_is_the_subagents_and_reads_no_transcript(
    tmp_path: Path, service: FakeService, client_env: dict[str, str]
) -> None:
    rollout = write_jsonl(
        tmp_path / "rollout-root.jsonl", [{"type": "session_meta", "payload": {"id": "root"}}]
    )
    payload = {
        "session_id": "root",
        "cwd": "/w",
        "prompt": "do the sub-task",
        "agent_id": "child",
        "agent_type": "default",
        "transcript_path": str(rollout),
    }
    run_hook(["UserPromptSubmit", "--harness", "codex"], payload, client_env)
    body = service.requests[-1].body
    assert body["session_id"] == "root:subagent:child" and "transcript" not in body


def test_codex_stop_sends_the_last_turn_and_prints_nothing(
    tmp_path: Path, service: FakeService, client_env: dict[str, str]
) -> None:
    rollout = write_jsonl(
        tmp_path / "rollout-x.jsonl",
        [codex_message("user", "summarise README"), codex_message("assistant", "A serverless service.")],
    )
    payload = {
        "session_id": "x",
        "turn_id": "t",
        "cwd": "/w",
        "hook_event_name": "Stop",
        "model": "m",
        "permission_mode": "default",
        "stop_hook_active": False,
        "transcript_path": str(rollout),
        "last_assistant_message": "A serverless service.",
    }
    result = run_hook(["Stop", "--harness", "codex"], payload, client_env)
    assert result.stdout == ""  # Stop's output schema: a decision would make Codex continue the turn
    posted = service.requests[-1]
    assert posted.event == "stop"
    assert (
        posted.body["transcript"]["text"] == "User: summarise README\n\nAssistant: A serverless service.\n\n"
    )


# -- Gemini CLI -------------------------------------------------------------------------------------------


def test_gemini_posts_no_automatic_precompress(service: FakeService, client_env: dict[str, str]) -> None:
    run_hook(["PreCompress", "--harness", "gemini"], {"session_id": "g-1", "trigger": "auto"}, client_env)
    assert service.requests == []
    run_hook(["PreCompress", "--harness", "gemini"], {"session_id": "g-1", "trigger": "manual"}, client_env)
    assert [r.event for r in service.requests] == ["pre-compaction"]


def test_gemini_recovers_at_the_next_before_agent_after_a_compression(
    tmp_path: Path, service: FakeService, client_env: dict[str, str]
) -> None:
    # Given a Gemini chat file read by a first BeforeAgent
    chat = tmp_path / "chats" / "session-1.jsonl"
    messages = [
        {"id": "u1", "type": "user", "content": [{"text": "refactor the parser"}]},
        {"id": "m1", "type": "gemini", "content": [{"text": "done"}]},
    ]
    write_jsonl(chat, [{"sessionId": "g-1", "projectHash": "h"}, *messages])
    hook = {"session_id": "g-1", "cwd": str(tmp_path), "transcript_path": str(chat), "prompt": "go on"}
    run_hook(["BeforeAgent", "--harness", "gemini"], hook, client_env)
    assert "compacted" not in service.requests[-1].body
    # When Gemini CLI compresses (its history re-written from a summary) and the user prompts again
    summary = {"id": "s1", "type": "user", "content": [{"text": "<state_snapshot>parser</state_snapshot>"}]}
    with chat.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"$set": {"messages": [summary, messages[1]]}}) + "\n")
    service.answers["user-prompt-submit"] = {
        "hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": RECOVERY}
    }
    result = run_hook(["BeforeAgent", "--harness", "gemini"], hook, client_env)
    # Then that prompt says so, and the recovery the service answers is printed for Gemini
    assert service.requests[-1].body["compacted"] is True
    assert json.loads(result.stdout) == {
        "hookSpecificOutput": {"hookEventName": "BeforeAgent", "additionalContext": RECOVERY}
    }


def test_a_gemini_prompt_loses_its_hook_context_in_the_stored_transcript(
    tmp_path: Path, service: FakeService, client_env: dict[str, str]
) -> None:
    chat = write_jsonl(
        tmp_path / "session-2.jsonl",
        [
            {"sessionId": "g-2", "projectHash": "h"},
            {
                "id": "h1",
                "type": "user",
                "content": [{"text": "<hook_context>## Session Recovery Context\n…</hook_context>"}],
            },
            {"id": "u1", "type": "user", "content": [{"text": "fix the date parser"}]},
        ],
    )
    run_hook(
        ["BeforeAgent", "--harness", "gemini"],
        {"session_id": "g-2", "cwd": str(tmp_path), "transcript_path": str(chat), "prompt": "next"},
        client_env,
    )
    assert service.transcripts["g-2"] == "User: fix the date parser\n\n"


# -- install ----------------------------------------------------------------------------------------------


def test_a_project_scope_install_runs_continuity_from_the_path_and_nothing_where_it_is_missing(
    tmp_path: Path, client_env: dict[str, str]
) -> None:
    path = str(tmp_path / ".claude" / "settings.json")
    installer.install(path, harness.CLAUDE_CODE, client_env, portable=True)
    data = json.loads(Path(path).read_text())
    commands = [h["command"] for groups in data["hooks"].values() for g in groups for h in g["hooks"]]
    assert commands and all(
        c.startswith("command -v continuity >/dev/null 2>&1 || exit 0; continuity hook ") for c in commands
    )
    assert all(str(Path.home()) not in c and ".venv" not in c for c in commands)
    assert data["hooks"]["SessionStart"][0]["matcher"] == "startup|resume|clear|compact|fork"
    # And uninstall still recognises them
    installer.uninstall(path, harness.CLAUDE_CODE, client_env)
    assert not Path(path).exists()


def test_the_portable_command_runs_through_a_shell_on_a_machine_with_or_without_continuity(
    tmp_path: Path,
) -> None:
    import subprocess

    command = installer.hook_command("continuity", "session-start", "claude-code", portable=True)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "continuity"
    fake.write_text('#!/bin/sh\necho "ran $* with $(cat)"\n')
    fake.chmod(0o755)
    # A teammate without continuity: the hook does nothing and succeeds
    without = subprocess.run(
        ["sh", "-c", command], input=b"{}", capture_output=True, env={"PATH": "/usr/bin:/bin"}
    )
    assert (without.returncode, without.stdout, without.stderr) == (0, b"", b"")
    # A teammate with it on the PATH: it runs, with the harness's stdin
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin"}
    with_it = subprocess.run(["sh", "-c", command], input=b'{"a":1}', capture_output=True, env=env)
    assert with_it.stdout == b'ran hook session-start --harness claude-code with {"a":1}\n'


def test_a_headless_gemini_prompt_is_posted_without_the_hook_context_prefixed_to_it(
    service: FakeService, client_env: dict[str, str]
) -> None:
    prompt = "<hook_context>## Session Recovery Context\n_Recovered…_</hook_context>\n\nfix the date parser"
    run_hook(
        ["BeforeAgent", "--harness", "gemini"],
        {"session_id": "g-3", "cwd": "/w", "prompt": prompt},
        client_env,
    )
    assert service.requests[-1].body["prompt"] == "fix the date parser"
