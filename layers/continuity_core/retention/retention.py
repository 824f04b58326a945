"""Retention: when a stored item becomes prunable, and the pruner that deletes or keeps it.

Every item that ages out (checkpoints, injection records, session state, transcript heads) is
written with its *prunable instant*: the time its retention runs out, rounded **up** to the end of
a ``BUCKET_SPAN`` (6 h) bucket (``kernel/expiry.py``: every adapter writes it). An expiry index
(``by_expiry``) holds what the pruner deletes or keeps (all but injection records) under its
bucket, so the pruner reads only the buckets that came due (or come due next): what it reads is
what expires, never what is stored. Rounding up groups
what a session leaves behind (its checkpoints of the same hours, its state, its transcript) into
one bucket, so the per-session lookups the keep-latest rule needs are paid once per session and
bucket, not once per checkpoint; the price is that an item goes up to one span after its retention
ran out.

Who deletes what (docs/decisions/0010-ttl-deletes-checkpoints.md):

- **checkpoints and injection records** carry their prunable instant as their TTL (no grace): reads
  stop returning them at that instant and DynamoDB's TTL deletes them later, for free. The pruner
  never deletes them; it only *keeps* a session's newest checkpoint while the session is active
  (moves its bucket and TTL to the state's), and it decides that ``LOOK_AHEAD`` (one span) before
  the checkpoint's instant, so a kept checkpoint is never hidden. Items written before (TTL a day
  after the instant) are hidden at their bucket's end all the same (reads take the earlier of the
  TTL and the bucket) and go by TTL a day later.
- **state and transcript heads** keep a TTL ``TTL_GRACE`` after the instant and the pruner deletes
  them when their bucket comes due (a conditional delete: an append or a prompt since moved them to
  a later bucket); a transcript takes its S3 bodies with it. TTL is their backstop.

Rules, per session in a bucket:

- one span before the bucket's end (the *look-ahead*): the session's newest checkpoint, if it is in
  the bucket, is kept when the session's last activity keeps its state past the bucket's end; its
  expiry moves to the state's (last activity + retention). A session whose state is in the bucket
  too needs no lookup: its window closes with the checkpoint's;
- when the bucket comes due: heads and states go if unmoved. A state that moved (the session was
  active again after the look-ahead) keeps the newest checkpoint the look-ahead left in the bucket:
  the same rule, late; reads have hidden it since the bucket's end (at most the run interval, as the
  bucket is processed in the first run after it closes) and it is back once moved, unless TTL took
  it in between;
- older checkpoints and every injection are left to TTL;
- the per-session cap is enforced where checkpoints are written (the writer evicts in the same
  transaction that adds one), so a session never holds more than the cap.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from itertools import groupby

from continuity_core.kernel.clock import Clock
from continuity_core.kernel.config import ContinuityConfig
from continuity_core.kernel.expiry import BUCKET_SPAN, TTL_GRACE, Expiry, expiry, prunable_at
from continuity_core.retention.ports import ExpiringItem, ItemKind, RetentionStore

# The keep decision for a bucket's newest checkpoints is made this long before the bucket's end: a
# bucket's look-ahead runs with the due pass of the bucket before it (the first hourly run after
# that one closed), so 5 to 6 hours before the checkpoint would be hidden.
LOOK_AHEAD = BUCKET_SPAN
# One run at a time: a run holds the cursor's lease this long (well past the function's timeout).
LEASE = timedelta(minutes=15)


# -- the pruner ---------------------------------------------------------------------------------


@dataclass
class PruneReport:
    deleted: Counter[str] = field(default_factory=Counter)
    kept_latest: int = 0
    left_to_ttl: int = 0  # checkpoints and injections of the due buckets, hidden now, TTL deletes them
    buckets: int = 0
    items_read: int = 0
    skipped: bool = False  # another run held the lease
    caught_up: bool = False  # every due bucket is done (False: out of time, the next run goes on)

    def as_dict(self) -> dict[str, object]:
        return {
            "deleted": {kind.value: self.deleted[kind.value] for kind in ItemKind},
            "kept_latest": self.kept_latest,
            "left_to_ttl": self.left_to_ttl,
            "buckets": self.buckets,
            "items_read": self.items_read,
            "skipped": self.skipped,
            "caught_up": self.caught_up,
        }


class Pruner:
    def __init__(self, store: RetentionStore, config: ContinuityConfig, clock: Clock) -> None:
        self._store = store
        self._retention = timedelta(days=config.retention_days)
        # A first run (no cursor) looks back as far as anything can still be before its TTL.
        self._lookback = max(self._retention, timedelta(days=config.transcript_retention_days)) + TTL_GRACE
        self._clock = clock

    def run(self, should_stop: Callable[[], bool] = lambda: False) -> PruneReport:
        """Prune every bucket that came due since the last run, and decide what to keep of the
        bucket after each. Idempotent: a second run finds nothing due; a run cut short (or failed)
        leaves the cursor at the bucket it was on."""
        report = PruneReport()
        read_before = self._store.items_read
        now = self._clock()
        lease = self._store.acquire(now, until=now + LEASE)
        if lease is None:
            report.skipped = True
            return report
        # Aligned to a bucket boundary (a cursor saved under another span still lands on one).
        bucket = prunable_at(lease.cursor or now - self._lookback)
        try:
            while bucket <= now and not should_stop():
                self._prune_bucket(Expiry(bucket), now, report)
                self._look_ahead(Expiry(bucket + LOOK_AHEAD), now, report)
                bucket += BUCKET_SPAN
                report.buckets += 1
                self._store.save(lease, bucket, release=False)
            report.caught_up = bucket > now
        finally:
            self._store.save(lease, bucket, release=True)
            report.items_read = self._store.items_read - read_before
        return report

    def _prune_bucket(self, bucket: Expiry, now: datetime, report: PruneReport) -> None:
        """The bucket came due: heads and states go if unmoved; a session active again since the
        look-ahead keeps its newest checkpoint (late); the rest is left to TTL."""
        sessions = groupby(self._store.expiring(bucket), key=lambda i: (i.agent_id, i.session_key))
        for _, group in sessions:
            items = list(group)
            for head in _of(items, ItemKind.TRANSCRIPT):
                if self._store.delete_if_unmoved(head):
                    report.deleted[ItemKind.TRANSCRIPT] += 1
                    report.deleted[ItemKind.TRANSCRIPT_BODY] += self._store.delete_bodies(head)
            inactive = False
            for state in _of(items, ItemKind.STATE):
                if self._store.delete_if_unmoved(state):
                    report.deleted[ItemKind.STATE] += 1
                    inactive = True  # its last activity is past the window: nothing of it is kept
            checkpoints = _of(items, ItemKind.CHECKPOINT)
            kept = 0 if inactive else self._keep_newest(checkpoints, bucket, now, report)
            report.left_to_ttl += len(checkpoints) - kept + len(_of(items, ItemKind.INJECTION))

    def _look_ahead(self, bucket: Expiry, now: datetime, report: PruneReport) -> None:
        """The bucket closes one span on: keep each active session's newest checkpoint in it
        before reads stop returning it."""
        sessions = groupby(self._store.expiring(bucket), key=lambda i: (i.agent_id, i.session_key))
        for _, group in sessions:
            items = list(group)
            if _of(items, ItemKind.STATE):
                continue  # its state comes due with the bucket: the window closes with the checkpoint's
            self._keep_newest(_of(items, ItemKind.CHECKPOINT), bucket, now, report)

    def _keep_newest(
        self, checkpoints: list[ExpiringItem], bucket: Expiry, now: datetime, report: PruneReport
    ) -> int:
        """Keeps the session's newest checkpoint if it is in ``checkpoints`` (the session's in the
        bucket) and the session's last activity keeps its state past the bucket's end (and now);
        answers how many it kept (0 or 1)."""
        if not checkpoints:
            return 0
        latest = max(checkpoints, key=lambda c: c.item_id)  # the others are never the newest
        if self._store.newest_checkpoint(latest.agent_id, latest.session_key) != latest.item_id:
            return 0  # a newer one exists (or ``latest`` is gone already)
        activity = self._store.last_activity(latest.agent_id, latest.session_key)
        if activity is None:
            return 0
        until = expiry(activity, self._retention)
        if until.prunable <= max(bucket.prunable, now):
            return 0  # the session's window closes with the checkpoint's (or closed)
        self._store.keep(latest, until)
        report.kept_latest += 1
        return 1


def _of(items: Iterable[ExpiringItem], kind: ItemKind) -> list[ExpiringItem]:
    return [item for item in items if item.kind is kind]
