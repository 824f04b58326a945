"""Shared fixtures: an in-memory AWS (moto) provisioned from the wiring declaration."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

from continuity_core.kernel.names import TABLE_ENV

if TYPE_CHECKING:
    from infra.local.access_policies import StackAccess

TEST_TOKEN = "test-token"


@pytest.fixture(autouse=True)
def _quiet_powertools(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POWERTOOLS_METRICS_NAMESPACE", "ContinuityTests")
    monkeypatch.setenv("POWERTOOLS_SERVICE_NAME", "continuity")
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "true")
    monkeypatch.setenv("POWERTOOLS_LOG_LEVEL", "WARNING")


def atomic_requests(monkeypatch: pytest.MonkeyPatch) -> None:
    """One moto request at a time, as DynamoDB applies each request atomically.

    moto's UpdateItem is a read-modify-write in Python: two threads can interleave inside one
    request and lose an update that DynamoDB never would. Serialising requests keeps the
    interleaving that matters to us (between requests) and removes the one moto adds.
    """
    from moto.core.botocore_stubber import BotocoreStubber

    lock = threading.RLock()
    original = BotocoreStubber.__call__

    def serialised(self: BotocoreStubber, *args: Any, **kwargs: Any) -> Any:
        with lock:
            return original(self, *args, **kwargs)

    monkeypatch.setattr(BotocoreStubber, "__call__", serialised)


def fake_aws_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    """Credentials and a region for moto, and no endpoint: boto3 must never reach a real account."""
    for name, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_SESSION_TOKEN": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_REGION": "us-east-1",
    }.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)


@pytest.fixture(scope="session")
def access() -> StackAccess:
    """Each function's grant as CDK synthesizes it (cached on disk: a synth only when the CDK
    sources changed)."""
    from infra.local.access_policies import load

    return load()


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch, access: StackAccess) -> Iterator[dict[str, str]]:
    """moto with the service's table and queues; yields the resource environment.

    Every function invoked meanwhile runs under its synthesized grant (the access guard): a call
    outside it raises AccessDenied where it happens and fails the test here even if swallowed.
    """
    from moto import mock_aws

    atomic_requests(monkeypatch)
    from continuity_core.kernel.aws import reset_clients
    from infra.local import access_guard
    from tests.support.cold_starts import reset_functions
    from tests.support.provision import provision

    fake_aws_credentials(monkeypatch)
    access_guard.install(None)  # hooked before the clients below exist
    access_guard.take_denials()
    with mock_aws():
        reset_clients()
        reset_functions()
        environment = provision()
        guard = access_guard.AccessGuard(access, access_guard.physical_names(environment))
        access_guard.install(guard, record=True)
        for name, value in environment.items():
            monkeypatch.setenv(name, value)
        yield environment
        access_guard.install(None)
        reset_clients()
        reset_functions()
    os.environ.pop(TABLE_ENV, None)
    denials = access_guard.take_denials()
    if denials:
        pytest.fail("calls outside a function's grant:\n" + "\n".join(d.message for d in denials))
