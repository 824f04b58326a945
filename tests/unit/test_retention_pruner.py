"""The pruner's rules against an in-memory store, time moved by an injected clock.

The fake stores what DynamoDB would: a checkpoint or injection past its bucket's end (its TTL) is
hidden from reads and left for TTL to delete, so ``visible`` is what a read returns and
``stored`` what the pruner left (TTL takes the rest, for free)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import pytest

from continuity_core.kernel.config import load_config
from continuity_core.kernel.expiry import BUCKET_SPAN, Expiry, bucket_end, expiry
from continuity_core.retention.ports import ExpiringItem, ItemKind, Lease
from continuity_core.retention.retention import LOOK_AHEAD, Pruner

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
        """Stored (visible or waiting for TTL)."""
        return sorted(i for (s, i), v in self.items.items() if s == session and v.kind is ItemKind.CHECKPOINT)

    def visible(self, session: str, now: datetime, kind: ItemKind = ItemKind.CHECKPOINT) -> list[str]:
        """What reads return at ``now``: hidden past the bucket's end (the item's TTL)."""
        return sorted(
            i
            for (s, i), v in self.items.items()
            if s == session and v.kind is kind and bucket_end(v.bucket) >= now
        )

    def ttl_sweep(self, now: datetime) -> None:
        """DynamoDB's TTL: deletes checkpoints and injections past their TTL (whenever it likes)."""
        for key, item in list(self.items.items()):
            if item.kind in (ItemKind.CHECKPOINT, ItemKind.INJECTION) and bucket_end(item.bucket) < now:
                del self.items[key]

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

    def delete_bodies(self, item: ExpiringItem) -> int:
        self.bodies_deleted += [f"{item.session_key}/{c}" for c in item.chunk_ids]
        return len(item.chunk_ids)

    def newest_checkpoint(self, agent_id: str, session_key: str) -> str | None:
        self.lookups.append(("newest", session_key))
        found = self.checkpoints(session_key)  # the adapter's Query sees what TTL has not deleted
        self.items_read += bool(found)
        return found[-1] if found else None

    def last_activity(self, agent_id: str, session_key: str) -> datetime | None:
        self.lookups.append(("activity", session_key))
        if (session_key, "STATE") not in self.items:
            return None
        self.items_read += 1
        return self.activity[session_key]

    def keep(self, item: ExpiringItem, until: Expiry) -> None:
        self.lookups.append(("keep", item.session_key))
        stored = self.items.get((item.session_key, item.item_id))
        if stored is not None:  # never re-created once TTL took it
            stored.bucket = until.bucket


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


def hourly(pruner: Pruner, clock: Clock, until: datetime, check: Callable[[], None] = lambda: None) -> None:
    """Runs the pruner every hour (at half past) up to ``until``, ``check`` after each run."""
    clock.now = clock.now.replace(minute=30, second=0, microsecond=0)
    while clock.now <= until:
        pruner.run()
        check()
        clock.now += timedelta(hours=1)


def test_an_ended_session_is_hidden_at_its_instant_and_only_its_state_is_deleted(
    store: FakeStore, clock: Clock, pruner: Pruner
) -> None:
    # Given a session with three checkpoints and its state, last active at 12:00
    for hour in (1, 2, 3):
        store.checkpoint("ended", T0 + timedelta(hours=hour))
    store.state("ended", T0 + timedelta(hours=3))
    # When the pruner runs after its retention (and bucket) ran out
    clock.now = T0 + RETENTION + timedelta(hours=9)
    report = pruner.run()
    # Then the state is deleted, the checkpoints are hidden and left to TTL (no delete sent)
    assert report.deleted[ItemKind.STATE] == 1 and report.deleted[ItemKind.CHECKPOINT] == 0
    assert report.left_to_ttl == 3 and report.kept_latest == 0
    assert store.visible("ended", clock.now) == []
    # (its state in the same bucket, the look-ahead needed no per-session lookup)
    assert store.lookups == []
    store.ttl_sweep(clock.now)
    assert store.items == {}


def test_nothing_is_hidden_or_deleted_before_its_bucket_closes(
    store: FakeStore, clock: Clock, pruner: Pruner
) -> None:
    # Given a checkpoint made at 10:00 (prunable at the 12:00 boundary seven days later)
    store.checkpoint("s", T0 + timedelta(hours=1))
    store.state("s", T0 + timedelta(hours=1))
    # When the pruner runs seven days and two hours later (past 7 days, before the boundary)
    clock.now = T0 + RETENTION + timedelta(hours=2)
    report = pruner.run()
    # Then nothing is deleted, and the checkpoint still reads
    assert report.deleted.total() == 0
    assert len(store.items) == 2
    assert len(store.visible("s", clock.now)) == 1


def test_an_active_sessions_newest_is_kept_a_span_before_it_would_be_hidden(
    store: FakeStore, clock: Clock, pruner: Pruner
) -> None:
    # Given a session whose only checkpoints come due at 12:00, active again this morning
    older = store.checkpoint("active", T0 + timedelta(hours=1))
    newest = store.checkpoint("active", T0 + timedelta(hours=2))
    store.state("active", T0 + timedelta(days=7))
    due = expiry(T0 + timedelta(hours=1), RETENTION).prunable
    # When the pruner runs in the first hour after the bucket before closed (06:30)
    clock.now = due - LOOK_AHEAD + timedelta(minutes=30)
    report = pruner.run()
    # Then, five and a half hours early, the newest moved to the state's expiry; the older is left
    assert report.kept_latest == 1 and report.deleted.total() == 0
    assert store.items[("active", newest)].bucket == expiry(T0 + timedelta(days=7), RETENTION).bucket
    assert store.visible("active", due + timedelta(seconds=1)) == [newest]
    assert older in store.checkpoints("active")  # hidden at 12:00, deleted by TTL, not by the pruner
    assert store.lookups == [("newest", "active"), ("activity", "active"), ("keep", "active")]


def test_hourly_runs_never_hide_an_active_sessions_newest_and_hide_it_with_the_state(
    store: FakeStore, clock: Clock, pruner: Pruner
) -> None:
    # Given a checkpoint made at 10:00, then a session active every 3 hours for nine days, no new one
    newest = store.checkpoint("active", T0 + timedelta(hours=1))
    last_prompt = T0 + timedelta(days=9)
    clock.now = T0 + RETENTION - timedelta(days=1)

    def prompts_then_check() -> None:
        if clock.now <= last_prompt and clock.now.hour % 3 == 0:
            store.state("active", clock.now)
        # Then at every hour (before the next run) the newest reads while the state lives
        before_next_run = clock.now + timedelta(minutes=59)
        state_lives = expiry(store.activity["active"], RETENTION).prunable >= before_next_run
        assert (store.visible("active", before_next_run) == [newest]) is state_lives

    # When the pruner runs hourly through those days and past the state's retention
    store.state("active", clock.now)
    hourly(pruner, clock, last_prompt + RETENTION + timedelta(days=1), prompts_then_check)
    # Then both are gone once the last activity left the window: the state deleted, the checkpoint TTL's
    assert ("active", "STATE") not in store.items
    assert store.visible("active", clock.now) == []


def test_a_session_active_again_after_the_look_ahead_gets_its_newest_back_at_the_next_run(
    store: FakeStore, clock: Clock, pruner: Pruner
) -> None:
    # Given a session idle since its checkpoint at 10:00 (both due at 12:00), and a look-ahead run
    newest = store.checkpoint("s", T0 + timedelta(hours=1))
    store.state("s", T0 + timedelta(hours=1))
    due = expiry(T0 + timedelta(hours=1), RETENTION).prunable
    clock.now = due - LOOK_AHEAD + timedelta(minutes=30)
    assert pruner.run().kept_latest == 0  # idle: its window closes with the checkpoint's
    # When the session is active again at 09:00, after that decision
    store.state("s", due - timedelta(hours=3))
    # Then it reads until 12:00, is hidden until the first run after, which keeps it
    assert store.visible("s", due) == [newest]
    assert store.visible("s", due + timedelta(seconds=1)) == []
    clock.now = due + timedelta(minutes=30)
    report = pruner.run()
    assert report.kept_latest == 1 and report.deleted.total() == 0
    assert store.visible("s", clock.now) == [newest]
    assert store.items[("s", newest)].bucket == expiry(due - timedelta(hours=3), RETENTION).bucket


def test_a_newest_checkpoint_ttl_deleted_before_that_run_is_not_written_again(
    store: FakeStore, clock: Clock, pruner: Pruner
) -> None:
    store.checkpoint("s", T0 + timedelta(hours=1))
    store.state("s", T0 + timedelta(hours=1))
    due = expiry(T0 + timedelta(hours=1), RETENTION).prunable
    clock.now = due - LOOK_AHEAD + timedelta(minutes=30)
    pruner.run()
    store.state("s", due - timedelta(hours=3))
    store.ttl_sweep(due + timedelta(seconds=1))  # TTL came first (DynamoDB may, within the hour)
    clock.now = due + timedelta(minutes=30)

    report = pruner.run()

    assert report.kept_latest == 0 and store.checkpoints("s") == []
    assert ("s", "STATE") in store.items


def test_an_expired_checkpoint_with_a_newer_one_is_left_even_if_it_is_the_buckets_last(
    store: FakeStore, clock: Clock, pruner: Pruner
) -> None:
    # Given an old checkpoint and a fresh one of the same live session
    old = store.checkpoint("s", T0 + timedelta(hours=1))
    fresh = store.checkpoint("s", T0 + timedelta(days=6))
    store.state("s", T0 + timedelta(days=6))
    # When the pruner runs past the old one's retention
    clock.now = T0 + RETENTION + timedelta(hours=9)
    report = pruner.run()
    # Then only the fresh one reads, the old one waits for TTL; no state read, nothing kept
    assert store.visible("s", clock.now) == [fresh]
    assert old in store.checkpoints("s")
    assert report.kept_latest == 0 and report.left_to_ttl == 1
    assert store.lookups == [("newest", "s"), ("newest", "s")]  # the look-ahead's, the due pass's


def test_a_newest_checkpoint_without_a_state_is_left_to_ttl(
    store: FakeStore, clock: Clock, pruner: Pruner
) -> None:
    # Given a checkpoint whose session state is already gone (pruned in an earlier bucket)
    store.checkpoint("orphan", T0 + timedelta(hours=7))
    # When the pruner runs past its retention
    clock.now = T0 + RETENTION + timedelta(hours=19)
    report = pruner.run()
    # Then it is hidden, kept by nobody
    assert store.visible("orphan", clock.now) == []
    assert report.kept_latest == 0 and report.left_to_ttl == 1


def test_a_state_that_moved_while_its_bucket_was_read_stays_and_keeps_the_newest(
    store: FakeStore, clock: Clock, pruner: Pruner, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a session due for pruning, and a prompt that lands while the due bucket is being read
    newest = store.checkpoint("s", T0 + timedelta(hours=1))
    store.state("s", T0 + timedelta(hours=1))
    due = expiry(T0 + timedelta(hours=1), RETENTION)
    clock.now = T0 + RETENTION + timedelta(hours=9)
    original = store.expiring
    reads: list[str] = []

    def prompt_lands(bucket: Expiry) -> Iterator[ExpiringItem]:
        items = list(original(bucket))
        reads.append(bucket.bucket)
        if reads.count(due.bucket) == 2:  # the look-ahead read it first, then the due pass
            store.state("s", clock.now)  # the prompt moves the state to a later bucket
        yield from items

    monkeypatch.setattr(store, "expiring", prompt_lands)
    # When the pruner goes on with what it read
    report = pruner.run()
    # Then the state is not deleted, and the session's newest checkpoint is kept
    assert ("s", "STATE") in store.items
    assert store.visible("s", clock.now) == [newest]
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
    assert len(store.visible("s", clock.now)) == 1 and ("s", "STATE") in store.items


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


def test_a_second_run_deletes_and_keeps_nothing_more(store: FakeStore, clock: Clock, pruner: Pruner) -> None:
    # Given a run that pruned an ended session and kept an active one's newest
    store.checkpoint("ended", T0 + timedelta(hours=1))
    store.state("ended", T0 + timedelta(hours=1))
    store.checkpoint("active", T0 + timedelta(hours=1))
    store.state("active", T0 + timedelta(days=6))
    clock.now = T0 + RETENTION + timedelta(hours=9)
    first = pruner.run()
    left = {key: Stored(v.kind, v.bucket, v.chunk_ids) for key, v in store.items.items()}
    # When it runs again at the same time
    second = pruner.run()
    # Then nothing more goes and nothing fails
    assert first.deleted.total() == 1 and first.kept_latest == 1
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
    # Given two ended sessions due in consecutive buckets
    store.state("a", T0 + timedelta(hours=1))
    store.state("b", T0 + timedelta(hours=7))
    store.cursor = expiry(T0 + timedelta(hours=1), RETENTION).prunable
    clock.now = T0 + RETENTION + timedelta(days=1)
    # When a run may do one bucket only
    calls = iter([False, True])
    first = pruner.run(should_stop=lambda: next(calls, True))
    # Then it saved where it stopped, and the next run finishes
    assert not first.caught_up
    assert ("a", "STATE") not in store.items and ("b", "STATE") in store.items
    assert store.lease_until is None
    second = pruner.run()
    assert second.caught_up and ("b", "STATE") not in store.items


def test_a_failed_bucket_is_retried_by_the_next_run(store: FakeStore, clock: Clock, pruner: Pruner) -> None:
    # Given a bucket whose read fails
    store.state("s", T0 + timedelta(hours=1))
    due = expiry(T0 + timedelta(hours=1), RETENTION)
    store.fail_in_bucket = due.bucket
    clock.now = T0 + RETENTION + timedelta(hours=9)
    # When a run fails on it (its look-ahead, a bucket earlier)
    with pytest.raises(RuntimeError):
        pruner.run()
    # Then the lease is given back and the cursor stays on the bucket whose pass failed
    assert store.lease_until is None
    assert store.cursor == due.prunable - LOOK_AHEAD
    store.fail_in_bucket = None
    assert pruner.run().deleted[ItemKind.STATE] == 1


def test_a_first_run_looks_back_as_far_as_anything_can_be_before_its_ttl(clock: Clock) -> None:
    # Given a store the pruner never ran on, with a state due 7 days ago and one due 9 days ago
    store = FakeStore()
    store.state("recent", T0)
    store.state("ancient", T0 - timedelta(days=2))
    clock.now = T0 + RETENTION + RETENTION
    config = load_config({"retention_days": 7, "transcript_retention_days": 3})
    # When it runs
    Pruner(store, config, clock).run()
    # Then what is due within retention + grace went; older is left to TTL (already past it)
    assert ("recent", "STATE") not in store.items
    assert ("ancient", "STATE") in store.items
    assert store.cursor is not None and store.cursor > clock.now - BUCKET_SPAN


def test_the_report_counts_what_it_read(store: FakeStore, clock: Clock, pruner: Pruner) -> None:
    # Given an ended session whose items all fall in one bucket
    for hour in range(4, 8):
        store.checkpoint("ended", T0 + timedelta(hours=hour))
    store.state("ended", T0 + timedelta(hours=8))
    clock.now = T0 + RETENTION + timedelta(hours=9)

    report = pruner.run()

    # Then it read the lease (1) and the five index entries twice (look-ahead, due), for one delete
    # and four left to TTL
    assert (report.items_read, report.deleted.total(), report.left_to_ttl) == (11, 1, 4)
    assert report.as_dict()["deleted"] == {
        "checkpoint": 0,
        "state": 1,
        "transcript": 0,
        "transcript_body": 0,
        "injection": 0,
    }


def test_a_sessions_injections_are_hidden_with_its_retention_even_while_its_newest_checkpoint_stays(
    store: FakeStore, clock: Clock, pruner: Pruner
) -> None:
    # Given a session still active whose start's injection and first checkpoint are past the window
    store.injection("live", T0 + timedelta(hours=1))
    newest = store.checkpoint("live", T0 + timedelta(hours=1))
    store.state("live", T0 + RETENTION)
    # When the pruner runs after the injection's retention ran out
    clock.now = T0 + RETENTION + timedelta(hours=9)
    report = pruner.run()
    # Then the injection is hidden and left to TTL (no delete), the newest checkpoint kept
    assert report.deleted.total() == 0 and report.left_to_ttl == 1
    assert report.kept_latest == 1
    assert store.visible("live", clock.now, ItemKind.INJECTION) == []
    assert store.visible("live", clock.now) == [newest]
