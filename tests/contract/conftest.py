"""One contract suite per port, run against the in-memory fake and the DynamoDB adapter on moto.

The unit tests of the core's services run on the fakes (``tests/fakes``); these suites hold each fake
to what the adapter does, so a unit test cannot pass on behaviour the real store does not have.

moto starts once for the package (a table, a bucket): each test writes under its own agent id, so
tests share the table without seeing each other, and an adapter test costs milliseconds.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime

import pytest

from continuity_core.admin.ports import TokenStore
from continuity_core.checkpoints.ports import CheckpointStore, IdleIndex, LedgerStore
from continuity_core.hooks.ports import StateStore
from continuity_core.recovery.ports import HandoffStore
from tests.fakes.stores import RETENTION, in_memory_stores
from tests.support.clock import Clock

T0 = datetime(2026, 11, 22, 9, 0, tzinfo=UTC)
BACKENDS = ["memory", "dynamodb"]


@pytest.fixture(scope="package")
def moto_resources() -> Iterator[dict[str, str]]:
    """The wiring's table and bucket on moto, for the whole package; yields their environment."""
    from moto import mock_aws

    from continuity_core.kernel.aws import reset_clients
    from tests.conftest import fake_aws_credentials
    from tests.support.provision import provision

    with pytest.MonkeyPatch.context() as patch:
        fake_aws_credentials(patch)
        with mock_aws():
            reset_clients()
            environment = provision(prefix="continuity-contract")
            yield environment
            reset_clients()


@pytest.fixture
def clock() -> Clock:
    return Clock(T0)


@pytest.fixture
def agent() -> str:
    """This test's own tenant: tests share one table."""
    return f"contract-{uuid.uuid4().hex[:12]}"


def table_name(request: pytest.FixtureRequest) -> str:
    """The moto table (started on first use: the memory half of a suite never starts moto)."""
    environment: dict[str, str] = request.getfixturevalue("moto_resources")
    return environment["CONTINUITY_TABLE_NAME"]


def bucket_name(request: pytest.FixtureRequest) -> str:
    environment: dict[str, str] = request.getfixturevalue("moto_resources")
    return environment["TRANSCRIPT_BUCKET_NAME"]


@dataclass
class StoreSet:
    """One backend's stores, on one table (or one ``Memory``)."""

    states: StateStore
    checkpoints: CheckpointStore
    ledger: LedgerStore
    tokens: TokenStore
    idle: IdleIndex
    handoffs: HandoffStore


@pytest.fixture(params=BACKENDS)
def stores(request: pytest.FixtureRequest, clock: Clock) -> StoreSet:
    if request.param == "memory":
        fake = in_memory_stores(clock, RETENTION)
        return StoreSet(fake.states, fake.checkpoints, fake.ledger, fake.tokens, fake.idle, fake.handoffs)
    from continuity_core.admin.dynamo_tokens import DynamoTokenStore
    from continuity_core.checkpoints.dynamo_checkpoints import DynamoCheckpointStore
    from continuity_core.checkpoints.dynamo_idle import DynamoIdleIndex
    from continuity_core.checkpoints.dynamo_ledger import DynamoLedgerStore
    from continuity_core.hooks.dynamo_state import DynamoStateStore
    from continuity_core.recovery.dynamo_handoffs import DynamoHandoffStore

    table = table_name(request)
    return StoreSet(
        DynamoStateStore(table, ttl=RETENTION, clock=clock),
        DynamoCheckpointStore(table, retention=RETENTION, clock=clock),
        DynamoLedgerStore(table),
        DynamoTokenStore(table),
        DynamoIdleIndex(table),
        DynamoHandoffStore(table, retention=RETENTION, clock=clock),
    )
