"""The real Codex CLI with our hooks and MCP server, against a scripted model and the local stack.

Codex has no ``/clear`` headless (``codex exec`` takes no slash commands), so there is no clear
test here. A compaction comes from the model reporting a full context in the middle of a turn (a
tool call): Codex compacts before its next request, within the same ``codex exec``, which is the
only place a recovery block can come from (``exec resume`` recovers on its own, at SessionStart).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.e2e.local_stack import Api, LocalStackProcess
from tests.harness import clis
from tests.harness.codex import AUTO_COMPACT_TOKENS, Codex
from tests.harness.machine import Machine, assert_finished_promptly
from tests.harness.mock_model import Exchange, MockModel, Reply
from tests.harness.script import (
    CONSTRAINT,
    DIGEST,
    DIGEST_SAVED,
    INHERITED,
    KEPT,
    MCP_TOOLS,
    RECOVERY,
    SUBAGENT_TASK,
)
from tests.harness.service import checkpoint, rendered, stored_transcript, triggers

pytestmark = [pytest.mark.harness, pytest.mark.e2e]

AGENT_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


@dataclass
class Run:
    machine: Machine
    model: MockModel
    codex: Codex
    thread: str


@pytest.fixture(scope="module")
def binary() -> Path:
    return clis.ensure(clis.CODEX)


def wait_for_spawned(exchange: Exchange) -> Reply:
    """The parent waits for the sub-agent it spawned (else ``codex exec`` ends before it runs)."""
    return Reply.tool("multi_agent_v1__wait_agent", {"targets": AGENT_ID.findall(exchange.tool_result)[-1:]})


def script(model: MockModel) -> None:
    model.on("CALL_DIGEST", Reply.tool("mcp__continuity__session_digest", DIGEST))
    model.on("CALL_AGENT", Reply.tool("multi_agent_v1__spawn_agent", {"message": SUBAGENT_TASK}))
    model.on(lambda e: "spawn" in e.tool_result or "agent_id" in e.tool_result, wait_for_spawned)
    full = AUTO_COMPACT_TOKENS + 50_000
    model.on("GROW", Reply.tool("list_mcp_resources", {}, text="Reading.", input_tokens=full))


@contextmanager
def run(binary: Path, base: Path, url: str, token: str, prompts: list[str]) -> Iterator[Run]:
    machine = Machine(base)
    machine.login(url, token)
    machine.install("codex")
    with MockModel() as model:
        script(model)
        codex = Codex(binary, machine, model.url)
        thread = codex.exec(prompts[0]).first("thread_id")
        for prompt in prompts[1:]:
            codex.exec(prompt, thread)
        yield Run(machine, model, codex, thread)


@pytest.fixture(scope="module")
def work(
    binary: Path, local_stack: LocalStackProcess, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Run]:
    """A thread that fills its context and compacts, saves a digest, then spawns a sub-agent."""
    prompts = [f"{CONSTRAINT} GROW: read every reader.", "CALL_DIGEST: save where we are.", "CALL_AGENT: go."]
    with run(binary, tmp_path_factory.mktemp("codex"), local_stack.url, local_stack.token, prompts) as done:
        done.machine.wait_delivered()
        yield done


def test_every_turn_runs_to_its_end(work: Run) -> None:
    assert [turn.exit_code for turn in work.codex.turns] == [0, 0, 0], work.codex.turns[-1].stderr


def test_the_hooks_reach_the_service(work: Run, api: Api) -> None:
    assert "pre_compaction" in triggers(api, work.thread)
    assert stored_transcript(api, work.thread)


def test_the_stored_transcript_is_the_cli_own_rollout_as_the_client_renders_it(work: Run, api: Api) -> None:
    own = rendered("codex", work.codex.rollout(work.thread))

    assert stored_transcript(api, work.thread) == own


def test_after_an_auto_compaction_the_next_request_carries_the_recovery_block(work: Run) -> None:
    # Given a new thread (nothing to recover) whose model reported a full context mid-turn
    assert not work.model.prompted("GROW").contains(RECOVERY)

    # Then the request after Codex's compaction (its summary request has no tools) carries the block
    after = work.model.after(lambda e: not e.is_main_turn)
    assert after.contains(RECOVERY)
    assert after.contains(KEPT)


def test_a_subagent_first_request_carries_the_inherited_block(work: Run) -> None:
    first = work.model.prompted("SUBAGENT_TASK")

    assert first.contains(INHERITED)
    assert first.contains(KEPT)


def test_the_mcp_tools_are_advertised_to_the_model(work: Run) -> None:
    first = work.model.prompted("GROW")

    assert {f"mcp__continuity__{tool}" for tool in MCP_TOOLS} <= set(first.tools)


def test_a_session_digest_call_by_the_model_lands_as_the_agent_checkpoint(work: Run, api: Api) -> None:
    saved = checkpoint(api, work.thread, "agent")

    assert saved is not None and DIGEST_SAVED in saved["digest"]


def test_with_the_service_stopped_the_cli_still_finishes_promptly(
    binary: Path, tmp_path: Path, stopped_service: str
) -> None:
    # Given the client logged in to a service that is not running
    prompts = [f"{CONSTRAINT} GROW: read every reader.", "CALL_DIGEST: save where we are.", "AFTER: go on."]

    # When a thread with a compaction runs
    with run(binary, tmp_path, stopped_service, "some-token", prompts) as finished:
        pass

    # Then every turn ended normally and soon, and the hooks wait in the spool for the service
    spooled = {"session-start", "user-prompt-submit", "pre-compaction"}
    assert_finished_promptly(finished.machine, finished.codex.turns, 15, spooled)
