"""The real Claude Code CLI with our hooks and MCP server, against a scripted model and the local stack.

One scripted session per scenario (a module fixture), then one test per behaviour a user relies
on, each read from outside: what reached the service, what the CLI sent to the model.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.e2e.local_stack import Api, LocalStackProcess
from tests.harness import clis
from tests.harness.claude_code import ClaudeSession, environment, transcript_file
from tests.harness.machine import Machine
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


@dataclass
class Run:
    machine: Machine
    model: MockModel
    session: ClaudeSession
    exit_code: int
    seconds: float
    turn_seconds: dict[str, float]

    def request(self, marker: str) -> Exchange:
        return self.model.prompted(marker)


@pytest.fixture(scope="module")
def claude() -> Path:
    return clis.ensure(clis.CLAUDE_CODE)


def script(model: MockModel) -> None:
    # Claude Code defers MCP tools: the model loads one with ToolSearch, then calls it.
    model.on("CALL_DIGEST", Reply.tool("ToolSearch", {"query": "select:mcp__continuity__session_digest"}))
    model.on(lambda e: "mcp__continuity__session_digest" in e.tools, Reply.tool("session_digest", DIGEST))
    subagent = {"description": "survey", "prompt": SUBAGENT_TASK}
    model.on("CALL_AGENT", Reply.tool("Agent", {**subagent, "subagent_type": "general-purpose"}))
    model.on("GROW", Reply("Read everything.", input_tokens=195_000))


@contextmanager
def run(claude: Path, base: Path, url: str, token: str, prompts: list[str], **env: str) -> Iterator[Run]:
    machine = Machine(base)
    machine.login(url, token)
    machine.install("claude-code")
    with MockModel() as model:
        script(model)
        started = time.monotonic()
        session = ClaudeSession(claude, machine, environment(machine, model.url, **env))
        turn_seconds = {}
        try:
            for prompt in prompts:
                begun = time.monotonic()
                session.send(prompt)
                turn_seconds[prompt] = time.monotonic() - begun
        finally:
            code = session.close()
        yield Run(machine, model, session, code, time.monotonic() - started, turn_seconds)


@pytest.fixture(scope="module")
def work(
    claude: Path, local_stack: LocalStackProcess, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Run]:
    """A session that works, saves a digest, starts a sub-agent, compacts, then clears."""
    prompts = [
        CONSTRAINT, "CALL_DIGEST: save where we are.", "CALL_AGENT: survey the readers.",
        "/compact", "AFTER_COMPACT: where were we?", "/clear", "AFTER_CLEAR: where were we?",
    ]  # fmt: skip
    base = tmp_path_factory.mktemp("claude-work")
    with run(claude, base, local_stack.url, local_stack.token, prompts) as done:
        done.machine.wait_delivered()
        yield done


@pytest.fixture(scope="module")
def auto(
    claude: Path, local_stack: LocalStackProcess, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Run]:
    """A session whose context the model reports near Claude Code's auto-compaction window."""
    prompts = [CONSTRAINT, "GROW: read every reader.", "AFTER_AUTO: go on."]
    base = tmp_path_factory.mktemp("claude-auto")
    window = {"CLAUDE_CODE_AUTO_COMPACT_WINDOW": "200000"}
    with run(claude, base, local_stack.url, local_stack.token, prompts, **window) as done:
        done.machine.wait_delivered()
        yield done


# ---- the hooks reach the service -------------------------------------------------------------


def test_the_session_runs_to_its_end(work: Run) -> None:
    assert work.exit_code == 0, work.session.stderr()
    assert len(work.session.session_ids()) == 2  # /clear starts a second session


def test_the_hooks_reach_the_service(work: Run, api: Api) -> None:
    # Given the session compacted, saved a digest through the MCP server and was cleared
    first, second = work.session.session_ids()

    # Then the service holds the pre-compaction and clear checkpoints of the first session
    assert {"pre_compaction", "clear"} <= set(triggers(api, first))
    # And the session after /clear is known to it
    assert stored_transcript(api, second)


def test_the_stored_transcript_is_the_cli_own_file_as_the_client_renders_it(work: Run, api: Api) -> None:
    for session in work.session.session_ids():
        own = rendered("claude-code", transcript_file(work.machine, session))

        assert stored_transcript(api, session) == own


# ---- recovery reaches the model ---------------------------------------------------------------


def test_before_any_compaction_no_request_carries_a_recovery_block(work: Run) -> None:
    # A control for the two tests below: a fresh project has nothing to recover.
    for marker in ("We must never edit", "CALL_DIGEST", "CALL_AGENT"):
        assert not work.request(marker).contains(RECOVERY)


def test_after_compact_the_next_prompt_reaches_the_model_with_the_recovery_block(work: Run) -> None:
    request = work.request("AFTER_COMPACT")

    assert request.contains(RECOVERY)
    assert request.contains(KEPT)


def test_after_clear_the_next_prompt_reaches_the_model_with_the_recovery_block(work: Run) -> None:
    request = work.request("AFTER_CLEAR")

    assert request.contains(RECOVERY)
    assert request.contains(KEPT)


def test_after_an_auto_compaction_the_next_prompt_carries_the_recovery_block(auto: Run) -> None:
    # Given the model reported 195k input tokens of a 200k window
    compactions = [e for e in auto.session.events if e.get("subtype") == "compact_boundary"]
    assert [c["compact_metadata"]["trigger"] for c in compactions] == ["auto"]

    # Then the prompt after the compaction reaches the model with the recovery block
    assert not auto.request("GROW").contains(RECOVERY)
    assert auto.request("AFTER_AUTO").contains(RECOVERY)


def test_a_subagent_first_request_carries_the_inherited_block(work: Run) -> None:
    first = work.request("SUBAGENT_TASK")

    assert first.contains(INHERITED)
    assert first.contains(KEPT)


# ---- the MCP server --------------------------------------------------------------------------


def test_the_mcp_tools_are_advertised_to_the_model(work: Run) -> None:
    first = work.request("We must never edit")

    for tool in MCP_TOOLS:
        assert first.contains(f"mcp__continuity__{tool}")


def test_a_session_digest_call_by_the_model_lands_as_the_agent_checkpoint(work: Run, api: Api) -> None:
    first = work.session.session_ids()[0]

    saved = checkpoint(api, first, "agent")

    assert saved is not None and DIGEST_SAVED in saved["digest"]


# ---- a service that is away -----------------------------------------------------------------


@pytest.mark.parametrize("away", ["stopped_service", "silent_service"])
def test_with_the_service_away_the_cli_still_finishes_promptly(
    claude: Path, tmp_path: Path, away: str, request: pytest.FixtureRequest
) -> None:
    # Given the client logged in to a service that is stopped (refuses) or hung (never answers)
    url = request.getfixturevalue(away)
    prompts = [CONSTRAINT, "CALL_DIGEST: save where we are.", "/compact", "AFTER_COMPACT: go on."]

    # When a session with a compaction runs
    with run(claude, tmp_path, url, "some-token", prompts) as finished:
        pass

    # Then every turn was answered and the CLI exited at once, each hook within its own deadline
    assert finished.exit_code == 0
    assert finished.session.events[-1].get("subtype") == "success"
    assert max(finished.turn_seconds.values()) < 12, finished.turn_seconds
    assert finished.seconds < 45, finished.turn_seconds
    # And nothing was lost quietly: the hooks wait in the spool for the service
    spooled = {record["event"] for record in finished.machine.spooled()}
    assert {"session-start", "user-prompt-submit", "pre-compaction"} <= spooled
