"""The real Gemini CLI with our hooks and MCP server, against a scripted model and the local stack.

Gemini CLI has no ``/clear`` headless and no sub-agent hook event, so neither is tested here.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.e2e.local_stack import Api, LocalStackProcess
from tests.harness import clis
from tests.harness.gemini import Gemini
from tests.harness.machine import Machine, assert_finished_promptly
from tests.harness.mock_model import Exchange, MockModel, Reply
from tests.harness.script import CONSTRAINT, DIGEST, DIGEST_SAVED, KEPT, MCP_TOOLS, RECOVERY
from tests.harness.service import checkpoint, rendered, stored_transcript, triggers

pytestmark = [pytest.mark.harness, pytest.mark.e2e]


@dataclass
class Run:
    machine: Machine
    model: MockModel
    gemini: Gemini

    @property
    def session(self) -> str:
        return self.gemini.turns[0].first("session_id")


@pytest.fixture(scope="module")
def binary() -> Path:
    return clis.ensure(clis.GEMINI)


@contextmanager
def run(binary: Path, base: Path, url: str, token: str, prompts: list[str]) -> Iterator[Run]:
    machine = Machine(base)
    machine.login(url, token)
    with MockModel() as model:
        model.on("CALL_DIGEST", Reply.tool("mcp_continuity_session_digest", DIGEST))
        gemini = Gemini(binary, machine, model.url)
        machine.install("gemini")
        for index, prompt in enumerate(prompts):
            gemini.prompt(prompt, resume=index > 0)
        yield Run(machine, model, gemini)


@pytest.fixture(scope="module")
def work(
    binary: Path, local_stack: LocalStackProcess, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Run]:
    """A session of three headless prompts (the later two resume it); the second saves a digest."""
    prompts = [CONSTRAINT, "CALL_DIGEST: save where we are.", "AFTER: where were we?"]
    with run(binary, tmp_path_factory.mktemp("gemini"), local_stack.url, local_stack.token, prompts) as done:
        done.machine.wait_delivered()
        yield done


def test_every_turn_runs_to_its_end_in_one_session(work: Run) -> None:
    assert [turn.exit_code for turn in work.gemini.turns] == [0, 0, 0], work.gemini.turns[-1].stderr
    assert {turn.first("session_id") for turn in work.gemini.turns} == {work.session}


def test_the_hooks_reach_the_service(work: Run, api: Api) -> None:
    assert stored_transcript(api, work.session)
    assert "agent" in triggers(api, work.session)


def test_the_stored_transcript_is_the_cli_own_chat_file_as_the_client_renders_it(work: Run, api: Api) -> None:
    own = "".join(rendered("gemini", path) for path in work.gemini.chat_files(work.session))

    assert stored_transcript(api, work.session) == own


def test_a_resumed_session_reaches_the_model_with_the_recovery_block(work: Run) -> None:
    assert not work.model.prompted("We must never edit").contains(RECOVERY)
    assert work.model.prompted("AFTER").contains(RECOVERY)


def test_turns_without_a_compression_write_no_pre_compaction_checkpoint(work: Run, api: Api) -> None:
    assert "pre_compaction" not in triggers(api, work.session)


def test_the_injected_block_is_never_stored_as_the_user_words(work: Run, api: Api) -> None:
    # Given the resumed turns carried the recovery block inside the user's turn
    assert work.model.prompted("AFTER").contains("<hook_context>")

    # Then neither the stored transcript nor a checkpoint's prompts hold it
    assert RECOVERY not in (stored_transcript(api, work.session) or "")
    for saved in api.session_checkpoints(work.session):
        assert "hook_context" not in saved["digest"]


def test_the_mcp_tools_are_advertised_to_the_model(work: Run) -> None:
    first = work.model.prompted("We must never edit")

    assert {f"mcp_continuity_{tool}" for tool in MCP_TOOLS} <= set(first.tools)


def test_a_session_digest_call_by_the_model_lands_as_the_agent_checkpoint(work: Run, api: Api) -> None:
    saved = checkpoint(api, work.session, "agent")

    assert saved is not None and DIGEST_SAVED in saved["digest"]


def test_with_the_service_stopped_the_cli_still_finishes_promptly(
    binary: Path, tmp_path: Path, stopped_service: str
) -> None:
    prompts = [CONSTRAINT, "CALL_DIGEST: save where we are."]

    with run(binary, tmp_path, stopped_service, "some-token", prompts) as finished:
        pass

    spooled = {"session-start", "user-prompt-submit", "session-end"}
    assert_finished_promptly(finished.machine, finished.gemini.turns, 20, spooled)


# ---- a real compression ------------------------------------------------------------------------
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
    """A session whose second turn fills the window and is compressed; the third resumes it."""
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
        yield Run(machine, model, gemini)


def test_a_real_compression_asks_the_model_for_the_snapshot(compressed: Run) -> None:
    assert [turn.exit_code for turn in compressed.gemini.turns] == [0, 0, 0], compressed.gemini.turns[
        -1
    ].stderr
    assert [e.reply for e in compressed.model.requests() if asks_for_snapshot(e)] == [Reply(SNAPSHOT)] * 2


def test_the_compression_is_stored_as_one_not_as_the_user_words(compressed: Run, api: Api) -> None:
    stored = stored_transcript(api, compressed.session) or ""

    assert stored.count("--- context compacted ---") == 1
    assert f"[Compact summary] {SNAPSHOT}" in stored
    assert "User: <state_snapshot>" not in stored
    own = "".join(rendered("gemini", path) for path in compressed.gemini.chat_files(compressed.session))
    assert stored == own


def test_a_compression_writes_no_checkpoint_per_turn_of_its_own(compressed: Run, api: Api) -> None:
    # Headless, the turn that compressed ends with SessionEnd, whose transcript read sees the
    # compression first: its checkpoint (written after the compression) is the one that holds it.
    assert checkpoint(api, compressed.session, "session_end") is not None
    assert set(triggers(api, compressed.session)) == {"session_end"}


def test_the_next_request_after_a_compression_carries_the_recovery_block(compressed: Run) -> None:
    after = compressed.model.prompted("NEXT")

    assert after.contains(RECOVERY)
    assert any(KEPT in text for text in after.strings())
