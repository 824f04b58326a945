"""Deleting a session's or a project's data now, the tombstone that keeps it deleted, and the
session-start preview: on the in-memory stores (held to DynamoDB's by tests/contract)."""

from __future__ import annotations

import uuid

import pytest

from continuity_core.admin.forget import Forgetter
from continuity_core.kernel.errors import SessionDeletedError
from continuity_core.models.digest import LedgerEntry
from continuity_core.models.hooks import HookEvent, TranscriptDelta
from continuity_core.recovery.start import StartPreview
from tests.fakes.erasure import InMemoryErasureStore
from tests.unit.test_hook_service import AGENT, PROJECT, Core, build

OTHER_PROJECT = "/work/other"
# Two appends that cross the appender's chunk size (16,384) with more than the tail it keeps (3,000)
# after the first: the first moves to a chunk ("S3").
LONG_TRANSCRIPT = "User: " + "the migration plan, step by step. " * 440 + "\n"
REPLY = "Assistant: " + "done. " * 900 + "\n"


@pytest.fixture
def core() -> Core:
    return build()


def forgetter(core: Core) -> Forgetter:
    return Forgetter(InMemoryErasureStore(core.stores.memory, core.transcripts), core.config, core.clock)


def decide(core: Core, session: str, text: str, project: str = PROJECT) -> None:
    entry = LedgerEntry(
        id=str(uuid.uuid4()),
        project_normalized=project,
        session_key=session,
        decision=text,
        created_at=core.clock(),
    )
    core.stores.ledger.append(AGENT, [entry])


def lived(core: Core, session: str, project: str = PROJECT) -> None:
    """A session with ten prompts (one checkpoint), a long transcript and a decision."""
    fields = {"project": project, "project_normalized": project}
    core.hook(HookEvent.SESSION_START, session, source="startup", **fields)
    core.prompt(session, 1, transcript=TranscriptDelta(offset=0, text=LONG_TRANSCRIPT), **fields)
    more = TranscriptDelta(offset=len(LONG_TRANSCRIPT), text=REPLY)
    core.prompt(session, 2, transcript=more, **fields)
    for n in range(3, 11):
        core.prompt(session, n, **fields)
    core.deliver()
    decide(core, session, f"{session}: we use postgres", project)


# -- a session ---------------------------------------------------------------------------------------


def test_forgetting_a_session_deletes_everything_of_it_and_says_how_much(core: Core) -> None:
    # Given two sessions of the project, each with state, a checkpoint, a long transcript, a decision
    lived(core, "s1")
    lived(core, "s2")
    assert core.transcripts.chunks, "the long transcript moved a chunk to S3"

    answer = forgetter(core).forget_session(AGENT, "s1")

    # Then every kind of s1's data went, and the answer counts it
    counts = answer.deleted
    assert (counts.states, counts.checkpoints, counts.transcripts, counts.ledger_entries) == (1, 1, 1, 1)
    assert counts.transcript_parts >= 1 and counts.transcript_bodies >= 1 and counts.index_entries == 1
    assert core.stores.states.get(AGENT, "s1") is None
    assert core.stores.checkpoints.list_for_session(AGENT, "s1", 10) == []
    assert not [key for key in core.transcripts.stored_heads if key[1] == "s1"]
    assert not [key for key in core.transcripts.chunks if key[1] == "s1"]
    assert [e.decision for e in core.stores.ledger.page(AGENT, PROJECT, 10).entries] == [
        "s2: we use postgres"
    ]
    # And s2 is untouched
    assert core.stores.states.get(AGENT, "s2") is not None
    assert len(core.stores.checkpoints.list_for_session(AGENT, "s2", 10)) == 1


def test_forgetting_a_session_again_answers_zeros(core: Core) -> None:
    lived(core, "s1")
    forgetter(core).forget_session(AGENT, "s1")

    again = forgetter(core).forget_session(AGENT, "s1")

    assert again.deleted.total == 0 and again.sessions == ["s1"]


@pytest.mark.parametrize(
    ("event", "fields"),
    [
        (
            HookEvent.USER_PROMPT_SUBMIT,
            {"prompt": "late", "transcript": TranscriptDelta(offset=0, text="User: x\n")},
        ),
        (HookEvent.REMEMBER, {"content": "late"}),
        (HookEvent.SESSION_START, {"source": "resume"}),
        (HookEvent.PRE_COMPACTION, {"transcript": TranscriptDelta(offset=0, text="User: x\n")}),
        (HookEvent.SESSION_END, {"transcript": TranscriptDelta(offset=0, text="User: x\n")}),
        (HookEvent.POST_COMPACTION, {"transcript": TranscriptDelta(offset=0, text="User: x\n")}),
        (HookEvent.STOP, {"transcript": TranscriptDelta(offset=0, text="Assistant: x\n")}),
        (HookEvent.SUBAGENT_STOP, {"transcript": TranscriptDelta(offset=0, text="Assistant: x\n")}),
    ],
    ids=lambda value: value.value if isinstance(value, HookEvent) else "",
)
def test_a_hook_of_a_deleted_session_arriving_late_stores_nothing(
    core: Core, event: HookEvent, fields: dict[str, object]
) -> None:
    # Given a deleted session whose spooled hook arrives afterwards
    lived(core, "s1")
    forgetter(core).forget_session(AGENT, "s1")

    with pytest.raises(SessionDeletedError):
        core.hook(event, "s1", **fields)

    # Then nothing of it is stored again
    assert core.stores.states.get(AGENT, "s1") is None
    assert not [key for key in core.transcripts.stored_heads if key[1] == "s1"]
    assert not [key for key in core.transcripts.stored_appends if key[1] == "s1"]


# -- a project ---------------------------------------------------------------------------------------


def test_forgetting_a_project_deletes_all_its_sessions_and_its_ledger_and_nothing_else(core: Core) -> None:
    # Given two full sessions, one only started (no checkpoint, no transcript), one in another project
    lived(core, "s1")
    lived(core, "s2")
    core.hook(HookEvent.SESSION_START, "just-started", source="startup")
    lived(core, "elsewhere", OTHER_PROJECT)

    answer = forgetter(core).forget_project(AGENT, PROJECT)

    assert answer.sessions == ["just-started", "s1", "s2"]
    assert (answer.deleted.states, answer.deleted.checkpoints, answer.deleted.ledger_entries) == (3, 2, 2)
    assert answer.deleted.index_entries == 3
    for session in answer.sessions:
        assert core.stores.states.get(AGENT, session) is None
    assert core.stores.checkpoints.list_for_project(AGENT, PROJECT, 10) == []
    assert core.stores.ledger.page(AGENT, PROJECT, 10).entries == []
    assert core.stores.memory.ledger_heads.get((AGENT, PROJECT)) is None
    # The other project keeps everything
    assert core.stores.states.get(AGENT, "elsewhere") is not None
    assert len(core.stores.ledger.page(AGENT, OTHER_PROJECT, 10).entries) == 1


def test_a_new_session_in_a_forgotten_project_starts_afresh(core: Core) -> None:
    lived(core, "s1")
    forgetter(core).forget_project(AGENT, PROJECT)

    started = core.hook(HookEvent.SESSION_START, "s3", source="startup")

    assert started.recovery is None and core.context(started) == ""
    assert core.stores.states.get(AGENT, "s3") is not None


# -- the preview -------------------------------------------------------------------------------------


def test_the_preview_is_what_a_session_starting_now_gets_and_writes_nothing(core: Core) -> None:
    # Given a project with a checkpointed session and a decision
    lived(core, "s1")
    preview = StartPreview(core.stores.checkpoints, core.config, core.clock)
    writes_before = core.stores.states.writes

    shown = preview.preview(AGENT, PROJECT, None)
    started = core.hook(HookEvent.SESSION_START, "fresh", source="startup")

    assert shown.text and shown.text == core.context(started)
    assert (shown.source, shown.session_key, shown.decisions) == ("same_project", "s1", 1)
    assert core.stores.states.writes == writes_before + 1  # only the session start's own write


def test_the_preview_of_an_empty_project_has_nothing_to_inject(core: Core) -> None:
    shown = StartPreview(core.stores.checkpoints, core.config, core.clock).preview(AGENT, "/nowhere", None)
    assert shown.text is None and shown.session_key is None


def test_the_preview_fits_the_harness_cap(core: Core) -> None:
    lived(core, "s1")
    shown = StartPreview(core.stores.checkpoints, core.config, core.clock).preview(AGENT, PROJECT, 300)
    assert shown.text is not None and len(shown.text) <= 300
