"""Hooks the harness needs no answer to are delivered in the background: the hook exits first.

The hook process, as the harness runs it: its record goes to the spool (write + fsync), a detached
``continuity hook --deliver`` sends it, and the hook exits without waiting for the network. What a
user would notice if this broke: a prompt waiting on the service, a prompt lost, prompts stored out
of order, or the compaction nudge never shown.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from continuity_client.hook import spool
from tests.client.client_support import SLACK_S, eventually, log_text, plain, run_hook_cli, spooled
from tests.client.fake_continuity_service import FakeService

CONTEXT = {"hookSpecificOutput": {"additionalContext": "Continuity: call session_digest now"}}


def prompt(session: str, text: str, transcript: Path | None = None) -> dict:
    payload = {"session_id": session, "cwd": "/tmp", "prompt": text}
    return payload | ({"transcript_path": str(transcript)} if transcript else {})


def delivered(service: FakeService, session: str) -> list[str]:
    """The session's prompts the service took, in the order it first saw them."""
    return [r.body["prompt"] for r in service.effects if r.body.get("session_id") == session]


def test_a_prompt_hook_exits_before_the_service_answers_and_the_prompt_lands(
    service: FakeService, client_env: dict[str, str], home: Path
) -> None:
    # Given a service that takes 3 s to answer
    service.delay = 3.0
    env = {**client_env, "CONTINUITY_HOOK_TIMEOUT_S": "8"}

    # When the harness runs a prompt's hook
    started = time.monotonic()
    result = run_hook_cli(["user-prompt-submit"], prompt("bg-1", "make refunds exact"), env)
    elapsed = time.monotonic() - started

    # Then the hook exited, silent, before the service answered
    assert (result.code, result.stdout, result.stderr) == (0, "", "")
    assert elapsed < service.delay
    # And the prompt landed, and once answered it left the spool
    assert eventually(lambda: delivered(service, "bg-1")) == ["make refunds exact"]
    assert eventually(lambda: not spooled(home))
    assert [plain(r.key) for r in service.requests] == ["bg-1:user-prompt-submit:1"]
    assert "X-Continuity-Replay" not in service.requests[0].headers  # a live post, not a replay


def test_with_the_service_down_prompts_wait_in_the_spool_and_land_in_order_when_it_is_back(
    service: FakeService, client_env: dict[str, str], home: Path
) -> None:
    # Given a stopped service
    service.stop()

    # When three prompts are typed
    for n in (1, 2, 3):
        assert run_hook_cli(["user-prompt-submit"], prompt("bg-2", f"step {n}"), client_env).code == 0

    # Then each waits in the spool, in order, none lost (each delivery found nobody listening)
    assert [r["body"]["prompt"] for r in spooled(home)] == ["step 1", "step 2", "step 3"]
    assert eventually(lambda: log_text(home).count("left in the spool") >= 3)

    # When the service is back and the next prompt comes
    service.restart()
    assert run_hook_cli(["user-prompt-submit"], prompt("bg-2", "step 4"), client_env).code == 0

    # Then the service gets all four, in the order they were typed, and the spool is empty
    assert eventually(lambda: len(delivered(service, "bg-2")) == 4)
    assert delivered(service, "bg-2") == ["step 1", "step 2", "step 3", "step 4"]
    assert eventually(lambda: not spooled(home))


def test_prompts_faster_than_the_service_still_land_in_the_order_typed(
    service: FakeService, client_env: dict[str, str], home: Path
) -> None:
    # Given a service slower than the user types (each answer takes 0.4 s)
    service.delay = 0.4
    env = {**client_env, "CONTINUITY_HOOK_TIMEOUT_S": "10"}

    # When five prompts come one after another, each hook exiting before its delivery ends
    for n in range(1, 6):
        assert run_hook_cli(["user-prompt-submit"], prompt("bg-3", f"step {n}"), env).code == 0

    # Then the service saw them in the order typed, each once
    assert eventually(lambda: len(delivered(service, "bg-3")) == 5, timeout_s=30)
    assert delivered(service, "bg-3") == [f"step {n}" for n in range(1, 6)]
    assert eventually(lambda: not spooled(home))


def test_a_session_start_waits_for_the_background_delivery_of_the_session_before_it(
    service: FakeService, client_env: dict[str, str], home: Path
) -> None:
    # Given a slow service and a prompt whose delivery is still under way
    service.delay = 1.0
    env = {**client_env, "CONTINUITY_HOOK_TIMEOUT_S": "8"}
    assert run_hook_cli(["user-prompt-submit"], prompt("bg-4", "before the compaction"), env).code == 0

    # When the session starts again (after a compaction) right away
    start = {"session_id": "bg-4", "cwd": "/tmp", "source": "compact"}
    assert run_hook_cli(["session-start"], start, env).code == 0

    # Then the service took the prompt before the session start
    events = [r.event for r in service.effects]
    assert events == ["user-prompt-submit", "session-start"]


def write_usage(transcript: Path, tokens: int) -> None:
    """A Claude Code transcript whose last answer's request counted ``tokens`` of context."""
    lines = [
        {"type": "user", "sessionId": "s", "message": {"role": "user", "content": "go"}},
        {
            "type": "assistant",
            "sessionId": "s",
            "message": {
                "role": "assistant",
                "content": [{"type": "text", "text": "done"}],
                "usage": {"input_tokens": tokens},
            },
        },
    ]
    transcript.write_text("".join(json.dumps(line) + "\n" for line in lines))


def test_a_prompt_whose_context_may_be_nudged_waits_and_shows_the_nudge(
    service: FakeService, client_env: dict[str, str], tmp_path: Path
) -> None:
    # Given a session whose context is past the client's sync figure (100,000 tokens), and a service
    # that answers the prompt with the compaction nudge
    transcript = tmp_path / "s.jsonl"
    write_usage(transcript, 140_000)
    service.answers["user-prompt-submit"] = CONTEXT

    # When a prompt's hook runs
    result = run_hook_cli(["user-prompt-submit"], prompt("bg-5", "go on", transcript), client_env)

    # Then it waited for the answer and the harness got the nudge
    assert result.output == {
        "hookSpecificOutput": {
            "hookEventName": "UserPromptSubmit",
            "additionalContext": CONTEXT["hookSpecificOutput"]["additionalContext"],
        }
    }

    # And once nudged, the session's next prompt does not wait (the service nudges once a crossing)
    service.delay = 3.0
    started = time.monotonic()
    assert run_hook_cli(["user-prompt-submit"], prompt("bg-5", "next", transcript), client_env).code == 0
    assert time.monotonic() - started < service.delay


def test_with_a_smaller_window_the_prompt_that_crosses_the_services_nudge_point_shows_the_nudge(
    service: FakeService, client_env: dict[str, str], tmp_path: Path, home: Path
) -> None:
    # Given a service whose nudge point is 20,000 tokens (a small contextWindowTokens), told in its
    # answers, and a first prompt that taught the client
    service.nudge_tokens = 20_000
    assert run_hook_cli(["user-prompt-submit"], prompt("bg-7", "start"), client_env).code == 0
    assert eventually(lambda: (home / "context" / "nudge-tokens").exists())
    # When a prompt's context is past that point (far below the client's default of 100,000) and
    # the service answers it with the nudge
    transcript = tmp_path / "s.jsonl"
    write_usage(transcript, 21_000)
    service.answers["user-prompt-submit"] = CONTEXT
    result = run_hook_cli(["user-prompt-submit"], prompt("bg-7", "go on", transcript), client_env)
    # Then that prompt waited and the agent got the nudge with it, not one prompt late
    assert result.output is not None
    assert result.output["hookSpecificOutput"]["additionalContext"] == "Continuity: call session_digest now"


def test_context_answered_after_the_prompt_went_on_is_shown_with_the_next_prompt(
    service: FakeService, client_env: dict[str, str], home: Path
) -> None:
    # Given a service that answers a prompt with context the client did not expect (a deployment
    # that nudges earlier than the client's figure)
    service.answers["user-prompt-submit"] = CONTEXT

    # When a prompt is delivered in the background
    first = run_hook_cli(["user-prompt-submit"], prompt("bg-6", "first"), client_env)
    assert first.stdout == ""
    assert eventually(lambda: not spooled(home) and (home / "context").exists())

    # Then the next prompt shows it at once
    service.answers.clear()
    second = run_hook_cli(["user-prompt-submit"], prompt("bg-6", "second"), client_env)
    assert second.output is not None
    assert second.output["hookSpecificOutput"]["additionalContext"] == "Continuity: call session_digest now"
    # And only once
    third = run_hook_cli(["user-prompt-submit"], prompt("bg-6", "third"), client_env)
    assert third.stdout == ""


def test_with_background_delivery_off_a_prompt_waits_for_the_service(
    service: FakeService, client_env: dict[str, str]
) -> None:
    # Given background delivery turned off, and a slow service
    service.delay = 1.0
    env = {**client_env, "CONTINUITY_BACKGROUND": "0", "CONTINUITY_HOOK_TIMEOUT_S": "8"}

    # When a prompt's hook runs
    started = time.monotonic()
    assert run_hook_cli(["user-prompt-submit"], prompt("bg-7", "wait"), env).code == 0

    # Then it returned only once the service had answered
    assert service.delay <= time.monotonic() - started < service.delay + SLACK_S
    assert delivered(service, "bg-7") == ["wait"]


def test_a_replay_waits_while_another_delivery_holds_the_session(tmp_path: Path) -> None:
    # Given a session's spool whose delivery lock someone holds
    home = str(tmp_path)
    spool.append(home, "s", {"event": "stop", "key": "s:stop:1", "at": 1.0, "body": {}}, 1 << 20)
    path = spool.spool_file(home, "s")
    held = spool.claim(path, time.monotonic())
    assert held >= 0
    sent: list[str] = []

    def send(record: dict) -> str:
        sent.append(record["key"])
        return spool.SENT

    # When someone else replays it
    try:
        status, _ = spool.replay([path], time.monotonic() + 0.1, send)
    finally:
        spool.release(held)

    # Then nothing was sent around the holder, and once it lets go the replay goes through
    assert (status, sent) == (spool.BUDGET, [])
    assert spool.replay([path], time.monotonic() + 1, send) == (spool.DRAINED, 1)
    assert sent == ["s:stop:1"]
