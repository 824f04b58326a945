"""The ErasureStore contract, and the tombstone it leaves in the StateStore: the in-memory fakes and
DynamoDB + S3 (moto) alike. Data is written through the stores' own ports, as the service writes it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

import pytest

from continuity_core.admin.ports import ErasureStore
from continuity_core.checkpoints.ports import CheckpointStore, LedgerStore, StateChangedError
from continuity_core.hooks.ports import PromptRecord, StateStore
from continuity_core.kernel.errors import SessionDeletedError
from continuity_core.models.state import SessionIdentity
from continuity_core.recovery.ports import HandoffStore
from continuity_core.transcripts.ports import ChunkMove, TranscriptBodyMissingError, TranscriptStorage
from tests.contract.conftest import BACKENDS, T0, bucket_name, table_name
from tests.contract.test_checkpoint_and_ledger_contract import checkpoint, decision
from tests.fakes.stores import RETENTION, in_memory_stores
from tests.support.clock import Clock

PROJECT = "/work/app"
OTHER = "/work/other"
LATER = T0 + timedelta(minutes=5)


@dataclass
class Backend:
    states: StateStore
    checkpoints: CheckpointStore
    ledger: LedgerStore
    transcripts: TranscriptStorage
    erasure: ErasureStore
    handoffs: HandoffStore


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, clock: Clock) -> Backend:
    if request.param == "memory":
        from tests.fakes.erasure import InMemoryErasureStore
        from tests.fakes.transcripts import InMemoryTranscriptStorage

        fake = in_memory_stores(clock, RETENTION)
        transcripts = InMemoryTranscriptStorage(retention=RETENTION)
        erasure = InMemoryErasureStore(fake.memory, transcripts)
        return Backend(fake.states, fake.checkpoints, fake.ledger, transcripts, erasure, fake.handoffs)
    from continuity_core.admin.dynamo_erase import DynamoErasureStore
    from continuity_core.checkpoints.dynamo_checkpoints import DynamoCheckpointStore
    from continuity_core.checkpoints.dynamo_ledger import DynamoLedgerStore
    from continuity_core.hooks.dynamo_state import DynamoStateStore
    from continuity_core.recovery.dynamo_handoffs import DynamoHandoffStore
    from continuity_core.transcripts.dynamo_transcripts import DynamoTranscriptStorage
    from continuity_core.transcripts.s3_bodies import S3BodyStore

    table, bodies = table_name(request), S3BodyStore(bucket_name(request))
    return Backend(
        DynamoStateStore(table, ttl=RETENTION, clock=clock),
        DynamoCheckpointStore(table, retention=RETENTION, clock=clock),
        DynamoLedgerStore(table),
        DynamoTranscriptStorage(table, bodies, RETENTION),
        DynamoErasureStore(table, bodies),
        DynamoHandoffStore(table, RETENTION, clock),
    )


def identity(session: str, project: str = PROJECT) -> SessionIdentity:
    return SessionIdentity(
        session_key=session, harness="claude-code", project=project, project_normalized=project
    )


def seed_session(b: Backend, agent: str, session: str, project: str = PROJECT) -> None:
    """A state, two checkpoints, a transcript with two appends and one S3 chunk, one decision."""
    b.states.record_prompt(agent, identity(session, project), PromptRecord("a prompt"), T0)
    for minute in (1, 2):
        b.checkpoints.put(agent, checkpoint(session, T0 + timedelta(minutes=minute), minute, project), T0, [])
    assert b.transcripts.start_head(agent, identity(session, project), T0)
    b.transcripts.put_append(agent, session, 0, "User: hello\n", T0, None)
    b.transcripts.put_append(agent, session, 12, "Assistant: hi\n", T0, None)
    head = b.transcripts.head(agent, session, T0, consistent=True)
    assert head is not None
    b.transcripts.put_chunk(agent, session, 0, "c0", "User: hello\n")
    assert b.transcripts.update_head(agent, identity(session, project), head, 26, T0, ChunkMove("c0", 12))
    b.ledger.append(agent, [decision(f"{session} chose postgres", T0, project, session)])


# -- what a session holds ------------------------------------------------------------------------


def test_a_sessions_contents_count_each_kind_and_name_its_project(backend: Backend, agent: str) -> None:
    seed_session(backend, agent, "s1")

    contents = backend.erasure.session_contents(agent, "s1")

    assert (contents.states, contents.checkpoints, contents.transcripts, contents.transcript_parts) == (
        1,
        2,
        1,
        2,
    )
    assert contents.chunk_ids == ("c0",)
    assert contents.projects == frozenset({PROJECT})
    assert len(contents.items) == 5 and not contents.deleted  # the state is not among them


def test_an_unknown_session_holds_nothing(backend: Backend, agent: str) -> None:
    contents = backend.erasure.session_contents(agent, "never-seen")
    assert contents.items == () and contents.projects == frozenset() and not contents.deleted


def test_a_tombstone_then_the_items_and_bodies_deleted_leave_nothing_readable_but_the_tombstone(
    backend: Backend, agent: str
) -> None:
    seed_session(backend, agent, "s1")
    contents = backend.erasure.session_contents(agent, "s1")

    backend.erasure.put_tombstone(agent, "s1", contents.projects, T0, T0 + timedelta(days=7))
    assert backend.erasure.delete_bodies(agent, "s1", contents.chunk_ids) == 1
    backend.erasure.delete_items(agent, "s1", contents.items)

    after = backend.erasure.session_contents(agent, "s1")
    assert after.items == () and after.deleted and after.states == 0
    assert backend.states.get(agent, "s1") is None and backend.states.deleted(agent, "s1")
    assert backend.checkpoints.list_for_session(agent, "s1", 10) == []
    assert backend.transcripts.head(agent, "s1", LATER, consistent=True) is None
    assert backend.transcripts.appends(agent, "s1", 0, consistent=True) == []
    with pytest.raises(TranscriptBodyMissingError):
        backend.transcripts.get_chunk(agent, "s1", 0, "c0")


# -- the tombstone ---------------------------------------------------------------------------------


def test_a_tombstone_refuses_every_later_state_write_and_reads_as_no_state(
    backend: Backend, agent: str
) -> None:
    # Given a deleted session
    seed_session(backend, agent, "s1")
    backend.erasure.put_tombstone(agent, "s1", frozenset({PROJECT}), T0, T0 + timedelta(days=7))

    # Then a late prompt, remember, touch or digest stores nothing
    with pytest.raises(SessionDeletedError):
        backend.states.record_prompt(agent, identity("s1"), PromptRecord("late", idempotency_key="k9"), LATER)
    with pytest.raises(SessionDeletedError):
        backend.states.record_remember(agent, identity("s1"), "late", LATER)
    with pytest.raises(SessionDeletedError):
        backend.states.touch(agent, identity("s1"), LATER)
    with pytest.raises(SessionDeletedError):
        backend.states.record_digest(agent, identity("s1"), LATER)
    assert backend.states.get(agent, "s1") is None and backend.states.get_many(agent, ["s1"]) == {}
    assert backend.states.deleted(agent, "s1") and not backend.states.deleted(agent, "s2")
    # And it remembers the projects, without counting as a state
    contents = backend.erasure.session_contents(agent, "s1")
    assert contents.deleted and contents.states == 0 and contents.projects == frozenset({PROJECT})


def test_a_checkpoint_commit_never_lands_on_a_tombstone(backend: Backend, agent: str) -> None:
    # Given the writer read a state that was then deleted
    backend.states.touch(agent, identity("s1"), T0)
    read = backend.states.get(agent, "s1")
    assert read is not None
    backend.erasure.put_tombstone(agent, "s1", frozenset({PROJECT}), T0, T0 + timedelta(days=7))

    # Then its commit is refused as a race, and nothing is written
    with pytest.raises(StateChangedError):
        backend.checkpoints.commit(agent, checkpoint("s1", T0 + timedelta(minutes=3)), read, LATER)
    assert backend.checkpoints.list_for_session(agent, "s1", 10) == []


def test_a_replayed_hook_is_still_a_duplicate_not_a_deletion(backend: Backend, agent: str) -> None:
    from continuity_core.hooks.ports import DuplicateHookError

    backend.states.record_prompt(agent, identity("s1"), PromptRecord("one", idempotency_key="k1"), T0)
    with pytest.raises(DuplicateHookError):
        backend.states.record_prompt(agent, identity("s1"), PromptRecord("one", idempotency_key="k1"), T0)


# -- a project ---------------------------------------------------------------------------------------


def test_a_projects_sessions_include_those_with_only_a_state(backend: Backend, agent: str) -> None:
    # Given a full session, one only started (no checkpoint, no transcript) and one elsewhere
    seed_session(backend, agent, "full")
    backend.states.touch(agent, identity("started-only"), T0)
    backend.states.touch(agent, identity("elsewhere", OTHER), T0)

    assert backend.erasure.project_sessions(agent, PROJECT) == {"full", "started-only"}
    assert backend.erasure.project_sessions(agent, OTHER) == {"elsewhere"}
    assert backend.erasure.delete_project_entries(agent, PROJECT, {"started-only", "full"}) == 2
    assert backend.erasure.delete_project_entries(agent, PROJECT, {"started-only"}) == 0
    assert backend.erasure.project_sessions(agent, PROJECT) == {"full"}  # by its checkpoints and transcript


def test_a_sessions_handoffs_go_with_its_project_entries_and_the_others_stay(
    backend: Backend, agent: str
) -> None:
    from tests.contract.test_handoff_store_contract import handoff

    mine, theirs = handoff("s1"), handoff("s2", minutes=1)
    backend.handoffs.put(agent, mine, close=[])
    backend.handoffs.put(agent, theirs, close=[])
    assert backend.erasure.delete_project_entries(agent, PROJECT, {"s1"}) == 1
    assert backend.handoffs.open_for_project(agent, PROJECT, 10) == [theirs]
    # the projects page counts only the hand-off that is left
    assert [p.open_handoffs for p in backend.states.projects(agent, 10)] == [1]


def test_a_deleted_project_record_is_listed_no_more_and_the_others_stay(backend: Backend, agent: str) -> None:
    backend.states.touch(agent, identity("mine"), T0)
    backend.states.touch(agent, identity("elsewhere", OTHER), T0)

    backend.erasure.delete_project_record(agent, PROJECT)

    assert [p.project_normalized for p in backend.states.projects(agent, 10)] == [OTHER]


def test_deleting_one_sessions_decisions_keeps_the_others_in_the_ledger_and_its_head(
    backend: Backend, agent: str
) -> None:
    backend.ledger.append(
        agent, [decision("s1 chose postgres", T0), decision("s2 chose redis", T0, session="s2")]
    )
    items = backend.erasure.ledger_items(agent, PROJECT)
    assert sorted(i.session_key or "" for i in items) == ["s1", "s2"]

    backend.erasure.delete_ledger_items(agent, PROJECT, [i for i in items if i.session_key == "s1"], "s1")

    assert [e.decision for e in backend.ledger.page(agent, PROJECT, 10).entries] == ["s2 chose redis"]
    head = backend.checkpoints.project_snapshot(agent, PROJECT, T0 - timedelta(days=1), 5).recent_decisions
    assert [e.decision for e in head] == ["s2 chose redis"]


def test_deleting_a_whole_ledger_takes_its_head(backend: Backend, agent: str) -> None:
    backend.ledger.append(agent, [decision("s1 chose postgres", T0)])
    backend.erasure.delete_ledger_items(agent, PROJECT, backend.erasure.ledger_items(agent, PROJECT), None)

    assert backend.ledger.page(agent, PROJECT, 10).entries == []
    assert (
        backend.checkpoints.project_snapshot(agent, PROJECT, T0 - timedelta(days=1), 5).recent_decisions == []
    )
