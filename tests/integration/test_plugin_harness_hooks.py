"""What the OpenCode and OpenClaw plugins post, through the hook handler on moto: the compaction
prompt gets the recovery block, the end of a turn lands its transcript, and an OpenClaw sub-agent
inherits from the session that asked for it."""

from __future__ import annotations

from tests.integration.conftest import prompt
from tests.support.api import InProcessService
from tests.support.sessions import SessionsApi, Transcript

CWD = "/work/shop"
RECOVERY = "## Session Recovery Context"


def context(answer: dict) -> str:
    return str(answer.get("hookSpecificOutput", {}).get("additionalContext", ""))


def test_opencodes_pre_compaction_answers_the_recovery_block_of_the_checkpoint_it_wrote(
    service: InProcessService,
) -> None:
    # Given an OpenCode session with a few prompts
    for n in range(1, 4):
        service.hook("user-prompt-submit", {**prompt("ses_1", n, CWD), "harness": "opencode"})

    # When its compaction starts (the plugin sends the cap: the compaction prompt takes context)
    status, answer = service.hook(
        "pre-compaction",
        {"session_id": "ses_1", "cwd": CWD, "harness": "opencode", "injection_cap_chars": 3000},
    )

    # Then the checkpoint is written and its recovery block is the answer, within the cap
    assert status == 200
    block = context(answer)
    assert block.startswith(RECOVERY) and "_Recovered from this session: pre-compaction checkpoint" in block
    assert "step 3: refactor the checkpoint writer" in block
    assert len(block) <= 3000
    assert [c["trigger"] for c in service.session_checkpoints("ses_1")] == ["pre_compaction"]


def test_a_pre_compaction_without_a_cap_still_answers_nothing(service: InProcessService) -> None:
    # Claude Code's PreCompact cannot inject: its client sends no cap, and gets {} as before
    service.hook("user-prompt-submit", prompt("s", 1, CWD))

    status, answer = service.hook("pre-compaction", {"session_id": "s", "cwd": CWD, "trigger": "auto"})

    assert (status, answer) == (200, {})


def test_stop_lands_the_turns_transcript_without_counting_a_prompt(service: InProcessService) -> None:
    # Given a session whose last reply the service has not seen
    talk = Transcript("ses_2", cwd=CWD, harness="opencode")
    talk.grow("User: freeze the clock\n\n")
    service.hook("user-prompt-submit", talk.hook_body(prompt="freeze the clock"))
    talk.grow("Assistant: Done: the mock's clock is frozen at noon.\n\n")

    # When the session goes idle (OpenCode's session.idle), and again after each of many short turns
    status, answer = service.hook("stop", talk.hook_body(hook_event_name="session.idle"))
    for _ in range(12):  # more than promptInterval (10): were they prompts, a checkpoint would be due
        service.hook("stop", talk.hook_body(hook_event_name="session.idle"))

    # Then the reply is in the stored transcript, and no stop was a prompt that brings a checkpoint
    assert (status, answer) == (200, {})
    _, stored = SessionsApi().transcript("ses_2")
    assert "frozen at noon" in stored["text"]
    assert service.drain_queue() == 0
    assert service.session_checkpoints("ses_2") == []


def test_an_openclaw_subagent_inherits_from_its_requester_not_from_the_agent_in_its_key(
    service: InProcessService,
) -> None:
    # Given agent "main" working, and a session of agent "coder" that is not the requester
    main = Transcript("agent:main:main", cwd=CWD, harness="openclaw")
    main.grow("User: port the billing job to the new queue\nAssistant: started on billing/queue.py\n")
    service.hook("user-prompt-submit", main.hook_body(prompt="port the billing job"))
    other = Transcript("agent:coder:main", cwd=CWD, harness="openclaw")
    other.grow("User: unrelated work on the docs site\n")
    service.hook("user-prompt-submit", other.hook_body(prompt="docs"))

    # When main spawns a coder sub-agent, and the plugin names main (requesterSessionKey) as its parent
    status, answer = service.hook(
        "session-start",
        {
            "session_id": "agent:coder:subagent:6f1c",
            "cwd": CWD,
            "harness": "openclaw",
            "parent_session_key": "agent:main:main",
        },
    )

    # Then the inherited block is main's
    assert status == 200
    block = context(answer)
    assert "`agent:main:main`" in block and "billing/queue.py" in block
    assert "docs site" not in block
