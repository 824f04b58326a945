"""The harnesses' current hook surfaces end to end in-process (hooks → DynamoDB/S3 on moto → hooks).

Payload shapes, by the harness's own definition:
- Claude Code: the hooks reference (code.claude.com/docs/en/hooks) and the Agent SDK's types
  (``PostCompactHookInput``: ``trigger``, ``compact_summary``; ``SessionStartHookInput.source`` with
  ``fork``; ``SubagentStopHookInput``: ``agent_id``, ``agent_type``, ``agent_transcript_path``,
  ``last_assistant_message``).
- Codex: codex-rs/hooks/schema/generated/{subagent-start,subagent-stop,post-compact,stop}.command.input
  .schema.json (``session_id`` is the root session's, shared with its sub-agents: openai/codex#22268).
- Gemini CLI: docs/hooks/reference.md (BeforeAgent ``prompt``; SessionStart ``source`` without
  ``compact``), and its ``<hook_context>`` wrapper (packages/cli AppContainer: hook context added
  to the history as a user turn).
The bodies are what the client posts for them (its own fields: ``harness``, ``transcript``,
``compacted``, the sub-agent's own key).
"""

from __future__ import annotations

import json

from tests.support.api import InProcessService
from tests.support.sessions import SessionsApi, Transcript

CWD = "/work/shop"
RECOVERY = "## Session Recovery Context"


def context(answer: dict) -> str:
    return str(answer["hookSpecificOutput"]["additionalContext"])


def prompt(service: InProcessService, transcript: Transcript, text: str, **extra: object) -> dict:
    transcript.grow(f"User: {text}\n\n")
    status, answer = service.hook("user-prompt-submit", transcript.hook_body(prompt=text, **extra))
    assert status == 200, answer
    return answer


def test_claude_code_post_compact_summary_reaches_the_recovery_block(service: InProcessService) -> None:
    # Given a session with a few prompts, then Claude Code's PostCompact with its summary
    session = Transcript("cc-1", cwd=CWD)
    prompt(service, session, "make the payment mock deterministic")
    summary = "We decided to use Decimal for all amounts instead of floats. Next: fix test_refund."
    status, _ = service.hook(
        "post-compaction",
        {
            "session_id": "cc-1",
            "cwd": CWD,
            "hook_event_name": "PostCompact",
            "trigger": "auto",
            "compact_summary": summary,
        },
    )
    assert status == 200
    # When the session starts again after the compaction
    status, answer = service.hook("session-start", {"session_id": "cc-1", "cwd": CWD, "source": "compact"})
    # Then the checkpoint written after the compaction carries the summary's decision, and the block
    # beside that summary is the compaction-loss check: it does not say the decision again
    assert status == 200
    block = context(answer)
    assert block.startswith(RECOVERY) and "_Recovered from this session: post-compaction checkpoint" in block
    assert "_Compaction-loss check: the harness's summary (prompt 1) already holds" in block
    assert "Decimal for all amounts" not in block
    facts = service.session_checkpoints("cc-1")[-1]["session_digest"]["facts"]
    assert any("Decimal for all amounts" in f["text"] and f["in_summary"] for f in facts)


def test_a_subagent_stop_stores_the_subagents_transcript_for_search(service: InProcessService) -> None:
    # Given a parent session, and the client's SubagentStop under the sub-agent's own key with the
    # sub-agent's transcript (read from agent_transcript_path)
    parent = Transcript("cc-3", cwd=CWD)
    prompt(service, parent, "find why the refund test flakes")
    report = "The flake comes from the quokka fixture: it seeds the clock from time.time()."
    sub = Transcript("cc-3:subagent:a1b2", cwd=CWD)
    sub.grow(f"User: Investigate test_refund\n\nTool Grep: quokka\n\nAssistant: {report}\n\n")
    status, answer = service.hook(
        "subagent-stop",
        sub.hook_body(
            hook_event_name="SubagentStop",
            agent_id="a1b2",
            agent_type="Explore",
            parent_session_key="cc-3",
            last_assistant_message=report,
            stop_hook_active=False,
        ),
    )
    assert (status, answer) == (200, {})  # SubagentStop injects nothing
    # Then the sub-agent's words are stored and found by search in the project
    api = SessionsApi()
    status, page = api.transcript("cc-3:subagent:a1b2")
    assert status == 200 and "quokka fixture" in json.dumps(page)
    status, found = api.search(query="quokka", project=CWD)
    assert status == 200
    assert any(hit["session_key"] == "cc-3:subagent:a1b2" for hit in found["results"])


def test_a_codex_subagent_start_answers_the_inherited_block_within_the_cap(service: InProcessService) -> None:
    # Given a Codex root session with a transcript
    root = Transcript("codex-root", cwd=CWD, harness="codex")
    prompt(service, root, "port the billing job to the new queue " + "and keep the retries " * 200)
    # When Codex's SubagentStart arrives: the root's session_id, the child's thread id as agent_id
    status, answer = service.hook(
        "subagent-start",
        {
            "session_id": "codex-root",
            "turn_id": "t-1",
            "cwd": CWD,
            "harness": "codex",
            "hook_event_name": "SubagentStart",
            "model": "gpt-5-codex",
            "permission_mode": "default",
            "transcript_path": None,
            "agent_id": "0199-child",
            "agent_type": "default",
            "injection_cap_chars": 7500,
        },
    )
    # Then the child's first request gets its parent's context, inside Codex's cap
    assert status == 200
    assert set(answer["hookSpecificOutput"]) == {"hookEventName", "additionalContext"}
    block = context(answer)
    assert "## Inherited from Parent Session" in block and "Codex session id" in block
    assert len(block) <= 7500


def test_a_one_turn_codex_exec_session_gets_its_transcript_from_stop(service: InProcessService) -> None:
    # Given a one-turn `codex exec`: its prompt hook read a rollout with nothing in it yet
    turn = Transcript("codex-exec-1", cwd=CWD, harness="codex")
    status, _ = service.hook(
        "user-prompt-submit", {**turn.hook_body(prompt="summarise README"), "transcript": None}
    )
    assert status == 200
    # When Codex's Stop carries the turn
    turn.grow("User: summarise README\n\nAssistant: It describes a serverless service.\n\n")
    status, answer = service.hook(
        "stop",
        turn.hook_body(
            hook_event_name="Stop",
            stop_hook_active=False,
            last_assistant_message="It describes a serverless service.",
        ),
    )
    # Then the final prompt and reply are stored, and Stop prints nothing
    assert (status, answer) == (200, {})
    status, page = SessionsApi().transcript("codex-exec-1")
    assert status == 200 and "It describes a serverless service." in json.dumps(page)


def test_gemini_recovers_at_the_prompt_after_a_compression(service: InProcessService) -> None:
    # Given a Gemini CLI session with a rule said early on
    session = Transcript("gem-1", cwd=CWD, harness="gemini")
    prompt(service, session, "we must keep the public API unchanged")
    prompt(service, session, "now refactor the parser")
    # When the next BeforeAgent's transcript shows the compression (the client says `compacted`)
    session.grow(
        "--- context compacted ---\n\n[Compact summary] <state_snapshot>parser refactor</state_snapshot>\n\n"
    )
    answer = prompt(service, session, "continue", compacted=True)
    # Then a checkpoint is written and this prompt's answer carries the session's recovery block
    block = context(answer)
    assert block.startswith(RECOVERY) and "_Recovered from this session: post-compaction checkpoint" in block
    assert "- we must keep the public API unchanged (prompt 1)" in block
    assert [c["trigger"] for c in service.session_checkpoints("gem-1")][-1] == "post_compaction"


def test_injected_context_is_never_stored_as_the_users_prompt(service: InProcessService) -> None:
    # Given Gemini CLI headless: the session start's context prefixed to the prompt as <hook_context>
    injected = f"<hook_context>{RECOVERY}\n_Recovered from the periodic checkpoint_</hook_context>"
    status, _ = service.hook(
        "user-prompt-submit",
        {
            "session_id": "gem-2",
            "cwd": CWD,
            "harness": "gemini",
            "prompt": f"{injected}\nfix the date parser",
        },
    )
    assert status == 200
    # And a harness that hands our block back as a user message of its own
    service.hook(
        "user-prompt-submit",
        {"session_id": "gem-2", "cwd": CWD, "harness": "gemini", "prompt": f"{RECOVERY}\nold story"},
    )
    # When the session's checkpoint is written
    service.hook("session-end", {"session_id": "gem-2", "cwd": CWD, "harness": "gemini", "reason": "exit"})
    # Then the user's words are kept and the injected block is nowhere in it
    stored = json.dumps(service.session_checkpoints("gem-2"))
    assert "fix the date parser" in stored
    assert "Session Recovery Context" not in stored and "old story" not in stored
