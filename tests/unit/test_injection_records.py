"""The injection inspector's records: what each start was given, its sections, cap and links."""

from __future__ import annotations

from typing import Any

from continuity_core.hooks.ingest import HookDispatcher
from continuity_core.models.hooks import Hook, HookEvent, TranscriptDelta
from continuity_core.recovery.inherit import InheritanceService
from continuity_core.transcripts.read import TranscriptReader
from tests.fakes.hooks import hook_dispatcher
from tests.unit.test_hook_service import AGENT, PROJECT, Core, build


def with_inspector(core: Core) -> HookDispatcher:
    s = core.stores
    reader = TranscriptReader(core.transcripts, s.states, core.clock)
    inheritance = InheritanceService(reader, s.checkpoints, s.states, core.config)
    core.service = hook_dispatcher(
        s, core.config, core.clock, core.writer, transcripts=core.appender, inheritance=inheritance
    )
    return core.service


def hook(core: Core, event: HookEvent, session: str, **fields: Any) -> Any:
    values: dict[str, Any] = {"harness": "claude-code", "project": PROJECT, "project_normalized": PROJECT}
    return core.service.handle(AGENT, Hook(event=event, session_key=session, **(values | fields)))


def test_a_clear_start_stores_the_block_it_got_with_its_sections_cap_and_where_it_came_from() -> None:
    # Given a session whose /clear wrote a checkpoint naming a secret-free constraint
    core = build()
    with_inspector(core)
    hook(core, HookEvent.SESSION_START, "before")
    hook(core, HookEvent.REMEMBER, "before", content="Always use postgres, never sqlite. " * 20)
    hook(core, HookEvent.SESSION_END, "before", reason="clear")
    # When the next session starts from the /clear under a small cap
    answer = hook(core, HookEvent.SESSION_START, "after", source="clear", injection_cap_chars=600)
    # Then the inspector holds exactly the block the agent got, flagged as cut to the cap
    (record,) = core.stores.injections.for_session(AGENT, "after", 10)
    assert record.text == answer.response.additional_context
    assert record.chars == len(record.text or "") <= 600
    assert (record.cap_chars, record.truncated, record.source) == (600, True, "clear")
    assert record.sections[0].name == "recovery" and record.sections[0].truncated
    # And the link it followed: the cleared session, found by the /clear
    assert (record.recovered_session_key, record.recovery_source) == ("before", "cleared_session")


def test_a_subagent_start_records_its_parent_and_how_it_was_found() -> None:
    core = build()
    with_inspector(core)
    hook(core, HookEvent.SESSION_START, "parent", harness="opencode")
    delta = TranscriptDelta(offset=0, text="User: use postgres for everything\n\n")
    hook(
        core,
        HookEvent.USER_PROMPT_SUBMIT,
        "parent",
        harness="opencode",
        prompt="use postgres",
        transcript=delta,
    )
    hook(core, HookEvent.SESSION_START, "child", harness="opencode", parent_session_key="parent")
    (record,) = core.stores.injections.for_session(AGENT, "child", 10)
    assert (record.parent_session_key, record.parent_found_by) == ("parent", "explicit parent_session_key")
    assert "inherited" in [s.name for s in record.sections]


def test_a_secret_in_the_block_is_stored_redacted() -> None:
    core = build()
    with_inspector(core)
    secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    hook(core, HookEvent.SESSION_START, "before")
    hook(core, HookEvent.REMEMBER, "before", content=f"the deploy token is {secret}")
    hook(core, HookEvent.SESSION_END, "before", reason="clear")
    hook(core, HookEvent.SESSION_START, "after", source="clear")
    (record,) = core.stores.injections.for_session(AGENT, "after", 10)
    assert record.text is not None and secret not in record.text


def test_a_subagent_start_under_a_deleted_session_stores_nothing() -> None:
    core = build()
    with_inspector(core)
    hook(core, HookEvent.SESSION_START, "parent")
    core.stores.memory.states[(AGENT, "parent")].values["deleted_at"] = core.clock()  # forgotten
    hook(core, HookEvent.SUBAGENT_START, "parent", agent_id="explorer-1")
    assert [r.event for r in core.stores.injections.for_session(AGENT, "parent", 10)] == ["session_start"]


def test_the_cleared_sessions_lineage_names_the_session_that_continued_it() -> None:
    from continuity_core.sessions.dashboard import DashboardReader

    core = build()
    with_inspector(core)
    hook(core, HookEvent.SESSION_START, "before")
    hook(core, HookEvent.REMEMBER, "before", content="Always use postgres.")
    hook(core, HookEvent.SESSION_END, "before", reason="clear")
    hook(core, HookEvent.SESSION_START, "after", source="clear")
    delta = TranscriptDelta(offset=0, text="User: go on\n\n")
    hook(core, HookEvent.USER_PROMPT_SUBMIT, "after", prompt="go on", transcript=delta)
    s = core.stores
    reader = DashboardReader(
        TranscriptReader(core.transcripts, s.states, core.clock),
        s.states,
        s.checkpoints,
        core.clock,
        s.injections,
    )
    # Then each side names the other, found by the /clear
    (down,) = reader.lineage(AGENT, "before").links
    (up,) = reader.lineage(AGENT, "after").links
    assert (down.from_session, down.to_session, down.kind) == ("before", "after", "continued")
    assert (up.from_session, up.to_session) == ("before", "after") and "/clear" in up.found_by
    assert not up.guess
