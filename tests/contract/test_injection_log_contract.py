"""The injection log's contract, on the in-memory fake and on DynamoDB (moto)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from continuity_core.kernel.expiry import TTL_GRACE, expiry
from continuity_core.models.injections import InjectionRecord, InjectionSection
from continuity_core.recovery.ports import InjectionLog
from tests.contract.conftest import BACKENDS, T0, table_name
from tests.fakes.stores import RETENTION, in_memory_stores
from tests.support.clock import Clock


@pytest.fixture(params=BACKENDS)
def log(request: pytest.FixtureRequest, clock: Clock) -> InjectionLog:
    if request.param == "memory":
        return in_memory_stores(clock, RETENTION).injections
    from continuity_core.recovery.dynamo_injections import DynamoInjectionLog

    return DynamoInjectionLog(table_name(request), retention=RETENTION, clock=clock)


def record(session: str, minutes: int, text: str | None = "## Recovered\n- use postgres") -> InjectionRecord:
    return InjectionRecord(
        session_key=session,
        event="session_start",
        at=T0 + timedelta(minutes=minutes),
        harness="claude-code",
        source="clear",
        text=text,
        chars=len(text or ""),
        cap_chars=9000,
        truncated=True,
        sections=[InjectionSection(name="recovery", chars=len(text or ""), truncated=True)],
        recovery_source="cleared_session",
        recovered_session_key="before",
    )


def test_a_session_reads_back_its_injections_newest_first_whole(log: InjectionLog, agent: str) -> None:
    # Given two injections of one session and one of another
    log.record(agent, record("s1", 0))
    log.record(agent, record("s1", 5, "x" * 9000))
    log.record(agent, record("s2", 1))
    # When the session's injections are read
    found = log.for_session(agent, "s1", 10)
    # Then both come back, newest first, with every field as recorded
    assert [r.at for r in found] == [T0 + timedelta(minutes=5), T0]
    assert found[1] == record("s1", 0)
    assert found[0].text == "x" * 9000


def test_an_empty_injection_and_the_limit(log: InjectionLog, agent: str) -> None:
    for minute in range(3):
        log.record(agent, record("s1", minute, None))
    found = log.for_session(agent, "s1", 2)
    assert len(found) == 2 and found[0].text is None


def test_another_agent_sees_none_and_expired_ones_are_gone(
    log: InjectionLog, agent: str, clock: Clock
) -> None:
    log.record(agent, record("s1", 0))
    assert log.for_session(f"{agent}-other", "s1", 10) == []
    clock.now += RETENTION + timedelta(days=2)
    assert log.for_session(agent, "s1", 10) == []


def test_an_injection_reads_until_its_prunable_instant_and_not_a_second_after(
    log: InjectionLog, agent: str, clock: Clock
) -> None:
    log.record(agent, record("s1", 0))
    instant = expiry(T0, RETENTION).prunable
    clock.now = instant
    assert len(log.for_session(agent, "s1", 10)) == 1
    clock.now = instant + timedelta(seconds=1)
    assert log.for_session(agent, "s1", 10) == []


def test_an_injection_is_left_to_ttl_and_one_written_before_reads_as_gone_on_time(
    request: pytest.FixtureRequest, agent: str, clock: Clock
) -> None:
    # DynamoDB only: the stored item (its TTL at the instant, no expiry index copy to write).
    from continuity_core.kernel.aws import client
    from continuity_core.kernel.dynamo_expiry import expiry_values
    from continuity_core.kernel.dynamo_items import item_key, session_pk, to_attributes
    from continuity_core.kernel.names import EXPIRY_PK, TTL_ATTRIBUTE
    from continuity_core.recovery.dynamo_injections import DynamoInjectionLog, injection_sk

    table = table_name(request)
    log = DynamoInjectionLog(table, retention=RETENTION, clock=clock)
    written = record("s1", 0)
    log.record(agent, written)
    pk, sk = session_pk(agent, "s1"), injection_sk(written)
    stored = client("dynamodb").get_item(TableName=table, Key=item_key(pk, sk))["Item"]
    instant = expiry(T0, RETENTION).prunable
    assert int(stored[TTL_ATTRIBUTE]["N"]) == int(instant.timestamp())
    assert EXPIRY_PK not in stored
    # Given the item as the version before wrote it: in the expiry index, TTL a day after the instant
    before = to_attributes(expiry_values(pk, sk, expiry(T0, RETENTION)))
    assert int(before[TTL_ATTRIBUTE]["N"]) == int((instant + TTL_GRACE).timestamp())
    client("dynamodb").put_item(TableName=table, Item={**stored, **before})
    # Then reads stop returning it at the instant all the same
    clock.now = instant
    assert log.for_session(agent, "s1", 10) == [written]
    clock.now = instant + timedelta(seconds=1)
    assert log.for_session(agent, "s1", 10) == []
