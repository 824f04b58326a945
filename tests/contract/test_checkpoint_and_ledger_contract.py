"""The CheckpointStore and LedgerStore contracts: the in-memory fakes and DynamoDB (moto) alike."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

import pytest

from continuity_core.checkpoints.dynamo_ledger import HEAD_DECISIONS
from continuity_core.checkpoints.ports import StateChangedError
from continuity_core.hooks.ports import PromptRecord
from continuity_core.kernel.expiry import TTL_GRACE, expiry
from continuity_core.models.checkpoint import Checkpoint
from continuity_core.models.checkpoint_trigger import CheckpointTrigger
from continuity_core.models.digest import LedgerEntry
from continuity_core.models.state import SessionIdentity
from tests.contract.conftest import T0, StoreSet
from tests.fakes.stores import RETENTION
from tests.support.clock import Clock

PROJECT = "/work/app"


def checkpoint(
    session: str, at: datetime, sequence: int = 1, project: str | None = PROJECT, trigger: str = "periodic"
) -> Checkpoint:
    return Checkpoint(
        id=str(uuid.uuid4()),
        session_key=session,
        harness="claude-code",
        project=project,
        project_normalized=project,
        trigger=CheckpointTrigger(trigger),
        digest=f"## Session Checkpoint\n{session} at {at.isoformat()}",
        prompt_count=1,
        sequence=sequence,
        created_at=at,
    )


def decision(text: str, at: datetime, project: str = PROJECT, session: str = "s1") -> LedgerEntry:
    return LedgerEntry(
        id=str(uuid.uuid4()), project_normalized=project, session_key=session, decision=text, created_at=at
    )


def minutes(n: int) -> datetime:
    return T0 + timedelta(minutes=n)


def ids(checkpoints: list[Checkpoint]) -> list[str]:
    return [c.id for c in checkpoints]


# -- checkpoints -----------------------------------------------------------------------------------


def test_a_commit_writes_the_checkpoint_and_resets_what_it_consumed(stores: StoreSet, agent: str) -> None:
    identity = SessionIdentity(
        session_key="s1", harness="claude-code", project=PROJECT, project_normalized=PROJECT
    )
    stores.states.record_prompt(agent, identity, PromptRecord("one"), T0)
    stores.states.record_remember(agent, identity, "note", T0)
    stores.states.claim_flush(agent, "s1", "t1", T0, stale_before=T0)
    consumed = stores.states.get(agent, "s1")
    assert consumed is not None
    written = checkpoint("s1", minutes(1))
    stores.checkpoints.commit(agent, written, consumed, minutes(1))
    state = stores.states.get(agent, "s1")
    assert state is not None
    assert (state.prompts_since_checkpoint, state.pending_snippets, state.pending_remembers) == (0, [], [])
    assert state.pending_remember_at == []
    assert (state.last_checkpoint_at, state.last_checkpoint_trigger) == (minutes(1), "periodic")
    assert (state.flush_token, state.checkpoints_written, state.version) == (None, 1, consumed.version + 1)
    assert state.total_prompts == 1
    assert stores.checkpoints.latest_for_session(agent, "s1") == written


def test_after_a_commit_the_next_prompt_and_remember_start_the_pending_lists_again(
    stores: StoreSet, agent: str
) -> None:
    identity = SessionIdentity(session_key="s1", harness="claude-code")
    stores.states.record_prompt(agent, identity, PromptRecord("one"), T0)
    consumed = stores.states.get(agent, "s1")
    assert consumed is not None
    stores.checkpoints.commit(agent, checkpoint("s1", minutes(1)), consumed, minutes(1))
    stores.states.record_prompt(agent, identity, PromptRecord("two"), minutes(2))
    state = stores.states.record_remember(agent, identity, "note", minutes(3))
    assert (state.pending_snippets, state.pending_remembers, state.pending_remember_at) == (
        ["two"],
        ["note"],
        [minutes(3)],
    )
    assert state.prompts_since_checkpoint == 1


def test_a_commit_on_a_state_that_moved_on_writes_nothing(stores: StoreSet, agent: str) -> None:
    identity = SessionIdentity(session_key="s1", harness="claude-code")
    stores.states.record_prompt(agent, identity, PromptRecord("one"), T0)
    read = stores.states.get(agent, "s1")
    assert read is not None
    stores.states.record_prompt(agent, identity, PromptRecord("two"), minutes(1))  # lands meanwhile
    with pytest.raises(StateChangedError):
        stores.checkpoints.commit(agent, checkpoint("s1", minutes(2)), read, minutes(2))
    assert stores.checkpoints.latest_for_session(agent, "s1") is None
    state = stores.states.get(agent, "s1")
    assert state is not None and state.pending_snippets == ["one", "two"]


def test_a_commit_of_a_state_only_touched_goes_through(stores: StoreSet, agent: str) -> None:
    # A session seen only at its start (or by a digest) has no version yet: it reads as 0
    state = stores.states.touch(agent, SessionIdentity(session_key="s1", harness="claude-code"), T0)
    stores.checkpoints.commit(agent, checkpoint("s1", minutes(1)), state, minutes(1))
    assert stores.checkpoints.latest_for_session(agent, "s1") is not None


def test_a_commit_retried_after_it_landed_is_written_once(stores: StoreSet, agent: str) -> None:
    # botocore retries a write whose answer was lost; the retry finds its own work done
    identity = SessionIdentity(session_key="s1", harness="claude-code")
    stores.states.record_prompt(agent, identity, PromptRecord("one"), T0)
    consumed = stores.states.get(agent, "s1")
    assert consumed is not None
    written = checkpoint("s1", minutes(1))
    stores.checkpoints.commit(agent, written, consumed, minutes(1))
    stores.checkpoints.commit(agent, written, consumed, minutes(1))
    assert ids(stores.checkpoints.list_for_session(agent, "s1", 10)) == [written.id]
    state = stores.states.get(agent, "s1")
    assert state is not None
    assert (state.version, state.checkpoints_written, state.pending_snippets) == (consumed.version + 1, 1, [])


def test_a_later_commit_of_the_same_state_is_a_race_and_leaves_no_checkpoint(
    stores: StoreSet, agent: str
) -> None:
    # Another writer consumed this state first: this one's checkpoint is taken back
    identity = SessionIdentity(session_key="s1", harness="claude-code")
    stores.states.record_prompt(agent, identity, PromptRecord("one"), T0)
    consumed = stores.states.get(agent, "s1")
    assert consumed is not None
    first = checkpoint("s1", minutes(1))
    stores.checkpoints.commit(agent, first, consumed, minutes(1))
    with pytest.raises(StateChangedError):
        stores.checkpoints.commit(agent, checkpoint("s1", minutes(2)), consumed, minutes(2))
    assert ids(stores.checkpoints.list_for_session(agent, "s1", 10)) == [first.id]


def test_a_commit_that_loses_its_race_evicts_nothing_over_the_cap(stores: StoreSet, agent: str) -> None:
    first = checkpoint("s1", minutes(1), 1)
    stores.checkpoints.put(agent, first, minutes(1), evict=[])
    identity = SessionIdentity(session_key="s1", harness="claude-code")
    stores.states.record_prompt(agent, identity, PromptRecord("one"), T0)
    read = stores.states.get(agent, "s1")
    assert read is not None
    stores.states.record_prompt(agent, identity, PromptRecord("two"), minutes(2))  # lands meanwhile
    with pytest.raises(StateChangedError):
        stores.checkpoints.commit(agent, checkpoint("s1", minutes(3), 2), read, minutes(3), evict=[first])
    assert ids(stores.checkpoints.list_for_session(agent, "s1", 10)) == [first.id]


def test_evicted_checkpoints_go_once_the_new_one_is_in(stores: StoreSet, agent: str) -> None:
    first, second = checkpoint("s1", minutes(1), 1), checkpoint("s1", minutes(2), 2)
    stores.checkpoints.put(agent, first, minutes(1), evict=[])
    stores.checkpoints.put(agent, second, minutes(2), evict=[])
    state = stores.states.touch(agent, SessionIdentity(session_key="s1", harness="claude-code"), T0)
    third = checkpoint("s1", minutes(3), 3)
    stores.checkpoints.commit(agent, third, state, minutes(3), evict=[first])
    assert ids(stores.checkpoints.list_for_session(agent, "s1", 10)) == [second.id, third.id]


def test_a_sessions_checkpoints_read_newest_first_or_oldest_first(stores: StoreSet, agent: str) -> None:
    written = [checkpoint("s1", minutes(n), n + 1) for n in range(4)]
    for c in written:
        stores.checkpoints.put(agent, c, c.created_at, evict=[])
    stores.checkpoints.put(agent, checkpoint("s2", minutes(9)), minutes(9), evict=[])
    assert ids(stores.checkpoints.recent_for_session(agent, "s1", 3)) == ids(written[::-1][:3])
    assert ids(stores.checkpoints.list_for_session(agent, "s1", 3)) == ids(written[:3])
    latest = stores.checkpoints.latest_for_session(agent, "s1")
    assert latest is not None and latest.id == written[-1].id


def test_a_checkpoint_reads_back_as_written(stores: StoreSet, agent: str) -> None:
    written = checkpoint("s1", minutes(1)).model_copy(
        update={"summary": "state é", "next_steps": ["a", "b"], "recent_remembers": ["r"], "first_prompt": 1}
    )
    stores.checkpoints.put(agent, written, minutes(1), evict=[])
    assert stores.checkpoints.recent_for_session(agent, "s1", 1) == [written]


def test_a_checkpoint_keeps_where_its_session_ran_in_the_project_listing(
    stores: StoreSet, agent: str
) -> None:
    origin = {
        "project_path": "/home/ana/shop",
        "branch": "fix/refunds",
        "machine_id": "a" * 32,
        "machine_name": "ana-laptop",
        "user": "ana",
    }
    written = checkpoint("s1", minutes(1)).model_copy(update=origin)
    stores.checkpoints.put(agent, written, minutes(1), evict=[])
    assert stores.checkpoints.project_snapshot(agent, PROJECT, T0, 5).checkpoints == [written]


def test_the_project_snapshot_has_checkpoints_since_newest_first_and_the_newest_decisions(
    stores: StoreSet, agent: str
) -> None:
    for n, session in enumerate(["a", "b", "c", "d"]):
        stores.checkpoints.put(agent, checkpoint(session, minutes(n)), minutes(n), evict=[])
    stores.checkpoints.put(agent, checkpoint("x", minutes(5), project="/work/other"), minutes(5), evict=[])
    stores.ledger.append(agent, [decision("use uv", minutes(1)), decision("no ORMs", minutes(2))])
    snapshot = stores.checkpoints.project_snapshot(agent, PROJECT, since=minutes(1), limit=2)
    assert [c.session_key for c in snapshot.checkpoints] == ["d", "c"]
    assert [d.decision for d in snapshot.recent_decisions] == ["no ORMs", "use uv"]
    everything = stores.checkpoints.project_snapshot(agent, PROJECT, since=minutes(1), limit=10)
    assert [c.session_key for c in everything.checkpoints] == ["d", "c", "b"]
    assert [c.session_key for c in stores.checkpoints.list_for_project(agent, PROJECT, 3)] == ["d", "c", "b"]


def test_reads_leave_out_checkpoints_past_their_ttl(stores: StoreSet, agent: str, clock: Clock) -> None:
    old, new = checkpoint("s1", T0, 1), checkpoint("s1", T0 + RETENTION, 2)
    stores.checkpoints.put(agent, old, T0, evict=[])
    stores.checkpoints.put(agent, new, new.created_at, evict=[])
    clock.now = T0 + RETENTION + timedelta(days=2)
    assert ids(stores.checkpoints.recent_for_session(agent, "s1", 5)) == [new.id]
    assert ids(stores.checkpoints.list_for_session(agent, "s1", 5)) == [new.id]
    assert ids(stores.checkpoints.list_for_project(agent, PROJECT, 5)) == [new.id]


def test_a_checkpoint_reads_until_its_prunable_instant_and_not_a_second_after(
    stores: StoreSet, agent: str, clock: Clock
) -> None:
    # Given a checkpoint made at 09:00 (its retention runs out in the bucket closing at 12:00)
    made = checkpoint("s1", T0)
    stores.checkpoints.put(agent, made, T0, evict=[])
    instant = expiry(T0, RETENTION).prunable
    # When reads come at that instant, then one second later
    clock.now = instant
    assert ids(stores.checkpoints.recent_for_session(agent, "s1", 5)) == [made.id]
    clock.now = instant + timedelta(seconds=1)
    # Then it is gone from every read (TTL, not the pruner, deletes it: it may still be stored)
    assert stores.checkpoints.latest_for_session(agent, "s1") is None
    assert stores.checkpoints.list_for_session(agent, "s1", 5) == []
    assert stores.checkpoints.list_for_project(agent, PROJECT, 5) == []
    assert stores.checkpoints.project_snapshot(agent, PROJECT, T0, 5).checkpoints == []


def test_checkpoints_are_per_tenant(stores: StoreSet, agent: str) -> None:
    stores.checkpoints.put(agent, checkpoint("s1", T0), T0, evict=[])
    other = agent + "-other"
    assert stores.checkpoints.latest_for_session(other, "s1") is None
    assert stores.checkpoints.project_snapshot(other, PROJECT, T0, 5).checkpoints == []


# -- the ledger ------------------------------------------------------------------------------------


def test_the_ledger_pages_newest_first_through_every_decision_once(stores: StoreSet, agent: str) -> None:
    stores.ledger.append(agent, [decision(f"d{n}", minutes(n)) for n in range(5)])
    stores.ledger.append(agent, [decision("elsewhere", minutes(9), project="/work/other")])
    seen: list[str] = []
    token: str | None = None
    for _ in range(5):
        page = stores.ledger.page(agent, PROJECT, 2, token)
        assert len(page.entries) <= 2
        seen += [e.decision for e in page.entries]
        token = page.next_token
        if token is None:
            break
    assert seen == ["d4", "d3", "d2", "d1", "d0"]


def test_a_ledger_entry_reads_back_as_written(stores: StoreSet, agent: str) -> None:
    written = decision("use uv", T0).model_copy(update={"rationale": "fast é"})
    stores.ledger.append(agent, [written])
    assert stores.ledger.page(agent, PROJECT, 5).entries == [written]


def test_a_ledger_token_not_handed_out_is_refused(stores: StoreSet, agent: str) -> None:
    with pytest.raises(ValueError):
        stores.ledger.page(agent, PROJECT, 2, "garbage!")


def test_the_snapshot_keeps_the_newest_decisions_however_many_there_are(stores: StoreSet, agent: str) -> None:
    for batch in range(3):
        numbers = range(batch * HEAD_DECISIONS, (batch + 1) * HEAD_DECISIONS)
        stores.ledger.append(agent, [decision(f"d{n}", minutes(n)) for n in numbers])
    decisions = stores.checkpoints.project_snapshot(agent, PROJECT, T0, 1).recent_decisions
    assert HEAD_DECISIONS <= len(decisions) <= 2 * HEAD_DECISIONS
    newest = [f"d{n}" for n in reversed(range(3 * HEAD_DECISIONS))]
    assert [d.decision for d in decisions] == newest[: len(decisions)]


def test_the_ledger_is_per_tenant(stores: StoreSet, agent: str) -> None:
    stores.ledger.append(agent, [decision("mine", T0)])
    assert stores.ledger.page(agent + "-other", PROJECT, 5).entries == []


def test_a_checkpoint_body_written_with_zlib_alone_before_the_dictionary_still_reads(
    request: pytest.FixtureRequest, agent: str, clock: Clock
) -> None:
    # DynamoDB only: the body's format (each checkpoint's write is billed by its size).
    import zlib

    from continuity_core.checkpoints.dynamo_checkpoints import DynamoCheckpointStore
    from continuity_core.kernel.aws import client
    from continuity_core.kernel.dynamo_items import (
        TEXT_DICTIONARY_V1,
        checkpoint_sk,
        decompress_text,
        item_key,
        session_pk,
    )
    from tests.contract.conftest import table_name

    table = table_name(request)
    store = DynamoCheckpointStore(table, retention=RETENTION, clock=clock)
    written = checkpoint("s1", minutes(1)).model_copy(update={"summary": "state é", "next_steps": ["a"]})
    store.put(agent, written, minutes(1), evict=[])
    key = item_key(session_pk(agent, "s1"), checkpoint_sk(written.created_at, written.id))
    body = bytes(client("dynamodb").get_item(TableName=table, Key=key)["Item"]["body"]["B"])
    assert body[0] == TEXT_DICTIONARY_V1
    # Given the same body as the version before stored it (zlib alone)
    client("dynamodb").update_item(
        TableName=table,
        Key=key,
        UpdateExpression="SET body = :old",
        ExpressionAttributeValues={":old": {"B": zlib.compress(decompress_text(body).encode(), 6)}},
    )
    # Then it reads back as written
    assert store.recent_for_session(agent, "s1", 1) == [written]


def test_a_checkpoints_ttl_is_its_prunable_instant_and_one_written_before_reads_as_gone_on_time(
    request: pytest.FixtureRequest, agent: str, clock: Clock
) -> None:
    # DynamoDB only: the stored TTL (DynamoDB's TTL deletes checkpoints, the pruner does not).
    from continuity_core.checkpoints.dynamo_checkpoints import DynamoCheckpointStore
    from continuity_core.kernel.aws import client
    from continuity_core.kernel.dynamo_items import checkpoint_sk, item_key, session_pk
    from continuity_core.kernel.names import TTL_ATTRIBUTE
    from tests.contract.conftest import table_name

    table = table_name(request)
    store = DynamoCheckpointStore(table, retention=RETENTION, clock=clock)
    written = checkpoint("s1", T0)
    store.put(agent, written, T0, evict=[])
    key = item_key(session_pk(agent, "s1"), checkpoint_sk(written.created_at, written.id))
    instant = expiry(T0, RETENTION).prunable
    stored = client("dynamodb").get_item(TableName=table, Key=key)["Item"]
    assert int(stored[TTL_ATTRIBUTE]["N"]) == int(instant.timestamp())
    # Given the TTL the version before wrote (a day after the instant)
    client("dynamodb").update_item(
        TableName=table,
        Key=key,
        UpdateExpression=f"SET {TTL_ATTRIBUTE} = :old",
        ExpressionAttributeValues={":old": {"N": str(int((instant + TTL_GRACE).timestamp()))}},
    )
    # Then reads still stop returning it at its bucket's end, not a day later
    clock.now = instant
    assert ids(store.recent_for_session(agent, "s1", 5)) == [written.id]
    clock.now = instant + timedelta(seconds=1)
    assert store.recent_for_session(agent, "s1", 5) == []
    assert store.list_for_session(agent, "s1", 5) == []
    assert store.list_for_project(agent, PROJECT, 5) == []
    assert store.project_snapshot(agent, PROJECT, T0, 5).checkpoints == []
