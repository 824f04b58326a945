"""Injected context is never the user's words: the service's rules (hooks/injected_context.py), the digest's
reading of the transcript, and the markers the client keeps for the same rule."""

from __future__ import annotations

from datetime import UTC, datetime

from continuity_client.hook import harness as client_harness
from continuity_core.checkpoints.rolling_inputs import digest_inputs
from continuity_core.extraction.sticky import Role
from continuity_core.hooks.events.user_prompt import NUDGE_TEXT
from continuity_core.hooks.injected_context import (
    OWN_BLOCK_STARTS,
    WRAPPED_CONTEXT_TAGS,
    is_injected,
    strip_injected,
)
from continuity_core.hooks.normalize import normalize_hook
from continuity_core.kernel.names import SUBAGENT_KEY_PART
from continuity_core.models.hooks import HookEvent, HookRequest
from continuity_core.models.session_digest import FactSource
from continuity_core.models.state import SessionState
from continuity_core.recovery.inherit import INHERIT_HEADING
from continuity_core.recovery.recovery import LEDGER_HEADING, RECOVERY_HEADING

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


def test_our_own_sections_are_all_recognised_as_injected() -> None:
    # The starts the rule looks for are the ones the service really writes
    written = [RECOVERY_HEADING, INHERIT_HEADING, LEDGER_HEADING, NUDGE_TEXT.format(percent=91)]
    assert all(is_injected(f"{start}\nsome body") for start in written)
    assert all(any(start.startswith(marker) for marker in OWN_BLOCK_STARTS) for start in written)


def test_the_client_strips_the_same_markers_and_forms_the_same_subagent_keys() -> None:
    # The client cannot import the service: it keeps its own copy of these two agreements
    assert set(OWN_BLOCK_STARTS) <= set(client_harness.INJECTED_PREFIXES)
    assert client_harness.WRAPPED_CONTEXT_TAGS == WRAPPED_CONTEXT_TAGS
    assert client_harness.SUBAGENT_KEY_PART == SUBAGENT_KEY_PART


def test_the_health_marks_and_the_compaction_count_know_the_clients_harnesses() -> None:
    from continuity_core.admin.ratelimit import KNOWN_HARNESSES
    from continuity_core.hooks.events.pre_compaction import PROMPT_REPORTS_COMPACTION

    # The client's own names: a harness it installs into is never marked "other" on the health page
    assert set(client_harness.HARNESSES) == KNOWN_HARNESSES
    # and the harness whose compactions show on the next prompt is the one the client recovers there
    assert set(client_harness.RECOVER_AT_PROMPT) == PROMPT_REPORTS_COMPACTION


def test_a_gemini_hook_context_prefix_is_removed_and_the_prompt_kept() -> None:
    # Gemini CLI headless: the session start's context prefixed to the prompt (docs/hooks/reference.md)
    text = f"<hook_context>{RECOVERY_HEADING}\n_Recovered from …_</hook_context>\nfix the date parser"
    assert strip_injected(text) == "fix the date parser"


# As Claude Code in VS Code writes them into the user's message (the corpus's JSSoundRecorder session)
IDE_SELECTION = (
    "<ide_selection>The user selected the lines 98 to 98 from /Users/dain/workspace/JSSoundRecorder/"
    "CLAUDE.md:\nAudioWor\n\nThis may or may not be related to the current task.</ide_selection>"
)
IDE_OPENED = (
    "<ide_opened_file>The user opened the file /Users/dain/workspace/JSSoundRecorder/index.html in the "
    "IDE. This may or may not be related to the current task.</ide_opened_file>"
)


def test_an_ides_notes_in_the_users_turn_are_not_the_users_words() -> None:
    # What the IDE says the user selected or opened is context, not something the user said
    assert strip_injected(f"{IDE_SELECTION}\nLet's also migrate to AudioWorklet") == (
        "Let's also migrate to AudioWorklet"
    )
    assert strip_injected(IDE_OPENED) == ""
    assert is_injected(IDE_SELECTION)
    reminder = "fix the recorder\n<system-reminder>The TodoWrite tool hasn't been used</system-reminder>"
    assert strip_injected(reminder) == "fix the recorder"
    # the client removes them before it sends the prompt or the transcript
    assert client_harness.users_words(f"{IDE_OPENED}\nfix the recorder") == "fix the recorder"
    assert client_harness.users_words(IDE_SELECTION) == ""


def test_a_message_that_is_only_injected_context_leaves_nothing() -> None:
    assert strip_injected(f"<hook_context>{INHERIT_HEADING}\n…</hook_context>") == ""
    assert strip_injected(f"\n{RECOVERY_HEADING}\n_Recovered…_") == ""
    assert strip_injected("<hook_context>an unclosed block to the end") == ""


def test_the_users_own_words_pass_unchanged() -> None:
    text = "Please write a ## Session Recovery Context section in the README"
    assert strip_injected(text) == text
    assert strip_injected(None) is None


def test_a_hook_prompt_loses_its_injected_context_before_anything_stores_it() -> None:
    request = HookRequest.model_validate(
        {"session_id": "g-1", "prompt": f"<hook_context>{RECOVERY_HEADING}\nx</hook_context>\nship it"}
    )
    assert normalize_hook(HookEvent.USER_PROMPT_SUBMIT, request).prompt == "ship it"


def _state() -> SessionState:
    return SessionState(session_key="s", harness="gemini", started_at=NOW, last_activity_at=NOW)


def test_the_digest_reads_no_injected_user_block_and_reads_the_users_words_around_one() -> None:
    transcript = (
        f"User: {RECOVERY_HEADING}\n_Recovered from the periodic checkpoint_\n- use Redis\n\n"
        f"User: <hook_context>{LEDGER_HEADING}\n- x</hook_context>\nwe must keep the API stable\n\n"
    )
    statements = digest_inputs(_state(), transcript, [], NOW).statements
    said = [s.text for s in statements if s.role is Role.USER]
    assert said == ["we must keep the API stable"]


def test_a_subagents_report_is_read_as_the_agents_own_findings() -> None:
    # Claude Code's Task (now Agent) tool: its result is the sub-agent's final report
    transcript = (
        "Tool Agent: Find the flaky fixture\n\n"
        "Result: It turns out the quokka fixture seeds the clock from time.time().\n\n"
        "Tool TaskCreate: write tests\n\nResult: created task 3\n\n"
    )
    statements = digest_inputs(_state(), transcript, [], NOW).statements
    agent = [s.text for s in statements if s.source is FactSource.AGENT and not s.tool and s.command is None]
    assert agent == ["It turns out the quokka fixture seeds the clock from time.time()."]
    # and an ordinary tool's result is read for its verdicts, with the command that made it
    results = [(s.command, s.text) for s in statements if s.command is not None]
    assert results == [("Tool TaskCreate: write tests", "created task 3")]


def test_a_harness_notice_sent_as_a_prompt_is_not_the_users() -> None:
    # Claude Code sends a background sub-agent's <task-notification> through UserPromptSubmit
    assert strip_injected("<task-notification><status>completed</status></task-notification>") == ""
