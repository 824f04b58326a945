"""Claude Code's hook outcomes, queued prompts and rewinds in the client's readable transcript.

Record shapes as Claude Code 2.x writes them:
- a hook's outcome is a ``system`` line without a subtype, its event in ANSI bold:
  ``\\x1b[1mPostToolUse:Edit\\x1b[22m [uv run ruff format] completed successfully: 24 files left
  unchanged`` (a ``Running …`` line comes first; ``stop_hook_summary`` and ``turn_duration`` lines
  carry a subtype);
- a prompt typed while the agent works is a ``queue-operation`` line (``enqueue`` with its content);
  ``dequeue`` means a user line for it follows, ``remove`` that it was handed to the agent mid-turn
  and no user line will say it;
- a rewind: the next typed prompt's ``parentUuid`` is an earlier record, not the latest.
"""

from __future__ import annotations

from typing import Any

from continuity_client.hook import harness, transcript

CLAUDE = harness.CLAUDE_CODE


def user(text: object, uuid: str = "", parent: str = "") -> dict[str, Any]:
    record: dict[str, Any] = {"type": "user", "message": {"role": "user", "content": text}}
    if uuid:
        record.update(uuid=uuid, parentUuid=parent or None)
    return record


def assistant(content: list[dict[str, Any]], uuid: str = "", parent: str = "") -> dict[str, Any]:
    record: dict[str, Any] = {"type": "assistant", "message": {"role": "assistant", "content": content}}
    if uuid:
        record.update(uuid=uuid, parentUuid=parent or None)
    return record


def said(text: str, uuid: str = "", parent: str = "") -> dict[str, Any]:
    return assistant([{"type": "text", "text": text}], uuid, parent)


def hook_line(content: str, **extra: object) -> dict[str, Any]:
    return {"type": "system", "content": content, "isMeta": False, "level": "info", **extra}


def queue(operation: str, content: object = None) -> dict[str, Any]:
    record: dict[str, Any] = {"type": "queue-operation", "operation": operation, "sessionId": "s-1"}
    if content is not None:
        record["content"] = content
    return record


BOLD, PLAIN = "\x1b[1m", "\x1b[22m"


# -- hook outcomes -------------------------------------------------------------------------------------


def test_a_hooks_outcome_becomes_a_hook_block_and_its_result() -> None:
    # Given the formatter hook's outcome after an edit, as Claude Code writes it
    records = [
        hook_line(f"Running {BOLD}PostToolUse:MultiEdit{PLAIN}..."),
        hook_line(
            f"{BOLD}PostToolUse:MultiEdit{PLAIN} [uv run ruff format] completed successfully: "
            "24 files left unchanged"
        ),
    ]

    # When the client renders it
    text = transcript.render_all(CLAUDE, records)

    # Then it is the hook's event and command, then what it printed; the "Running" notice gives nothing
    assert text == (
        "Hook (PostToolUse:MultiEdit): uv run ruff format\n\n"
        "Result: completed successfully: 24 files left unchanged\n\n"
    )


def test_a_failed_hook_keeps_its_status_and_output() -> None:
    # Given a Stop hook that ran the tests and failed
    record = hook_line(
        f"{BOLD}Stop{PLAIN} [make test] failed with non-blocking status code 2: "
        "FAILED tests/test_cart.py::test_total - assert 1 == 2"
    )

    # When the client renders it
    text = transcript.render_all(CLAUDE, [record])

    # Then the failure and the runner's line are its result
    assert text == (
        "Hook (Stop): make test\n\n"
        "Result: failed with non-blocking status code 2: "
        "FAILED tests/test_cart.py::test_total - assert 1 == 2\n\n"
    )


def test_a_hook_that_printed_nothing_is_its_status_alone() -> None:
    record = hook_line(f"{BOLD}PostToolUse:Write{PLAIN} [prettier --write .] completed successfully")
    assert transcript.render_all(CLAUDE, [record]) == (
        "Hook (PostToolUse:Write): prettier --write .\n\nResult: completed successfully\n\n"
    )


def test_system_lines_that_are_no_hooks_outcome_give_nothing() -> None:
    # Given the other system lines: a stop hooks' summary, a turn's duration, a plain notice
    records = [
        hook_line("", subtype="stop_hook_summary", hookCount=1, hookInfos=[{"command": "x"}]),
        hook_line("", subtype="turn_duration", durationMs=2729883),
        hook_line("Conversation resumed [from another device]"),
        hook_line(f"{BOLD}PostToolUse:Edit{PLAIN} [uv run ruff format] completed successfully", isMeta=True),
    ]
    # Then none of them is in the transcript
    assert transcript.render_all(CLAUDE, records) == ""


# -- prompts typed while the agent works ---------------------------------------------------------------

CALL = {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "bd ready"}}
RESULT = user([{"type": "tool_result", "tool_use_id": "t1", "content": "3 issues ready"}])


def test_a_queued_prompt_handed_over_mid_turn_is_a_user_block_before_the_agents_next_message() -> None:
    # Given a prompt typed while a tool ran, enqueued and then removed (handed to the agent mid-turn)
    records = [
        user("work through the epic's ready tasks"),
        assistant([CALL]),
        queue("enqueue", [{"type": "text", "text": "new beads were added, tackle them too"}]),
        queue("remove"),
        RESULT,
        said("Taking the new beads next."),
    ]

    # When the client renders the transcript
    text = transcript.render_all(CLAUDE, records)

    # Then the prompt is the user's, after the tool's result and before the agent's next message
    assert text == (
        "User: work through the epic's ready tasks\n\n"
        "Tool Bash: bd ready\n\n"
        "Result: 3 issues ready\n\n"
        "User: new beads were added, tackle them too\n\n"
        "Assistant: Taking the new beads next.\n\n"
    )


def test_a_queued_prompt_that_was_dequeued_is_said_once_by_its_own_user_line() -> None:
    # Given a prompt enqueued, then dequeued, then written as a user line of its own
    records = [
        user("fix the cart totals"),
        said("Working on it."),
        queue("enqueue", "and update the changelog"),
        queue("dequeue"),
        user("and update the changelog"),
        said("Changelog updated."),
    ]

    # When the client renders the transcript
    text = transcript.render_all(CLAUDE, records)

    # Then the queue's lines add nothing: the prompt is there once, where its user line is
    assert text == (
        "User: fix the cart totals\n\n"
        "Assistant: Working on it.\n\n"
        "User: and update the changelog\n\n"
        "Assistant: Changelog updated.\n\n"
    )


def test_a_queued_prompt_of_injected_context_only_is_not_handed_over() -> None:
    # Given an IDE's note enqueued and removed (no words of the user's in it)
    note = "<ide_opened_file>The user opened the file /x/app.py in the IDE.</ide_opened_file>"
    records = [user("go on"), assistant([CALL]), queue("enqueue", note), queue("remove"), RESULT, said("ok")]
    # Then no user block comes of it
    assert transcript.render_all(CLAUDE, records).count("User:") == 1


# -- rewinds -------------------------------------------------------------------------------------------


def test_a_prompt_whose_parent_is_an_earlier_record_marks_the_abandoned_prompts() -> None:
    # Given two turns, then a prompt rewound to the end of the first turn
    records = [
        user("add a logout button", "u1"),
        said("Added it.", "a1", "u1"),
        user("store sessions in Redis", "u2", "a1"),
        said("Sessions are in Redis.", "a2", "u2"),
        user("make the logout button red", "u3", "a1"),
        said("It is red.", "a3", "u3"),
    ]

    # When the client renders the transcript
    text = transcript.render_all(CLAUDE, records)

    # Then a marker says one prompt and its turn were abandoned, before the new prompt
    marker = "--- rewound: the last 1 prompt(s) and their turns were abandoned ---"
    assert text.count(marker) == 1
    assert (
        text.index("Sessions are in Redis.") < text.index(marker) < text.index("make the logout button red")
    )


def test_prompts_that_follow_one_another_mark_no_rewind() -> None:
    records = [
        user("add a logout button", "u1"),
        said("Added it.", "a1", "u1"),
        user("make it red", "u2", "a1"),
        said("It is red.", "a2", "u2"),
    ]
    assert "rewound" not in transcript.render_all(CLAUDE, records)
