"""The real OpenCode CLI with our plugin and MCP server, against a scripted model and the local stack.

``continuity install opencode`` puts the plugin in the user's opencode.json. OpenCode keeps its
sessions in its own database; ``opencode export`` reads them back.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.e2e.local_stack import Api, LocalStackProcess
from tests.harness import clis
from tests.harness.machine import Machine, assert_finished_promptly
from tests.harness.mock_model import Exchange, MockModel, Reply
from tests.harness.opencode import CONTEXT_LIMIT, OpenCode
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
from tests.harness.service import checkpoint, stored_transcript, triggers

pytestmark = [pytest.mark.harness, pytest.mark.e2e]


@dataclass
class Run:
    machine: Machine
    model: MockModel
    opencode: OpenCode

    @property
    def session(self) -> str:
        return self.opencode.turns[0].first("sessionID")

    def after_compaction(self) -> Exchange:
        """The first request of the agent's loop after OpenCode's summary request (it has no tools)."""
        requests = self.model.requests()
        grow = requests.index(self.model.prompted("GROW"))
        summary = next(i for i in range(grow + 1, len(requests)) if not requests[i].is_main_turn)
        return next(e for e in requests[summary + 1 :] if e.is_main_turn)


@pytest.fixture(scope="module")
def binary() -> Path:
    return clis.ensure(clis.OPENCODE)


@contextmanager
def run(binary: Path, base: Path, url: str, token: str, prompts: list[str]) -> Iterator[Run]:
    machine = Machine(base)
    machine.login(url, token)
    with MockModel() as model:
        model.on("CALL_DIGEST", Reply.tool("continuity_session_digest", DIGEST))
        model.on(
            "CALL_AGENT",
            Reply.tool(
                "task", {"description": "survey", "prompt": SUBAGENT_TASK, "subagent_type": "general"}
            ),
        )
        model.on("GROW", Reply.tool("glob", {"pattern": "*"}, input_tokens=CONTEXT_LIMIT + 10_000))
        opencode = OpenCode(str(binary), machine, model.url)
        machine.install("opencode")
        session = opencode.run(prompts[0]).first("sessionID")
        for prompt in prompts[1:]:
            opencode.run(prompt, session)
        yield Run(machine, model, opencode)


@pytest.fixture(scope="module")
def work(
    binary: Path, local_stack: LocalStackProcess, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Run]:
    """A session that fills its context and compacts, saves a digest, then starts a sub-agent."""
    prompts = [f"{CONSTRAINT} GROW: read every reader.", "CALL_DIGEST: save where we are.", "CALL_AGENT: go."]
    with run(
        binary, tmp_path_factory.mktemp("opencode"), local_stack.url, local_stack.token, prompts
    ) as done:
        done.machine.wait_delivered()
        yield done


def test_the_hooks_reach_the_service(work: Run, api: Api) -> None:
    assert [turn.exit_code for turn in work.opencode.turns] == [0, 0, 0]
    assert "pre_compaction" in triggers(api, work.session)


def test_the_stored_transcript_holds_every_message_of_the_cli_own_record(work: Run, api: Api) -> None:
    # OpenCode's record is a database; each text part of its export must be in the stored text.
    stored = stored_transcript(api, work.session) or ""
    texts = [
        part["text"]
        for message in work.opencode.export(work.session)["messages"]
        for part in message.get("parts") or []
        if part.get("type") == "text" and not part.get("synthetic")
    ]
    missing = [t for t in texts if t not in stored]
    assert texts and not missing, missing
    # The user's words as typed (one argv item each, no shell): `opencode run` itself joins its
    # arguments into the message, wrapping each that holds a space in double quotes, so the
    # export and the stored text both show "…" around them.
    assert [turn.prompt for turn in work.opencode.turns if turn.prompt not in stored] == []


def test_after_an_auto_compaction_the_next_request_carries_the_recovery_block(work: Run) -> None:
    assert not work.model.prompted("GROW").contains(RECOVERY)

    after = work.after_compaction()
    assert after.contains(RECOVERY)
    assert after.contains(KEPT)


def test_a_subagent_first_request_carries_the_inherited_block(work: Run) -> None:
    first = work.model.prompted("SUBAGENT_TASK")

    assert first.contains(INHERITED)
    assert first.contains(KEPT)


def test_the_mcp_tools_are_advertised_to_the_model(work: Run) -> None:
    first = work.model.prompted("GROW")

    assert {f"continuity_{tool}" for tool in MCP_TOOLS} <= set(first.tools)


def test_a_session_digest_call_by_the_model_lands_as_the_agent_checkpoint(work: Run, api: Api) -> None:
    saved = checkpoint(api, work.session, "agent")

    assert saved is not None and DIGEST_SAVED in saved["digest"]


def test_with_the_service_stopped_the_cli_still_finishes_promptly(
    binary: Path, tmp_path: Path, stopped_service: str
) -> None:
    with run(binary, tmp_path, stopped_service, "some-token", [CONSTRAINT, "AFTER: go on."]) as finished:
        pass

    assert_finished_promptly(
        finished.machine, finished.opencode.turns, 30, {"session-start", "user-prompt-submit"}
    )
