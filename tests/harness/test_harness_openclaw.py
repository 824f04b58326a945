"""The real OpenClaw CLI with our plugin, against a scripted model and the local stack.

``continuity install openclaw`` adds the plugin to the user's openclaw.json. Each turn is one
``openclaw agent --local`` process (the embedded agent, no Gateway), so each loads the plugin
afresh, as a restarted Gateway would. What the embedded agent cannot do headless without a
Gateway (``/compact``, ``/new`` and sub-agent spawns are Gateway commands) stays proven by the
plugin's node tests against OpenClaw's event shapes (tests/plugins).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.e2e.local_stack import Api, LocalStackProcess
from tests.harness import clis
from tests.harness.machine import Machine, assert_finished_promptly
from tests.harness.mock_model import MockModel
from tests.harness.openclaw import OpenClaw, session_key
from tests.harness.script import CONSTRAINT, KEPT, RECOVERY

pytestmark = [pytest.mark.harness, pytest.mark.e2e]

AFTER = "AFTER_RESTART: carry on with the reader."


@dataclass
class Run:
    machine: Machine
    model: MockModel
    openclaw: OpenClaw
    session_id: str

    @property
    def key(self) -> str:
        return session_key(self.session_id)


@pytest.fixture(scope="module")
def binary() -> Path:
    return clis.ensure(clis.OPENCLAW)


@contextmanager
def run(binary: Path, base: Path, url: str, token: str) -> Iterator[Run]:
    machine = Machine(base)
    machine.login(url, token)
    with MockModel() as model:
        openclaw = OpenClaw(binary, machine, model.url)
        machine.install("openclaw")
        yield Run(machine, model, openclaw, str(uuid.uuid4()))


@pytest.fixture(scope="module")
def work(
    binary: Path, local_stack: LocalStackProcess, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Run]:
    """A turn that states a constraint, a checkpoint of it (`continuity checkpoint`), then a turn in a
    new process (the plugin loaded afresh, as after a Gateway restart)."""
    with run(binary, tmp_path_factory.mktemp("openclaw"), local_stack.url, local_stack.token) as done:
        done.openclaw.run(CONSTRAINT, done.session_id)
        done.machine.continuity("checkpoint")
        done.openclaw.run(AFTER, done.session_id)
        done.machine.wait_delivered()
        yield done


def test_the_plugin_hooks_reach_the_service_under_openclaw_session_key(work: Run, api: Api) -> None:
    assert [turn.exit_code for turn in work.openclaw.turns] == [0, 0], work.openclaw.turns[-1].stderr

    checkpoints = api.session_checkpoints(work.key)
    assert [c["trigger"] for c in checkpoints] == ["explicit"]
    assert checkpoints[0]["project"] == str(work.machine.project)


def test_the_stored_prompt_is_the_user_words_not_openclaw_runtime_context(work: Run, api: Api) -> None:
    digest = api.session_checkpoints(work.key)[0]["digest"]

    assert KEPT in digest
    # OpenClaw sends the model a timestamp, a "Runtime:" line and its internal context with the
    # user's words; none of it is the user's prompt.
    assert "Runtime: agent=" not in digest and "OPENCLAW_INTERNAL_CONTEXT" not in digest


def test_the_next_turn_request_carries_the_recovery_block_in_the_system_prompt(work: Run) -> None:
    first = work.model.prompted("We must never edit the vendored folder")
    after = work.model.prompted("AFTER_RESTART")

    assert not first.contains(RECOVERY)
    system = after.body["messages"][0]
    assert system["role"] == "system" and RECOVERY in str(system["content"])
    assert KEPT in str(system["content"])


def test_with_the_service_stopped_openclaw_still_finishes_promptly(
    binary: Path, tmp_path: Path, stopped_service: str
) -> None:
    with run(binary, tmp_path, stopped_service, "some-token") as finished:
        finished.openclaw.run(CONSTRAINT, finished.session_id)

    assert_finished_promptly(
        finished.machine, finished.openclaw.turns, 120, {"session-start", "user-prompt-submit"}
    )
