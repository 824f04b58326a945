"""Fixtures for the local stack's integration tests: in-memory moto clients."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest

FAKE_AWS = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
}


@pytest.fixture
def moto_clients(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Any, Any]]:
    """(dynamodb, sqs) clients on an in-memory moto."""
    from moto import mock_aws

    for name, value in FAKE_AWS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    with mock_aws():
        yield boto3.client("dynamodb"), boto3.client("sqs")
