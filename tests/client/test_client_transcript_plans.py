"""The agent's task list in the transcript text: one ``Plan:`` block holding the whole list."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from continuity_client.hook import harness, transcript, transcript_cursor

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "claude-code" / "real_projects"
TASKS_SESSION = CORPUS / "-experiments-worktrees" / "ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"
needs_corpus = pytest.mark.skipif(
    not TASKS_SESSION.is_file(), reason=f"the real transcript corpus is not here ({TASKS_SESSION})"
)

TODOS = [
    {"content": "Write the parser tests", "status": "completed", "activeForm": "Writing the parser tests"},
    {"content": "Fix the tokenizer", "status": "in_progress", "activeForm": "Fixing the tokenizer"},
    {"content": "Update docs", "status": "pending", "activeForm": "Updating docs"},
]
PLAN = "Plan:\n- [x] Write the parser tests\n- [>] Fix the tokenizer\n- [ ] Update docs\n\n"


def claude_call(name: str, arguments: dict, call_id: str) -> dict:
    content = [{"type": "tool_use", "id": call_id, "name": name, "input": arguments}]
    return {"type": "assistant", "message": {"role": "assistant", "content": content}}


def claude_result(call_id: str, text: str, result: object = None, error: bool = False) -> dict:
    content = [{"type": "tool_result", "tool_use_id": call_id, "content": text, "is_error": error}]
    record: dict = {"type": "user", "message": {"role": "user", "content": content}}
    if result is not None:
        record["toolUseResult"] = result
    return record


def test_claude_code_todowrite_is_the_whole_list_and_its_result_is_dropped() -> None:
    records = [
        claude_call("TodoWrite", {"todos": TODOS}, "t1"),
        claude_result(
            "t1", "Todos have been modified successfully. Ensure that you continue to use the todo list"
        ),
        claude_call("Bash", {"command": "pytest -q"}, "t2"),
        claude_result("t2", "3 passed in 0.1s"),
    ]

    text = transcript.render_all(harness.CLAUDE_CODE, records)

    assert text == PLAN + "Tool Bash: pytest -q\n\nResult: 3 passed in 0.1s\n\n"


def test_claude_code_task_tools_build_the_list_one_change_at_a_time() -> None:
    # Given Claude Code 2.1's incremental task tools, as its transcript writes them
    create = {"subject": "Write the parser tests", "description": "long", "activeForm": "Writing"}
    records = [
        claude_call("TaskCreate", create, "c1"),
        claude_result(
            "c1",
            "Task #1 created successfully: Write the parser tests",
            {"task": {"id": "1", "subject": "Write the parser tests"}},
        ),
        claude_call("TaskCreate", {"subject": "Fix the tokenizer"}, "c2"),
        claude_result("c2", "Task #2 created successfully: Fix the tokenizer"),  # no toolUseResult
        claude_call("TaskUpdate", {"taskId": "1", "status": "in_progress", "owner": "alice"}, "u1"),
        claude_result("u1", "Updated task #1 owner, status"),
        claude_call("TaskUpdate", {"taskId": "1", "owner": "bob"}, "u2"),  # the list is unchanged
        claude_result("u2", "Updated task #1 owner"),
        claude_call("TaskUpdate", {"taskId": "1", "status": "completed"}, "u3"),
        claude_result("u3", "Updated task #1 status"),
        claude_call("TaskUpdate", {"taskId": "2", "status": "deleted"}, "u4"),
        claude_result("u4", "Updated task #2 deleted"),
    ]
    state: dict = {}

    # When they are rendered
    text = transcript.render_all(harness.CLAUDE_CODE, records, state)

    # Then each change shows the whole list, and the calls and results that say so give nothing more
    assert text == (
        "Plan:\n- [ ] Write the parser tests\n\n"
        "Plan:\n- [ ] Write the parser tests\n- [ ] Fix the tokenizer\n\n"
        "Plan:\n- [>] Write the parser tests\n- [ ] Fix the tokenizer\n\n"
        'Tool TaskUpdate: {"owner": "bob", "taskId": "1"}\n\n'
        "Result: Updated task #1 owner\n\n"
        "Plan:\n- [x] Write the parser tests\n- [ ] Fix the tokenizer\n\n"
        "Plan:\n- [x] Write the parser tests\n\n"
    )
    # And the state carried from record to record stays small and JSON
    assert json.loads(json.dumps(state)) == state
    assert state["tasks"] == [["1", "completed", "Write the parser tests"]]
    assert "plan_calls" not in state


def test_a_failed_task_create_shows_its_call_and_its_error() -> None:
    records = [
        claude_call("TaskCreate", {"subject": "Fix the tokenizer"}, "c1"),
        claude_result("c1", "Task list is full", error=True),
    ]
    state: dict = {}

    text = transcript.render_all(harness.CLAUDE_CODE, records, state)

    assert text == "Tool TaskCreate: Fix the tokenizer\n\nResult (error): Task list is full\n\n"
    assert state.get("tasks") is None and "plan_calls" not in state


def test_a_task_list_read_back_or_reminded_replaces_what_the_transcript_built() -> None:
    listed = {
        "tasks": [
            {"id": "3", "subject": "Merge", "status": "pending", "blockedBy": []},
            {"id": "1", "subject": "Research", "status": "completed", "owner": "alice", "blockedBy": []},
        ]
    }
    reminder = {
        "type": "attachment",
        "attachment": {
            "type": "task_reminder",
            "content": [{"id": "1", "subject": "Research", "status": "completed"}],
        },
    }
    records = [
        claude_call("TaskList", {}, "l1"),
        claude_result("l1", "#3 [pending] Merge\n#1 [completed] Research (alice)", listed),
        reminder,
    ]

    text = transcript.render_all(harness.CLAUDE_CODE, records)

    assert text == (
        "Tool TaskList\n\n"
        "Plan:\n- [x] Research\n- [ ] Merge\n\n"  # in the order of the ids
        "Plan:\n- [x] Research\n\n"
    )
    # A reminder of the same list says nothing new
    assert transcript.render_all(harness.CLAUDE_CODE, [reminder, reminder]).count("Plan:") == 1


def test_codex_update_plan_is_the_whole_plan_and_its_output_is_dropped() -> None:
    plan = [
        {"step": "Write the parser tests", "status": "completed"},
        {"step": "Fix the tokenizer", "status": "in_progress"},
        {"step": "Update docs", "status": "pending"},
    ]
    arguments = json.dumps({"explanation": "tokenizer first", "plan": plan})
    records = [
        {
            "type": "response_item",
            "payload": {
                "type": "function_call",
                "name": "update_plan",
                "arguments": arguments,
                "call_id": "p1",
            },
        },
        {
            "type": "response_item",
            "payload": {"type": "function_call_output", "call_id": "p1", "output": "Plan updated"},
        },
    ]
    state: dict = {}

    assert transcript.render_all(harness.CODEX, records, state) == PLAN
    assert state == {}


def test_gemini_write_todos_is_the_whole_list_once_with_its_cancelled_items_closed() -> None:
    todos = [
        {"description": "Write the parser tests", "status": "completed"},
        {"description": "Port to Rust", "status": "cancelled"},
        {"description": "Fix the tokenizer", "status": "in_progress"},
    ]
    call = {"id": "w1", "name": "write_todos", "args": {"todos": todos}, "status": "executing"}
    done = {
        **call,
        "status": "success",
        "result": [{"functionResponse": {"response": {"output": "Updated"}}}],
    }
    records = [
        {"id": "m1", "type": "gemini", "content": "", "toolCalls": [call]},
        {"id": "m1", "type": "gemini", "content": "On it.", "toolCalls": [done]},
    ]

    text = transcript.render_all(harness.GEMINI, records)

    assert text == (
        "Plan:\n- [x] Write the parser tests\n- [x] Port to Rust (cancelled)\n- [>] Fix the tokenizer\n\n"
        "Assistant: On it.\n\n"
    )


def test_opencode_todowrite_is_the_whole_list() -> None:
    todos = [{**item, "priority": "high", "id": str(n)} for n, item in enumerate(TODOS)]
    part = {
        "type": "tool",
        "tool": "todowrite",
        "state": {"status": "completed", "input": {"todos": todos}, "output": "[...]"},
    }
    record = {"info": {"id": "m1", "role": "assistant"}, "parts": [part]}

    assert transcript.render_all(harness.OPENCODE, [record]) == PLAN


def test_a_long_list_and_long_items_are_cut() -> None:
    todos = [{"content": f"step {n} " + "x" * 300, "status": "pending"} for n in range(50)]

    text = transcript.render_all(harness.CLAUDE_CODE, [claude_call("TodoWrite", {"todos": todos}, "t1")])

    lines = text.strip().split("\n")
    assert lines[0] == "Plan:" and lines[-1] == "… +10 more"
    assert len(lines) == 1 + transcript.MAX_PLAN_ITEMS + 1
    assert all(line.startswith("- [ ] step ") and len(line) < 260 for line in lines[1:-1])
    assert transcript.render_all(harness.CLAUDE_CODE, [claude_call("TodoWrite", {"todos": []}, "t2")]) == (
        "Plan: (empty)\n\n"
    )


def test_other_tools_keep_their_tool_line() -> None:
    records = [claude_call("TaskGet", {"taskId": "1"}, "g1"), claude_call("TodoWrite", {"oops": 1}, "t1")]

    assert transcript.render_all(harness.CLAUDE_CODE, records) == (
        'Tool TaskGet: {"taskId": "1"}\n\nTool TodoWrite: {"oops": 1}\n\n'
    )


@needs_corpus
def test_a_real_task_session_reads_the_same_in_any_number_of_hooks(tmp_path: Path) -> None:
    # Given a real Claude Code 2.1 session that used TaskCreate, TaskUpdate and TaskList
    lines = TASKS_SESSION.read_text(encoding="utf-8").splitlines(keepends=True)
    whole = transcript.render_all(harness.CLAUDE_CODE, [json.loads(line) for line in lines])
    assert whole.count("Plan:") >= 10
    assert "Plan:\n- [x] Research plan mode (alice)\n- [x] Research teammates (bob)" in whole

    # When it is read as it grows, in small deltas, and resent from arbitrary points after a 409
    path, home = tmp_path / "t.jsonl", str(tmp_path / "home")
    sent = ""
    for end in range(0, len(lines) + 1, 7):
        path.write_text("".join(lines[:end]), encoding="utf-8")
        while True:
            delta = transcript_cursor.next_delta(home, "s-1", str(path), harness.CLAUDE_CODE, budget=4096)
            assert delta is not None and delta.offset == len(sent)
            sent += delta.text
            if not delta.more:
                break
    path.write_text("".join(lines), encoding="utf-8")
    while (delta := transcript_cursor.next_delta(home, "s-1", str(path), harness.CLAUDE_CODE)) and delta.text:
        sent += delta.text

    # Then the text is the same, and regenerated from any mark it is the same again
    assert sent == whole
    for stored in (whole.find("Plan:") + 3, whole.rfind("Plan:") - 1, len(whole) // 2):
        assert transcript_cursor.rewind(home, "s-1", stored)
        delta = transcript_cursor.next_delta(home, "s-1", str(path), harness.CLAUDE_CODE)
        assert delta is not None and (delta.offset, delta.text) == (stored, whole[stored:])
