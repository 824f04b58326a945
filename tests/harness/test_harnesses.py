"""The real harness CLIs with our hooks (or plugin) and MCP server, against a scripted model and the
local stack: Claude Code, Codex, Gemini CLI, OpenCode and OpenClaw.

One scripted session per CLI (the module fixture ``work``), then one test per behaviour a user
relies on, each read from outside: what reached the service, what the CLI sent to the model. The
shared tests run for every CLI that can show the behaviour headless (tests/harness/harnesses.py
holds how each differs); what only one CLI does is tested under its own heading below.

What cannot be shown headless, and why: Codex and Gemini CLI have no ``/clear`` headless
(``codex exec`` takes no slash commands); Gemini CLI has no sub-agent hook event; OpenClaw's
``/compact``, ``/new`` and sub-agent spawns are Gateway commands, proven by the plugin's node tests
against OpenClaw's event shapes (tests/plugins), and its plugin sends no live transcript.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.local_stack import Api, LocalStackProcess
from tests.harness import clis
from tests.harness.gemini import Gemini
from tests.harness.harnesses import HARNESSES, Harness, Run, claude_code
from tests.harness.machine import Machine, assert_finished_promptly
from tests.harness.mock_model import Exchange, MockModel, Reply
from tests.harness.script import CONSTRAINT, DIGEST_SAVED, INHERITED, KEPT, MCP_TOOLS, RECOVERY
from tests.harness.service import checkpoint, rendered, stored_transcript, triggers

pytestmark = [pytest.mark.harness, pytest.mark.e2e]


def harnesses(*names: str) -> Any:
    """Run the test for these CLIs (each one's ``work`` session is shared by its tests)."""
    return pytest.mark.parametrize("harness", names or list(HARNESSES), indirect=True)


@pytest.fixture(scope="module")
def harness(request: pytest.FixtureRequest) -> Harness:
    return HARNESSES[request.param]


@pytest.fixture(scope="module")
def binary(harness: Harness) -> Path:
    return clis.ensure(harness.cli)


@pytest.fixture(scope="module")
def work(
    harness: Harness, binary: Path, local_stack: LocalStackProcess, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Run]:
    base = tmp_path_factory.mktemp(harness.name)
    with harness.drive(binary, base, local_stack.url, local_stack.token, harness.work) as done:
        done.machine.wait_delivered()
        yield done


# ---- the hooks reach the service -------------------------------------------------------------


@harnesses()
def test_every_turn_runs_to_its_end(harness: Harness, work: Run) -> None:
    assert work.exit_codes == [0] * harness.turns, work.stderr
    if harness.sessions is not None:
        assert len(work.sessions) == harness.sessions, work.sessions


@harnesses("claude-code", "codex", "gemini", "opencode")
def test_the_hooks_reach_the_service(harness: Harness, work: Run, api: Api) -> None:
    assert harness.hooks_reach <= set(triggers(api, work.session))
    # the last session the CLI worked in (Claude Code's after /clear) is known to the service
    assert stored_transcript(api, work.sessions[-1])


@harnesses("claude-code", "codex", "gemini")
def test_the_stored_transcript_is_the_cli_own_record_as_the_client_renders_it(
    harness: Harness, work: Run, api: Api
) -> None:
    assert harness.own_transcript is not None
    for session in work.sessions:
        assert stored_transcript(api, session) == harness.own_transcript(work, session)


# ---- recovery reaches the model ---------------------------------------------------------------


@harnesses("claude-code", "codex", "opencode")
def test_after_a_compaction_the_next_request_carries_the_recovery_block(harness: Harness, work: Run) -> None:
    # Given a new session (nothing to recover) that compacted
    assert not work.request(harness.first_request).contains(RECOVERY)
    assert harness.compacted is not None

    after = harness.compacted(work)
    assert after.contains(RECOVERY)
    assert after.contains(KEPT)


@harnesses("claude-code", "codex", "opencode")
def test_a_subagent_first_request_carries_the_inherited_block(work: Run) -> None:
    first = work.request("SUBAGENT_TASK")

    assert first.contains(INHERITED)
    assert first.contains(KEPT)


# ---- the MCP server --------------------------------------------------------------------------


@harnesses("claude-code", "codex", "gemini", "opencode")
def test_the_mcp_tools_are_advertised_to_the_model(harness: Harness, work: Run) -> None:
    first = work.request(harness.first_request)
    names = {harness.mcp_tool.format(tool) for tool in MCP_TOOLS}

    if harness.deferred_tools:  # Claude Code names deferred tools in text, loaded on demand
        assert all(first.contains(name) for name in names)
    else:
        assert names <= set(first.tools)


@harnesses("claude-code", "codex", "gemini", "opencode")
def test_a_session_digest_call_by_the_model_lands_as_the_agent_checkpoint(work: Run, api: Api) -> None:
    saved = checkpoint(api, work.session, "agent")

    assert saved is not None and DIGEST_SAVED in saved["digest"]


# ---- a service that is away -----------------------------------------------------------------


@harnesses("codex", "gemini", "opencode", "openclaw")
def test_with_the_service_stopped_the_cli_still_finishes_promptly(
    harness: Harness, binary: Path, tmp_path: Path, stopped_service: str
) -> None:
    # Given the client logged in to a service that is not running, when a session runs
    with harness.drive(binary, tmp_path, stopped_service, "some-token", harness.away) as finished:
        pass

    # Then every turn ended normally and soon, and the hooks wait in the spool for the service
    assert_finished_promptly(
        finished.machine, finished.turns, harness.away_limit_s, set(harness.away_spooled)
    )


# ---- Claude Code: /clear, an auto-compaction, a hung service -----------------------------------


@harnesses("claude-code")
def test_before_any_compaction_no_request_carries_a_recovery_block(work: Run) -> None:
    # A control for the recovery tests: a fresh project has nothing to recover.
    for marker in ("We must never edit", "CALL_DIGEST", "CALL_AGENT"):
        assert not work.request(marker).contains(RECOVERY)


@harnesses("claude-code")
def test_after_clear_the_next_prompt_reaches_the_model_with_the_recovery_block(work: Run) -> None:
    request = work.request("AFTER_CLEAR")

    assert request.contains(RECOVERY)
    assert request.contains(KEPT)


@harnesses("claude-code")
def test_after_an_auto_compaction_the_next_prompt_carries_the_recovery_block(
    binary: Path, local_stack: LocalStackProcess, tmp_path_factory: pytest.TempPathFactory
) -> None:
    # Given a session whose model reported 195k input tokens of a 200k window
    prompts = [CONSTRAINT, "GROW: read every reader.", "AFTER_AUTO: go on."]
    base = tmp_path_factory.mktemp("claude-auto")
    window = {"CLAUDE_CODE_AUTO_COMPACT_WINDOW": "200000"}
    with claude_code(binary, base, local_stack.url, local_stack.token, prompts, **window) as auto:
        auto.machine.wait_delivered()
    compactions = [e for e in auto.cli.events if e.get("subtype") == "compact_boundary"]
    assert [c["compact_metadata"]["trigger"] for c in compactions] == ["auto"]

    # Then the prompt after the compaction reaches the model with the recovery block
    assert not auto.request("GROW").contains(RECOVERY)
    assert auto.request("AFTER_AUTO").contains(RECOVERY)


@harnesses("claude-code")
@pytest.mark.parametrize("away", ["stopped_service", "silent_service"])
def test_with_the_service_away_claude_code_still_finishes_promptly(
    binary: Path, tmp_path: Path, away: str, request: pytest.FixtureRequest
) -> None:
    # Given the client logged in to a service that is stopped (refuses) or hung (never answers)
    url = request.getfixturevalue(away)
    prompts = [CONSTRAINT, "CALL_DIGEST: save where we are.", "/compact", "AFTER_COMPACT: go on."]

    # When a session with a compaction runs
    with claude_code(binary, tmp_path, url, "some-token", prompts) as finished:
        pass

    # Then every turn was answered and the CLI exited at once, each hook within its own deadline
    assert finished.exit_codes == [0]
    assert finished.cli.events[-1].get("subtype") == "success"
    # (bounds that catch a hang, not a speed: a turn with an MCP call to a hung service took 8-14 s
    # on the shared 2-core machine; speed is the bench's business)
    assert max(finished.turn_seconds.values()) < 20, finished.turn_seconds
    assert finished.seconds < 60, finished.turn_seconds
    # And nothing was lost quietly: the hooks wait in the spool for the service
    spooled = {record["event"] for record in finished.machine.spooled()}
    assert {"session-start", "user-prompt-submit", "pre-compaction"} <= spooled


# ---- Gemini CLI: a resumed session, the injected block, a real compression ----------------------


@harnesses("gemini")
def test_a_resumed_gemini_session_reaches_the_model_with_the_recovery_block(work: Run) -> None:
    assert not work.request("We must never edit").contains(RECOVERY)
    assert work.request("AFTER").contains(RECOVERY)


@harnesses("gemini")
def test_gemini_turns_without_a_compression_write_no_pre_compaction_checkpoint(work: Run, api: Api) -> None:
    assert "pre_compaction" not in triggers(api, work.session)


@harnesses("gemini")
def test_the_injected_block_is_never_stored_as_the_user_words(work: Run, api: Api) -> None:
    # Given the resumed turns carried the recovery block inside the user's turn
    assert work.request("AFTER").contains("<hook_context>")

    # Then neither the stored transcript nor a checkpoint's prompts hold it
    assert RECOVERY not in (stored_transcript(api, work.session) or "")
    for saved in api.session_checkpoints(work.session):
        assert "hook_context" not in saved["digest"]


# Gemini CLI compresses before a model request when the last one reported a prompt of at least
# half the model's window (chatCompressionService.ts: DEFAULT_COMPRESSION_TOKEN_THRESHOLD x
# tokenLimit; 1,048,576 tokens for gemini-2.5-flash). The scripted model reports that on a tool
# call, so the CLI compresses before it sends the tool's result, in the same headless turn, and
# asks the model for a <state_snapshot> twice (the summary, then its verification).
WINDOW_FILLED = 1_000_000
SNAPSHOT = (
    "<state_snapshot>\n<overall_goal>zstd support in the rollout reader</overall_goal>\n</state_snapshot>"
)


def asks_for_snapshot(exchange: Exchange) -> bool:
    return "<state_snapshot>" in exchange.user_text


@pytest.fixture(scope="module")
def compressed(
    binary: Path, local_stack: LocalStackProcess, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Run]:
    """A Gemini session whose second turn fills the window and is compressed; the third resumes it."""
    machine = Machine(tmp_path_factory.mktemp("gemini-compress"))
    machine.login(local_stack.url, local_stack.token)
    with MockModel() as model:
        model.on("FILL", Reply.tool("mcp_continuity_recover", {"level": 1}, input_tokens=WINDOW_FILLED))
        model.on(asks_for_snapshot, Reply(SNAPSHOT), times=None)
        gemini = Gemini(binary, machine, model.url)
        machine.install("gemini")
        for index, prompt in enumerate([CONSTRAINT, "FILL: read every reader.", "NEXT: where were we?"]):
            gemini.prompt(prompt, resume=index > 0)
        machine.wait_delivered()
        session = gemini.turns[0].first("session_id")
        yield Run(machine, model, gemini, [session], [t.exit_code for t in gemini.turns], "", gemini.turns)


@harnesses("gemini")
def test_a_real_compression_asks_the_model_for_the_snapshot(compressed: Run) -> None:
    assert compressed.exit_codes == [0, 0, 0], compressed.turns[-1].stderr
    assert [e.reply for e in compressed.model.requests() if asks_for_snapshot(e)] == [Reply(SNAPSHOT)] * 2


@harnesses("gemini")
def test_the_compression_is_stored_as_one_not_as_the_user_words(compressed: Run, api: Api) -> None:
    stored = stored_transcript(api, compressed.session) or ""

    assert stored.count("--- context compacted ---") == 1
    assert f"[Compact summary] {SNAPSHOT}" in stored
    assert "User: <state_snapshot>" not in stored
    own = "".join(rendered("gemini", path) for path in compressed.cli.chat_files(compressed.session))
    assert stored == own


@harnesses("gemini")
def test_a_compression_writes_no_checkpoint_per_turn_of_its_own(compressed: Run, api: Api) -> None:
    # Headless, the turn that compressed ends with SessionEnd, whose transcript read sees the
    # compression first: its checkpoint (written after the compression) is the one that holds it.
    assert checkpoint(api, compressed.session, "session_end") is not None
    assert set(triggers(api, compressed.session)) == {"session_end"}


@harnesses("gemini")
def test_the_next_request_after_a_compression_carries_the_recovery_block(compressed: Run) -> None:
    after = compressed.request("NEXT")

    assert after.contains(RECOVERY)
    assert any(KEPT in text for text in after.strings())


# ---- OpenCode: its record is a database --------------------------------------------------------


@harnesses("opencode")
def test_the_stored_transcript_holds_every_message_of_opencode_own_record(work: Run, api: Api) -> None:
    # OpenCode's record is a database; each text part of its export must be in the stored text.
    stored = stored_transcript(api, work.session) or ""
    texts = [
        part["text"]
        for message in work.cli.export(work.session)["messages"]
        for part in message.get("parts") or []
        if part.get("type") == "text" and not part.get("synthetic")
    ]
    missing = [t for t in texts if t not in stored]
    assert texts and not missing, missing
    # The user's words as typed (one argv item each, no shell): `opencode run` itself joins its
    # arguments into the message, wrapping each that holds a space in double quotes, so the
    # export and the stored text both show "…" around them.
    assert [turn.prompt for turn in work.turns if turn.prompt not in stored] == []


# ---- OpenClaw: its session key, its runtime context, the system prompt ---------------------------


@harnesses("openclaw")
def test_the_plugin_hooks_reach_the_service_under_openclaw_session_key(work: Run, api: Api) -> None:
    checkpoints = api.session_checkpoints(work.session)
    assert [c["trigger"] for c in checkpoints] == ["explicit"]
    assert checkpoints[0]["project"] == str(work.machine.project)


@harnesses("openclaw")
def test_the_stored_prompt_is_the_user_words_not_openclaw_runtime_context(work: Run, api: Api) -> None:
    digest = api.session_checkpoints(work.session)[0]["digest"]

    assert KEPT in digest
    # OpenClaw sends the model a timestamp, a "Runtime:" line and its internal context with the
    # user's words; none of it is the user's prompt.
    assert "Runtime: agent=" not in digest and "OPENCLAW_INTERNAL_CONTEXT" not in digest


@harnesses("openclaw")
def test_the_next_openclaw_turn_request_carries_the_recovery_block_in_the_system_prompt(work: Run) -> None:
    first = work.request("We must never edit the vendored folder")
    after = work.request("AFTER_RESTART")

    assert not first.contains(RECOVERY)
    system = after.body["messages"][0]
    assert system["role"] == "system" and RECOVERY in str(system["content"])
    assert KEPT in str(system["content"])
