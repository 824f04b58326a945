"""A project is its repository: a new session on another machine, clone, worktree or harness recovers
the project's latest work, marked with where it came from; the same branch first, another branch's
work never handed over as this session's, another person's only when the setting says so; work
stored under the folder's path (before project ids) still recovered (recovery/recovery.py)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from continuity_core.models.hooks import Hook, HookEvent
from continuity_core.recovery.recovery import RecoverySource
from tests.unit.test_hook_service import AGENT, Core, build

SHOP = "github.com/acme/shop"
LAPTOP = {"machine_id": "a" * 32, "machine_name": "ana-laptop", "project_path": "/Users/ana/src/shop"}
DESKTOP = {"machine_id": "b" * 32, "machine_name": "ana-desktop", "project_path": "/home/ana/code/shop"}


def worked(core: Core, session: str, harness: str = "claude-code", **origin: Any) -> None:
    """A session's ten prompts, checkpointed, in the shop project."""
    for n in range(1, 11):
        core.hook(
            HookEvent.USER_PROMPT_SUBMIT,
            session,
            prompt=f"{session} step {n}: refund the duplicate charge",
            project=origin.get("project_path"),
            project_normalized=origin.pop("project_normalized", SHOP),
            harness=harness,
            **origin,
        )
    core.deliver()
    core.clock.now += timedelta(minutes=30)


def start(core: Core, session: str, harness: str = "claude-code", **origin: Any) -> Any:
    fields = {"project": origin.get("project_path"), "project_normalized": SHOP, "harness": harness}
    return core.hook(HookEvent.SESSION_START, session, source="startup", **(fields | origin))


@pytest.fixture
def core() -> Core:
    return build()


def test_a_session_on_another_machine_recovers_the_projects_work_marked_with_where_it_came_from(
    core: Core,
) -> None:
    # Given work in Claude Code on the laptop, on branch fix/refunds
    worked(core, "laptop-1", **LAPTOP, branch="fix/refunds")

    # When Codex starts on the desktop, in another clone (another path) on the same branch
    answer = start(core, "desktop-1", harness="codex", **DESKTOP, branch="fix/refunds")

    # Then it gets the laptop's work, saying where, on which branch, in which harness, how long ago
    assert answer.recovery.source is RecoverySource.SAME_PROJECT
    assert answer.recovery.checkpoint.session_key == "laptop-1"
    provenance = next(line for line in core.context(answer).splitlines() if line.startswith("_Recovered"))
    assert "from ana-laptop, branch `fix/refunds`, Claude Code" in provenance and "30m" in provenance


def test_the_same_branch_ranks_before_newer_work_of_unknown_branch(core: Core) -> None:
    # Given older work on fix/refunds, then newer work from a session that named no branch
    worked(core, "refunds", **LAPTOP, branch="fix/refunds")
    worked(core, "nobranch", **DESKTOP)

    # When a session starts on fix/refunds
    answer = start(core, "new", **DESKTOP, branch="fix/refunds")

    # Then the same branch's work comes first, however newer the other
    assert answer.recovery.checkpoint.session_key == "refunds"


def test_a_worktree_on_another_branch_is_not_handed_that_branchs_work(core: Core) -> None:
    # Given work on fix/refunds only
    worked(core, "refunds", **LAPTOP, branch="fix/refunds")

    # When a session starts in a worktree on main
    answer = start(core, "main-tree", **LAPTOP | {"project_path": "/Users/ana/src/shop-main"}, branch="main")

    # Then nothing of the other branch is given as its own
    assert answer.recovery is None
    assert "refund the duplicate" not in core.context(answer)


def test_another_persons_work_is_not_recovered_automatically(core: Core) -> None:
    # Given Bo's session in the project
    worked(core, "bo-1", **DESKTOP, user="bo")

    # When Ana starts a session, and a session naming no person starts
    ana = start(core, "ana-1", **LAPTOP, user="ana")
    anyone = start(core, "anon-1", **LAPTOP)

    # Then Ana is not handed Bo's work; a session without a person (one person, no setting) is
    assert ana.recovery is None
    assert anyone.recovery.checkpoint.session_key == "bo-1"


def test_the_cross_person_setting_lets_a_teammates_work_through() -> None:
    core = build(cross_person_recovery=True)
    worked(core, "bo-1", **DESKTOP, user="bo")
    answer = start(core, "ana-1", **LAPTOP, user="ana")
    assert answer.recovery.checkpoint.session_key == "bo-1"
    assert "by bo" in core.context(answer)


def test_work_stored_under_the_folders_path_is_recovered_by_the_projects_id(core: Core) -> None:
    # Given work written by the current client, keyed by the folder's real path
    worked(
        core, "before-upgrade", project_normalized="/Users/ana/src/shop", project_path="/Users/ana/src/shop"
    )

    # When the upgraded client starts a session there, keyed by the repository, sending the old key
    answer = start(core, "after-upgrade", **LAPTOP)

    # Then the path-keyed work is recovered
    assert answer.recovery.source is RecoverySource.SAME_PROJECT
    assert answer.recovery.checkpoint.session_key == "before-upgrade"


def test_a_clear_on_another_machine_is_not_this_sessions_clear(core: Core) -> None:
    # Given the desktop's session just cleared (its clear checkpoint), and the laptop's older work
    worked(core, "laptop-1", **LAPTOP)
    worked(core, "desktop-1", **DESKTOP)
    core.hook(HookEvent.SESSION_END, "desktop-1", reason="clear", project_normalized=SHOP, **DESKTOP)

    # When the laptop's session starts after a /clear
    answer = core.hook(
        HookEvent.SESSION_START,
        "laptop-2",
        source="clear",
        project_normalized=SHOP,
        harness="claude-code",
        **LAPTOP,
    )

    # Then it is not linked to the desktop's clear as if it were its own
    assert answer.recovery is None or answer.recovery.source is not RecoverySource.CLEARED_SESSION


def test_another_agent_sees_nothing_of_the_project(core: Core) -> None:
    # Given work in the shop project
    worked(core, "laptop-1", **LAPTOP, branch="main")

    # When another agent (tenant) starts a session with the same project id, path and branch
    hook = Hook(
        event=HookEvent.SESSION_START,
        session_key="intruder-1",
        harness="claude-code",
        project=DESKTOP["project_path"],
        project_normalized=SHOP,
        source="startup",
        branch="main",
        **{k: v for k, v in LAPTOP.items() if k != "project_path"},
    )
    answer = core.service.handle("other-agent", hook)

    # Then it recovers nothing
    assert answer.recovery is None and answer.response.additional_context is None
    assert AGENT != "other-agent"


def test_a_sessions_row_shows_its_machine_branch_and_harness(core: Core) -> None:
    from continuity_core.sessions.dashboard import session_row

    # Given a session that ran in Codex on the desktop, on fix/refunds
    worked(core, "desktop-1", harness="codex", **DESKTOP, branch="fix/refunds")

    # When the sessions page describes it
    state = core.stores.states.get(AGENT, "desktop-1")
    row = session_row(state, core.clock.now)

    # Then it says where it ran, not only which project
    assert (row.machine_name, row.branch, row.harness) == ("ana-desktop", "fix/refunds", "codex")
    assert row.project_path == "/home/ana/code/shop"
