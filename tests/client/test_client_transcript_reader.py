"""Readable text from each harness's transcript: what is kept, what is trimmed, what is skipped."""

from __future__ import annotations

import json
from pathlib import Path

from continuity_client.hook import harness, transcript

FIXTURES = Path(__file__).parent / "fixtures"


def claude_records() -> list[dict]:
    lines = (FIXTURES / "claude_transcript.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def test_a_claude_code_transcript_reads_as_the_conversation() -> None:
    # Given a realistic Claude Code transcript (meta, progress, snapshots, thinking, tools, compaction)
    records = claude_records()

    # When it is rendered
    text = transcript.render_all(harness.CLAUDE_CODE, records)

    # Then user and assistant text are kept, in order
    assert text.startswith("User: The payment tests are flaky. Make the mock deterministic.\n\n")
    assert "Assistant: Let me look at the payment mock first.\n\n" in text
    assert "User: Use Decimal for amounts, not floats.\n\n" in text
    assert text.endswith("Assistant: test_partial passes now: Decimal('10.00') == Decimal('10.00').\n\n")
    # And tool use is the tool's name with its telling input, results trimmed
    assert "Tool Read: /work/shop/tests/mocks/payment.py\n\n" in text
    assert "Tool Bash: pytest tests/payments -q -p no:randomly\n\n" in text
    assert "Result (error): FAILED tests/payments/test_refund.py::test_partial" in text
    assert "… [+" in text and text.count("line 20 of the mock") == 0
    # And thinking, meta, progress, snapshots and stop-hook summaries give nothing
    for absent in ("Probably the clock", "Caveat:", "hook_progress", "trackedFileBackups", "xyz", "guard.sh"):
        assert absent not in text
    # And the compaction is marked and its summary labelled
    assert "--- context compacted (auto) ---\n\n[Compact summary] This session is being continued" in text
    # And non-ASCII text survives as is
    assert "été fixture 😀" in text


def test_thinking_only_and_bookkeeping_records_render_to_nothing() -> None:
    records = claude_records()
    quiet = [r for r in records if r.get("type") in ("permission-mode", "file-history-snapshot", "progress")]
    thinking = [r for r in records if "thinking" in json.dumps(r.get("message", {}).get("content", ""))]

    assert quiet and thinking
    assert transcript.render_all(harness.CLAUDE_CODE, quiet + thinking[:1]) == ""


def test_the_compaction_boundary_is_where_the_context_restarts() -> None:
    state: dict = {}
    boundaries = [
        record.get("subtype") or ("summary" if record.get("isCompactSummary") else record.get("type"))
        for record in claude_records()
        if transcript.render(harness.CLAUDE_CODE, record, state).boundary
    ]

    assert boundaries == ["compact_boundary"]


def test_a_compact_summary_without_a_boundary_line_starts_the_context_itself() -> None:
    summary = {"type": "user", "isCompactSummary": True, "message": {"role": "user", "content": "So far: x"}}

    rendered = transcript.render(harness.CLAUDE_CODE, summary, {})

    assert rendered.boundary
    assert rendered.text == "[Compact summary] So far: x\n\n"


def test_a_codex_rollout_reads_without_injected_context_reasoning_or_duplicates() -> None:
    records = [
        {"type": "session_meta", "payload": {"id": "x-1", "cwd": "/work/shop", "cli_version": "0.80.0"}},
        {"type": "turn_context", "payload": {"model": "gpt-5-codex"}},
        {
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "<environment_context>\n<cwd>/work</cwd>"}],
            },
        },
        {
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "developer",
                "content": [{"type": "input_text", "text": "rules"}],
            },
        },
        {
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "fix it"}],
            },
        },
        {"type": "event_msg", "payload": {"type": "user_message", "message": "fix it"}},
        {"type": "response_item", "payload": {"type": "reasoning", "encrypted_content": "gAAAA"}},
        {
            "type": "response_item",
            "payload": {
                "type": "function_call",
                "name": "shell",
                "arguments": json.dumps({"command": ["bash", "-lc", "pytest -q"]}),
                "call_id": "c1",
            },
        },
        {
            "type": "response_item",
            "payload": {"type": "function_call_output", "call_id": "c1", "output": "ok"},
        },
        {"type": "compacted", "payload": {"message": "we fixed the tests"}},
        {
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Done."}],
            },
        },
        {"type": "event_msg", "payload": {"type": "agent_message", "message": "Done."}},
    ]

    text = transcript.render_all(harness.CODEX, records)

    assert text == (
        "User: fix it\n\n"
        "Tool shell: bash -lc pytest -q\n\n"
        "Result: ok\n\n"
        "--- context compacted ---\n\n"
        "[Compact summary] we fixed the tests\n\n"
        "Assistant: Done.\n\n"
    )


def test_gemini_messages_rewritten_as_tool_calls_complete_are_read_once_each() -> None:
    # Gemini CLI re-appends a message with the same id as its tool call completes
    call = {"id": "t1", "name": "read_file", "args": {"absolute_path": "/work/a.py"}, "status": "executing"}
    done = {**call, "status": "success", "result": [{"functionResponse": {"response": {"output": "x = 1"}}}]}
    records = [
        {"sessionId": "g-1", "projectHash": "abc", "startTime": "2026-11-20T10:00:00Z", "kind": "main"},
        {"id": "u1", "type": "user", "content": [{"text": "<session_context>tree</session_context>"}]},
        {"id": "u2", "type": "user", "content": [{"text": "what is x?"}]},
        {"id": "m1", "type": "gemini", "content": "", "thoughts": [{"subject": "hmm"}], "toolCalls": [call]},
        {"id": "m1", "type": "gemini", "content": "", "toolCalls": [done]},
        {"id": "m1", "type": "gemini", "content": "x is 1.", "toolCalls": [done]},
        {"$set": {"lastUpdated": "2026-11-20T10:01:00Z"}},
    ]

    text = transcript.render_all(harness.GEMINI, records)

    assert text == (
        "User: what is x?\n\nTool read_file: /work/a.py\n\nResult: x = 1\n\nAssistant: x is 1.\n\n"
    )


def test_long_text_is_cut_with_a_visible_marker() -> None:
    record = {"type": "user", "message": {"role": "user", "content": "y" * (transcript.MAX_TEXT_CHARS + 10)}}

    text = transcript.render(harness.CLAUDE_CODE, record, {}).text

    assert text.endswith("… [+10 chars]\n\n")
    assert len(text) < transcript.MAX_TEXT_CHARS + 40


def test_a_lone_surrogate_becomes_a_replacement_character_of_the_same_length() -> None:
    record = json.loads('{"type": "user", "message": {"role": "user", "content": "a\\ud800b"}}')

    text = transcript.render(harness.CLAUDE_CODE, record, {}).text

    assert text == "User: a\ufffdb\n\n"
    text.encode("utf-8")
