"""Recovery at session start through the hook handler, on moto."""

from datetime import UTC, datetime

import pytest

from continuity_core.checkpoints.checkpoints import build_checkpoint
from continuity_core.hooks.ports import PromptRecord
from continuity_core.kernel.config import get_config
from continuity_core.models.checkpoint_trigger import CheckpointTrigger
from continuity_core.models.state import SessionIdentity
from tests.integration.conftest import prompt
from tests.support import on_aws
from tests.support.api import InProcessService
from tests.support.cold_starts import reset_functions


def start(service: InProcessService, session: str, cwd: str = "/work/app", **extra: str) -> dict:
    status, body = service.hook(
        "session-start", {"session_id": session, "cwd": cwd, "hook_event_name": "SessionStart", **extra}
    )
    assert status == 200
    return body


def context(answer: dict) -> str:
    return answer["hookSpecificOutput"]["additionalContext"]


def checkpointed_session(service: InProcessService, session: str, cwd: str = "/work/app") -> None:
    for n in range(1, 11):
        service.hook("user-prompt-submit", prompt(session, n, cwd))
    service.drain_queue()


def test_a_compacted_session_gets_its_latest_checkpoint_back(service: InProcessService) -> None:
    checkpointed_session(service, "s1")
    latest = service.session_checkpoints("s1")[-1]

    answer = start(service, "s1", source="compact")

    assert answer["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    block = context(answer)
    assert block.startswith("## Session Recovery Context")
    trigger = latest["trigger"].replace("_", "-")
    assert f"_Recovered from this session: {trigger} checkpoint {latest['sequence']}," in block
    # The last prompt quoted under Next, with whether the agent has reported on it
    assert (
        "### Next\n> step 10: refactor the checkpoint writer\n_The user's last instruction (prompt 10);"
        in block
    )
    assert len(block) <= get_config().recovery_budget_chars


def test_a_new_session_in_the_same_project_recovers_it(service: InProcessService) -> None:
    checkpointed_session(service, "s1", cwd="/work/app")

    answer = start(service, "s2", cwd="/work/./app/", source="startup")

    assert "session s1" in context(answer)


def store_checkpoint(session: str, project: str, created_at: datetime, digest: str) -> None:
    identity = SessionIdentity(
        session_key=session, harness="claude-code", project=project, project_normalized=project
    )
    state = on_aws.state_store().record_prompt("default", identity, PromptRecord("p"), created_at)
    checkpoint = build_checkpoint(state, CheckpointTrigger.PERIODIC, created_at, digest=digest)
    on_aws.checkpoint_store().commit("default", checkpoint, consumed=state, now=created_at)


def test_a_large_digest_is_cut_visibly_inside_the_reserved_budget(
    service: InProcessService, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CONTINUITY_RECOVERY_BUDGET_CHARS", "800")
    reset_functions()
    store_checkpoint("big", "/work/app", datetime.now(UTC), "D" * 20_000)

    injected = context(start(service, "big", source="compact"))

    assert len(injected) <= 800
    assert injected.endswith("[truncated]")


def test_tenants_do_not_recover_each_others_checkpoints(service: InProcessService) -> None:
    checkpointed_session(service, "s1")
    other_tenant = InProcessService(agent_id="someone-else")

    assert start(other_tenant, "s1", source="compact") == {}
    assert start(other_tenant, "s9", source="startup") == {}
