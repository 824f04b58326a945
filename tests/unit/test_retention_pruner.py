"""The pruner's rules against an in-memory store, time moved by an injected clock."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import pytest

from continuity_core.config import load_config
from continuity_core.logic.retention import (
    BUCKET_SPAN,
    ExpiringItem,
    Expiry,
    ItemKind,
    Lease,
    Pruner,
    expiry,
)

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)
RETENTION = timedelta(days=7)
TRANSCRIPT_RETENTION = timedelta(days=3)


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


@dataclass
class Stored:
    kind: ItemKind
    bucket: str
    chunk_ids: tuple[str, ...] = ()


@dataclass
class FakeStore:
    """The RetentionStore contract in memory; records the per-session lookups it answers."""

    items: dict[tuple[str, str], Stored] = field(default_factory=dict)
    activity: dict[str, datetime] = field(default_factory=dict)
    cursor: datetime | None = None
    lease_until: datetime | None = None
    lookups: list[tuple[str, str]] = field(default_factory=list)
    bodies_deleted: list[str] = field(default_factory=list)
    items_read: int = 0
    fail_in_bucket: str | None = None

    # -- seeding ---------------------------------------------------------------------------------

    def checkpoint(self, session: str, made_at: datetime) -> str:
        item_id = f"CP#{made_at.isoformat()}"
        self.items[(session, item_id)] = Stored(ItemKind.CHECKPOINT, expiry(made_at, RETENTION).bucket)
        return item_id

    def state(self, session: str, last_activity: datetime) -> None:
        self.items[(session, "STATE")] = Stored(ItemKind.STATE, expiry(last_activity, RETENTION).bucket)
        self.activity[session] = last_activity

    def transcript(self, session: str, updated_at: datetime, chunks: int = 0) -> None:
        self.items[(session, "TRANSCRIPT")] = Stored(
            ItemKind.TRANSCRIPT,
            expiry(updated_at, TRANSCRIPT_RETENTION).bucket,
            tuple(f"c{n}" for n in range(chunks)),
        )

    def injection(self, session: str, at: datetime) -> None:
        self.items[(session, f"INJECTION#{at.isoformat()}")] = Stored(
            ItemKind.INJECTION, expiry(at, RETENTION).bucket
        )

    def checkpoints(self, session: str) -> list[str]:
        return sorted(i for (s, i), v in self.items.items() if s == session and v.kind is ItemKind.CHECKPOINT)

    # -- the contract ----------------------------------------------------------------------------

    def acquire(self, now: datetime, until: datetime) -> Lease | None:
        if self.lease_until is not None and self.lease_until >= now:
            return None
        self.lease_until = until
        self.items_read += 1
        return Lease(token="t", cursor=self.cursor)

    def save(self, lease: Lease, cursor: datetime, release: bool) -> None:
        self.cursor = cursor
        if release:
            self.lease_until = None

    def expiring(self, bucket: Expiry) -> Iterator[ExpiringItem]:
        if bucket.bucket == self.fail_in_bucket:
            raise RuntimeError("storage failed")
        due = sorted(key for key, item in self.items.items() if item.bucket == bucket.bucket)
        for session, item_id in due:
            item = self.items[(session, item_id)]
            self.items_read += 1
            yield ExpiringItem(item.kind, "agent", session, item_id, item.bucket, item.chunk_ids)

    def delete_if_unmoved(self, item: ExpiringItem) -> bool:
        stored = self.items.get((item.session_key, item.item_id))
        if stored is None or stored.bucket != item.bucket:
            return False
        del self.items[(item.session_key, item.item_id)]
        return True

    def delete_checkpoints(self, items: list[ExpiringItem]) -> None:
        for item in items:
            self.items.pop((item.session_key, item.item_id), None)

    def delete_bodies(self, item: ExpiringItem) -> int:
        self.bodies_deleted += [f"{item.session_key}/{c}" for c in item.chunk_ids]
        return len(item.chunk_ids)

    def newest_checkpoint(self, agent_id: str, session_key: str) -> str | None:
        self.lookups.append(("newest", session_key))
        found = self.checkpoints(session_key)
        self.items_read += bool(found)
        return found[-1] if found else None

    def last_activity(self, agent_id: str, session_key: str) -> datetime | None:
        self.lookups.append(("activity", session_key))
        if (session_key, "STATE") not in self.items:
            return None
        self.items_read += 1
        return self.activity[session_key]

    def keep(self, item: ExpiringItem, until: Expiry) -> None:
        self.items[(item.session_key, item.item_id)].bucket = until.bucket


@pytest.fixture
def store() -> FakeStore:
    return FakeStore()


@pytest.fixture
def clock() -> Clock:
    return Clock(T0)


@pytest.fixture
def pruner(store: FakeStore, clock: Clock) -> Pruner:
    config = load_config({"retention_days": 7, "transcript_retention_days": 3})
    # As a pruner that has been running has it: the next bucket is the day before the tests' due ones.
    store.cursor = T0 + RETENTION - timedelta(days=1)
    return Pruner(store, config, clock)


def test_an_ended_session_goes_whole_once_its_last_activity_is_past_the_window(
    store: FakeStore, clock: Clock, pruner: Pruner
) -> None:
    # Given a session with three checkpoints and its state, last active at 12:00
    made = [store.checkpoint("ended", T0 + timedelta(hours=h)) for h in (1, 2, 3)]
    store.state("ended", T0 + timedelta(hours=3))
    # When the pruner runs after its retention (and bucket) ran out
    clock.now = T0 + RETENTION + timedelta(hours=9)
    report = pruner.run()
    # Then the state and every checkpoint are gone, with no per-session lookup
    assert store.items == {}
    assert report.deleted[ItemKind.CHECKPOINT] == len(made)
    assert report.deleted[ItemKind.STATE] == 1
    assert store.lookups == []


def test_nothing_goes_before_its_bucket_closes(store: FakeStore, clock: Clock, pruner: Pruner) -> None:
    # Given a checkpoint made at 10:00 (prunable at the 18:00 boundary seven days later)
    store.checkpoint("s", T0 + timedelta(hours=1))
    store.state("s", T0 + timedelta(hours=1))
    # When the pruner runs seven days and one hour later (past 7 days, before the boundary)
    clock.now = T0 + RETENTION + timedelta(hours=2)
    report = pruner.run()
    # Then nothing is deleted yet
    assert report.deleted.total() == 0
    assert len(store.items) == 2


def test_an_active_sessions_older_checkpoints_go_without_lookups_and_its_newest_is_kept(
    store: FakeStore, clock: Clock, pruner: Pruner
) -> None:
    # Given a session whose only checkpoints are eight days old, active again yesterday
    older = store.checkpoint("active", T0 + timedelta(hours=1))
    newest = store.checkpoint("active", T0 + timedelta(hours=2))
    store.state("active", T0 + timedelta(days=7))
    # When the pruner runs
    clock.now = T0 + RETENTION + timedelta(hours=9)
    report = pruner.run()
    # Then the older checkpoint went, the newest is kept until the state's own expiry
    assert store.checkpoints("active") == [newest]
    assert older not in store.checkpoints("active")
    assert store.items[("active", newest)].bucket == expiry(T0 + timedelta(days=7), RETENTION).bucket
    assert report.kept_latest == 1
    assert store.lookups == [("newest", "active"), ("activity", "active")]


def test_the_kept_checkpoint_goes_with_the_state_once_the_session_is_inactive(
    store: FakeStore, clock: Clock, pruner: Pruner
) -> None:
    # Given an active session's newest checkpoint, kept by a first run
    store.checkpoint("active", T0 + timedelta(hours=1))
    store.state("active", T0 + timedelta(days=5))
    clock.now = T0 + RETENTION + timedelta(hours=9)
    assert pruner.run().kept_latest == 1
    # When the pruner runs after the session's last activity left the window
    clock.now = T0 + timedelta(days=5) + RETENTION + timedelta(hours=7)
    report = pruner.run()
    # Then the checkpoint and the state are gone together
    assert store.items == {}
    assert (report.deleted[ItemKind.CHECKPOINT], report.deleted[ItemKind.STATE]) == (1, 1)


def test_an_expired_checkpoint_with_a_newer_one_goes_even_if_it_is_the_buckets_last(
    store: FakeStore, clock: Clock, pruner: Pruner
) -> None:
    # Given an old checkpoint and a fresh one of the same live session
    store.checkpoint("s", T0 + timedelta(hours=1))
    fresh = store.checkpoint("s", T0 + timedelta(days=6))
    store.state("s", T0 + timedelta(days=6))
    # When the pruner runs past the old one's retention
    clock.now = T0 + RETENTION + timedelta(hours=9)
    report = pruner.run()
    # Then only the old one went, after one lookup (no state read)
    assert store.checkpoints("s") == [fresh]
    assert report.kept_latest == 0
    assert store.lookups == [("newest", "s")]


def test_a_newest_checkpoint_without_a_state_goes(store: FakeStore, clock: Clock, pruner: Pruner) -> None:
    # Given a checkpoint whose session state is already gone (pruned in an earlier bucket)
    store.checkpoint("orphan", T0 + timedelta(hours=7))
    # When the pruner runs past its retention
    clock.now = T0 + RETENTION + timedelta(hours=19)
    pruner.run()
    # Then it goes
    assert store.checkpoints("orphan") == []


def test_a_state_that_moved_since_the_bucket_was_read_stays_and_keeps_the_newest(
    store: FakeStore, clock: Clock, pruner: Pruner, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a session due for pruning, and a prompt that lands while the bucket is being read
    newest = store.checkpoint("s", T0 + timedelta(hours=1))
    store.state("s", T0 + timedelta(hours=1))
    clock.now = T0 + RETENTION + timedelta(hours=9)
    original = store.expiring

    def prompt_lands(bucket: Expiry) -> Iterator[ExpiringItem]:
        items = list(original(bucket))
        store.state("s", clock.now)  # the prompt moves the state to a later bucket
        yield from items

    monkeypatch.setattr(store, "expiring", prompt_lands)
    # When the pruner goes on with what it read
    report = pruner.run()
    # Then the state is not deleted, and the session's newest checkpoint is kept
    assert ("s", "STATE") in store.items
    assert store.checkpoints("s") == [newest]
    assert (report.deleted[ItemKind.STATE], report.kept_latest) == (0, 1)


def test_a_transcript_goes_with_its_bodies_after_its_own_retention(
    store: FakeStore, clock: Clock, pruner: Pruner
) -> None:
    # Given a transcript last appended to at 10:00, with two chunks in S3, and a checkpoint
    store.cursor = T0
    store.transcript("s", T0 + timedelta(hours=1), chunks=2)
    store.checkpoint("s", T0 + timedelta(hours=1))
    store.state("s", T0 + timedelta(hours=1))
    # When the pruner runs after the transcript retention (3 days), before the checkpoint's (7)
    clock.now = T0 + TRANSCRIPT_RETENTION + timedelta(hours=9)
    report = pruner.run()
    # Then the transcript and its bodies are gone, the checkpoint and state stay
    assert ("s", "TRANSCRIPT") not in store.items
    assert store.bodies_deleted == ["s/c0", "s/c1"]
    assert report.deleted[ItemKind.TRANSCRIPT_BODY] == 2
    assert len(store.checkpoints("s")) == 1 and ("s", "STATE") in store.items


def test_a_transcript_appended_to_since_the_bucket_was_read_stays(
    store: FakeStore, clock: Clock, pruner: Pruner, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.cursor = T0
    store.transcript("s", T0 + timedelta(hours=1), chunks=1)
    clock.now = T0 + TRANSCRIPT_RETENTION + timedelta(hours=9)
    original = store.expiring

    def append_lands(bucket: Expiry) -> Iterator[ExpiringItem]:
        items = list(original(bucket))
        store.transcript("s", clock.now, chunks=1)
        yield from items

    monkeypatch.setattr(store, "expiring", append_lands)

    pruner.run()

    assert ("s", "TRANSCRIPT") in store.items
    assert store.bodies_deleted == []


def test_a_second_run_deletes_nothing_more(store: FakeStore, clock: Clock, pruner: Pruner) -> None:
    # Given a run that pruned an ended session and kept an active one's newest
    store.checkpoint("ended", T0 + timedelta(hours=1))
    store.state("ended", T0 + timedelta(hours=1))
    store.checkpoint("active", T0 + timedelta(hours=1))
    store.state("active", T0 + timedelta(days=6))
    clock.now = T0 + RETENTION + timedelta(hours=9)
    first = pruner.run()
    left = dict(store.items)
    # When it runs again at the same time
    second = pruner.run()
    # Then nothing more goes and nothing fails
    assert first.deleted.total() == 2 and first.kept_latest == 1
    assert second.deleted.total() == 0 and second.kept_latest == 0 and second.buckets == 0
    assert store.items == left


def test_a_run_while_another_holds_the_lease_is_skipped(
    store: FakeStore, clock: Clock, pruner: Pruner
) -> None:
    store.lease_until = clock.now + timedelta(minutes=5)

    report = pruner.run()

    assert report.skipped and report.buckets == 0


def test_a_run_out_of_time_stops_between_buckets_and_the_next_goes_on(
    store: FakeStore, clock: Clock, pruner: Pruner
) -> None:
    # Given two sessions due in consecutive buckets
    store.checkpoint("a", T0 + timedelta(hours=1))
    store.checkpoint("b", T0 + timedelta(hours=7))
    store.cursor = expiry(T0 + timedelta(hours=1), RETENTION).prunable
    clock.now = T0 + RETENTION + timedelta(days=1)
    # When a run may do one bucket only
    calls = iter([False, True])
    first = pruner.run(should_stop=lambda: next(calls, True))
    # Then it saved where it stopped, and the next run finishes
    assert not first.caught_up
    assert store.checkpoints("a") == [] and store.checkpoints("b") != []
    assert store.lease_until is None
    second = pruner.run()
    assert second.caught_up and store.checkpoints("b") == []


def test_a_failed_bucket_is_retried_by_the_next_run(store: FakeStore, clock: Clock, pruner: Pruner) -> None:
    # Given a bucket whose read fails
    store.checkpoint("s", T0 + timedelta(hours=1))
    due = expiry(T0 + timedelta(hours=1), RETENTION)
    store.fail_in_bucket = due.bucket
    clock.now = T0 + RETENTION + timedelta(hours=9)
    # When a run fails on it
    with pytest.raises(RuntimeError):
        pruner.run()
    # Then the lease is given back and the cursor stays on that bucket
    assert store.lease_until is None
    assert store.cursor == due.prunable
    store.fail_in_bucket = None
    assert pruner.run().deleted[ItemKind.CHECKPOINT] == 1


def test_a_first_run_looks_back_as_far_as_anything_can_be_before_its_ttl(clock: Clock) -> None:
    # Given a store the pruner never ran on, with a checkpoint due 7 days ago and one due 9 days ago
    store = FakeStore()
    store.checkpoint("recent", T0)
    store.checkpoint("ancient", T0 - timedelta(days=2))
    clock.now = T0 + RETENTION + RETENTION
    config = load_config({"retention_days": 7, "transcript_retention_days": 3})
    # When it runs
    Pruner(store, config, clock).run()
    # Then what is due within retention + grace went; older is left to TTL (already past it)
    assert store.checkpoints("recent") == []
    assert store.checkpoints("ancient") != []
    assert store.cursor is not None and store.cursor > clock.now - BUCKET_SPAN


def test_the_report_counts_what_it_read(store: FakeStore, clock: Clock, pruner: Pruner) -> None:
    # Given an ended session whose items all fall in one bucket
    for hour in range(4, 8):
        store.checkpoint("ended", T0 + timedelta(hours=hour))
    store.state("ended", T0 + timedelta(hours=8))
    clock.now = T0 + RETENTION + timedelta(hours=9)

    report = pruner.run()

    # Then it read the lease (1) and the five index entries, for five deletes
    assert (report.items_read, report.deleted.total()) == (6, 5)
    assert report.as_dict()["deleted"] == {
        "checkpoint": 4,
        "state": 1,
        "transcript": 0,
        "transcript_body": 0,
        "injection": 0,
    }


def test_a_sessions_injections_go_with_its_retention_even_while_its_newest_checkpoint_stays(
    store: FakeStore, clock: Clock, pruner: Pruner
) -> None:
    # Given a session still active whose start's injection and first checkpoint are past the window
    store.injection("live", T0 + timedelta(hours=1))
    store.checkpoint("live", T0 + timedelta(hours=1))
    store.state("live", T0 + RETENTION)
    # When the pruner runs after the injection's retention ran out
    clock.now = T0 + RETENTION + timedelta(hours=9)
    report = pruner.run()
    # Then the injection is gone, the newest checkpoint kept
    assert report.deleted[ItemKind.INJECTION] == 1
    assert report.kept_latest == 1
    assert [i for (_, i) in store.items if i.startswith("INJECTION#")] == []
