"""Retention rules: when an item becomes prunable, when TTL may take it, what reads treat as gone."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from continuity_core.kernel.expiry import BUCKET_SPAN, TTL_GRACE, bucket_end, expiry, is_expired, prunable_at
from continuity_core.retention.retention import LOOK_AHEAD

T0 = datetime(2025, 3, 1, 13, 20, 5, 123456, tzinfo=UTC)


def test_an_item_becomes_prunable_at_the_end_of_the_bucket_its_retention_runs_out_in() -> None:
    # Given a checkpoint made at 13:20 and kept 7 days
    # When its expiry is computed
    until = expiry(T0, timedelta(days=7))
    # Then it is prunable at the next 6-hour boundary after 7 days, in that bucket
    assert until.prunable == datetime(2025, 3, 8, 18, 0, tzinfo=UTC)
    assert until.bucket == "2025-03-08T18"


def test_a_moment_on_a_bucket_boundary_stays_in_that_bucket() -> None:
    boundary = datetime(2025, 3, 8, 12, 0, tzinfo=UTC)

    assert prunable_at(boundary) == boundary
    assert prunable_at(boundary + timedelta(microseconds=1)) == boundary + BUCKET_SPAN


def test_items_of_the_same_hours_share_a_bucket() -> None:
    # Given a session's checkpoints made over five hours of one afternoon
    made = [datetime(2025, 3, 1, 12, 30, tzinfo=UTC) + timedelta(hours=h) for h in range(5)]
    # When their expiries are computed / Then they all land in one bucket
    assert {expiry(moment, timedelta(days=7)).bucket for moment in made} == {"2025-03-08T18"}


def test_what_the_pruner_deletes_has_its_ttl_a_grace_later_what_ttl_deletes_at_the_instant() -> None:
    until = expiry(T0, timedelta(days=1))

    assert until.ttl_epoch == int((until.prunable + TTL_GRACE).timestamp())  # state, transcript heads
    assert BUCKET_SPAN + timedelta(hours=1) < TTL_GRACE  # the pruner (hourly) always comes first
    assert until.prunable_epoch == int(until.prunable.timestamp())  # checkpoints, injection records


def test_the_keep_decision_comes_at_least_an_hourly_run_before_the_instant() -> None:
    # A bucket's look-ahead runs with the due pass of the bucket before (within the hour after it)
    assert LOOK_AHEAD - timedelta(hours=1) >= timedelta(hours=5)


def test_a_buckets_name_reads_back_as_its_instant() -> None:
    until = expiry(T0, timedelta(days=7))

    assert bucket_end(until.bucket) == until.prunable


def test_a_non_utc_moment_is_bucketed_in_utc() -> None:
    local = T0.astimezone(timezone(timedelta(hours=5)))

    assert expiry(local, timedelta(days=7)) == expiry(T0, timedelta(days=7))


@pytest.mark.parametrize(
    ("ttl_offset_s", "expired"),
    [(-1, True), (0, False), (1, False)],
)
def test_reads_treat_an_item_as_gone_once_its_ttl_passed(ttl_offset_s: int, expired: bool) -> None:
    now = datetime(2025, 3, 10, tzinfo=UTC)

    assert is_expired(int(now.timestamp()) + ttl_offset_s, now) is expired


def test_an_item_without_ttl_never_expires() -> None:
    assert is_expired(None, datetime(2100, 1, 1, tzinfo=UTC)) is False
