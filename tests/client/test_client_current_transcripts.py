"""The harnesses' transcripts as they are written today: what the client reads of them.

Record shapes, by the harness's own definition:
- Claude Code: a prompt typed while it works is an ``attachment`` of type ``queued_command``
  (``commandMode``, ``origin.kind``, ``prompt``) and no user line; a sub-agent's own transcript
  (``agent_transcript_path``, SubagentStop) is all ``isSidechain`` lines; the Task/Agent tool's
  result is the sub-agent's final report.
- Gemini CLI: packages/core/src/services/chatRecordingService.ts (every message appended as a line
  of its own, re-appended with the same id as its tool calls complete; ``{"$set": {"messages": [...]}}``
  when the history is re-written; a resumed ``<name>.json`` session copied whole into ``<name>.jsonl``)
  and chatCompressionService.ts (the compressed history starts with the summary as a user turn,
  then "Got it. Thanks for the additional context!").
- Codex: rollouts idle for seven days are compressed to ``rollout-*.jsonl.zst`` (codex-rs/rollout
  compression; zstd frames, appendable), and written back plain before Codex appends again.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest
import zstandard

from continuity_client.hook import harness, transcript, transcript_cursor

CLAUDE, CODEX, GEMINI = harness.CLAUDE_CODE, harness.CODEX, harness.GEMINI
RECOVERY = "## Session Recovery Context"


def claude_user(text: object, sidechain: bool = False, **extra: object) -> dict:
    return {"type": "user", "isSidechain": sidechain, "message": {"role": "user", "content": text}, **extra}


def claude_assistant(content: list, sidechain: bool = False) -> dict:
    return {
        "type": "assistant",
        "isSidechain": sidechain,
        "message": {"role": "assistant", "content": content},
    }


def queued(prompt: object, mode: str = "prompt", origin: str = "human") -> dict:
    return {
        "type": "attachment",
        "attachment": {
            "type": "queued_command",
            "commandMode": mode,
            "origin": {"kind": origin},
            "prompt": prompt,
        },
    }


# -- Claude Code --------------------------------------------------------------------------------------


def test_a_prompt_typed_while_claude_code_works_is_the_users() -> None:
    records = [claude_user("fix the flaky test"), queued("and use Decimal, not floats")]
    text = transcript.render_all(CLAUDE, records)
    assert text == "User: fix the flaky test\n\nUser: and use Decimal, not floats\n\n"


def test_queued_notifications_and_other_sessions_messages_are_not_the_users() -> None:
    records = [
        queued("<task-notification>done</task-notification>", mode="task-notification"),
        queued("hello from another session", origin="peer"),
        queued([{"type": "text", "text": "blocks work too"}]),
    ]
    assert transcript.render_all(CLAUDE, records) == "User: blocks work too\n\n"


def test_a_subagents_report_is_kept_whole_and_other_tool_output_trimmed() -> None:
    report = "The quokka fixture seeds the clock. " * 40  # ~1,400 characters
    records = [
        claude_assistant(
            [
                {"type": "tool_use", "id": "t1", "name": "Agent", "input": {"description": "Find it"}},
                {"type": "tool_use", "id": "t2", "name": "Bash", "input": {"command": "pytest"}},
            ]
        ),
        {
            "type": "user",
            "message": {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t1",
                        "content": [{"type": "text", "text": report}],
                    },
                    {"type": "tool_result", "tool_use_id": "t2", "content": "x" * 1400},
                ],
            },
        },
    ]
    text = transcript.render_all(CLAUDE, records)
    assert f"Result: {report.strip()}\n\n" in text
    assert "Result: " + "x" * 500 + " … [+900 chars]" in text


def test_a_subagents_own_transcript_is_read_and_sidechain_lines_in_a_main_one_are_not() -> None:
    own = [
        claude_user("Investigate test_refund", sidechain=True),
        claude_assistant([{"type": "text", "text": "It is the quokka fixture."}], sidechain=True),
    ]
    main = [claude_user("fix it"), *own]
    assert transcript.render_all(CLAUDE, own) == (
        "User: Investigate test_refund\n\nAssistant: It is the quokka fixture.\n\n"
    )
    assert transcript.render_all(CLAUDE, main) == "User: fix it\n\n"


def test_our_own_block_handed_back_as_a_user_message_is_not_the_users() -> None:
    records = [claude_user(f"{RECOVERY}\n_Recovered from …_"), claude_user("go on")]
    assert transcript.render_all(CLAUDE, records) == "User: go on\n\n"


# -- Gemini CLI ---------------------------------------------------------------------------------------


def gemini_message(ident: str, kind: str, text: str) -> dict:
    return {"id": ident, "timestamp": "2026-11-20T10:00:00Z", "type": kind, "content": [{"text": text}]}


def gemini_session(turns: int) -> list[dict]:
    records: list[dict] = [{"sessionId": "g-1", "projectHash": "h", "startTime": "2026-11-20T10:00:00Z"}]
    for n in range(turns):
        records.append(gemini_message(f"u{n}", "user", f"step {n}"))
        records.append(gemini_message(f"m{n}", "gemini", f"done {n}"))
    return records


def history_of(records: list[dict]) -> list[dict]:
    return [r for r in records if "id" in r]


def test_a_rewritten_history_of_more_than_32_messages_is_not_sent_again() -> None:
    # Given a long session, then Gemini CLI re-writing its whole history (masking old tool output)
    records = gemini_session(40)
    history = [r for r in records if "id" in r]
    state: dict = {}
    before = transcript.render_all(GEMINI, records, state)
    # When the {"$set": {"messages": [...80 messages]}} line is read
    after = transcript.render_all(GEMINI, [{"$set": {"messages": history, "lastUpdated": "x"}}], state)
    # Then it gives nothing: every message in it was read on its own line
    assert before.count("User: step 0\n") == 1
    assert after == ""


def test_a_compression_is_marked_and_its_summary_labelled_as_one_not_as_the_user() -> None:
    records = gemini_session(40)
    kept = [r for r in records if "id" in r][-6:]
    summary = gemini_message("s1", "user", "<state_snapshot>parser refactor, API unchanged</state_snapshot>")
    ack = gemini_message("a1", "gemini", "Got it. Thanks for the additional context!")
    # The CLI's own first turn (its environment context), never written as a line of its own
    setup = gemini_message(
        "e1", "user", "This is the Gemini CLI. We are setting up the context for our chat."
    )
    state: dict = {}
    transcript.render_all(GEMINI, records, state)
    masked = transcript.render(GEMINI, {"$set": {"messages": [setup, *history_of(records)]}}, state)

    rendered = transcript.render(GEMINI, {"$set": {"messages": [setup, summary, ack, *kept]}}, state)

    assert masked.text == "" and not masked.boundary

    assert rendered.boundary
    assert rendered.text == (
        "--- context compacted ---\n\n"
        "[Compact summary] <state_snapshot>parser refactor, API unchanged</state_snapshot>\n\n"
    )
    # And a later re-write of the compressed history gives nothing more
    again = transcript.render(GEMINI, {"$set": {"messages": [setup, summary, ack, *kept]}}, state)
    assert again.text == "" and not again.boundary


def test_gemini_hook_context_in_the_users_turn_is_not_the_users_words() -> None:
    # Interactive: a user turn of its own; headless: prefixed to the prompt (docs/hooks/reference.md)
    records = [
        gemini_message("h1", "user", f"<hook_context>{RECOVERY}\n_Recovered…_</hook_context>"),
        gemini_message("u1", "user", f"<hook_context>{RECOVERY}\n…</hook_context>\nfix the date parser"),
    ]
    assert transcript.render_all(GEMINI, records) == "User: fix the date parser\n\n"


def test_a_json_session_migrated_to_jsonl_is_not_stored_twice(tmp_path: Path) -> None:
    # Given an older single-JSON Gemini session read by the hooks so far
    home, legacy = str(tmp_path / "home"), tmp_path / "session-1.json"
    messages = [r for r in gemini_session(3) if "id" in r]
    legacy.write_text(json.dumps({"sessionId": "g-1", "projectHash": "h", "messages": messages}))
    first = transcript_cursor.next_delta(home, "g-1", str(legacy), GEMINI)
    # When Gemini CLI resumes it: every message copied into session-1.jsonl, then the new turn
    migrated = tmp_path / "session-1.jsonl"
    lines = [{"sessionId": "g-1", "projectHash": "h"}, *messages, gemini_message("u9", "user", "step 9")]
    migrated.write_text("".join(json.dumps(line) + "\n" for line in lines))
    second = transcript_cursor.next_delta(home, "g-1", str(migrated), GEMINI)
    # Then the second delta continues the first: the last message once (it was still being written
    # in the older file) and the new turn, nothing else
    assert first is not None and second is not None
    assert second.offset == len(first.text)
    whole = first.text + second.text
    assert whole == transcript.render_all(GEMINI, lines)
    assert whole.count("User: step 0") == 1


# -- Codex compressed rollouts ------------------------------------------------------------------------


def rollout_lines(start: int, count: int) -> list[str]:
    return [
        json.dumps(
            {
                "type": "response_item",
                "payload": {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": f"reply {n}"}],
                },
            }
        )
        + "\n"
        for n in range(start, start + count)
    ]


def compress(path: Path, *parts: list[str]) -> None:
    """Each part a zstd frame of its own, as Codex appends to a compressed rollout."""
    with path.open("wb") as handle:
        for part in parts:
            handle.write(zstandard.ZstdCompressor().compress("".join(part).encode()))


def test_a_compressed_rollout_is_read_like_the_plain_one(tmp_path: Path) -> None:
    path = tmp_path / "rollout-2026-11-20T10-00-00-x.jsonl.zst"
    compress(path, rollout_lines(0, 2), rollout_lines(2, 1))
    found = transcript_cursor.next_delta(str(tmp_path / "home"), "x", str(path), CODEX)
    assert found is not None
    assert found.text == "Assistant: reply 0\n\nAssistant: reply 1\n\nAssistant: reply 2\n\n"


def test_a_rollout_compressed_then_written_back_plain_is_one_transcript(tmp_path: Path) -> None:
    # Given a rollout read while plain
    home, plain = str(tmp_path / "home"), tmp_path / "rollout-x.jsonl"
    plain.write_text("".join(rollout_lines(0, 2)))
    first = transcript_cursor.next_delta(home, "x", str(plain), CODEX)
    # When Codex compresses it (the hook names the .zst), then resumes and appends plain again
    compress(Path(f"{plain}.zst"), rollout_lines(0, 2))
    plain.unlink()
    second = transcript_cursor.next_delta(home, "x", f"{plain}.zst", CODEX)
    plain.write_text("".join(rollout_lines(0, 3)))
    Path(f"{plain}.zst").unlink()
    third = transcript_cursor.next_delta(home, "x", str(plain), CODEX)
    # Then nothing is read twice and the new reply follows
    assert first is not None and second is not None and third is not None
    assert second.text == "" and third.offset == len(first.text)
    assert third.text == "Assistant: reply 2\n\n"


def test_without_a_zstd_library_the_reason_is_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "rollout-y.jsonl.zst"
    compress(path, rollout_lines(0, 1))
    real = importlib.import_module  # the one transcript_cursor finds the library with

    def missing(name: str) -> object:
        if name in ("zstandard", "compression.zstd"):
            raise ImportError(name)
        return real(name)

    monkeypatch.setattr(importlib, "import_module", missing)
    with pytest.raises(OSError, match=r"install the zstandard package .*continuity-client\[zstd\]"):
        transcript_cursor.next_delta(str(tmp_path / "home"), "y", str(path), CODEX)


def test_a_background_subagents_notification_is_its_report_not_the_users_words() -> None:
    # Claude Code reports a background sub-agent as a <task-notification> turn (found by the real-CLI stage)
    note = "<task-notification><status>completed</status><result>The quokka fixture seeds the clock.</result>"
    records = [claude_user(note), claude_user([{"type": "text", "text": note}]), claude_user("thanks")]
    text = transcript.render_all(CLAUDE, records)
    assert text == f"Result: {note}\n\nResult: {note}\n\nUser: thanks\n\n"
