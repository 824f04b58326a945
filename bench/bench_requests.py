"""AWS requests per hook, counted at botocore (every HTTP request our clients send, retries included).

- hook_requests_per_prompt: a 100-prompt session through the hook handler, the writer's share
  included (the SQS poll/delete done by Lambda's event source mapping is not ours and not counted).
- recovery_requests_10 / _10000: one session-start that recovers from its project, with 10 and with
  10,000 checkpoints stored.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

from continuity_core.kernel import names

PROMPTS = 100
PROJECT = "/bench/project"


class RequestCounter:
    def __init__(self) -> None:
        self.count = 0

    def __call__(self, **_: Any) -> None:
        self.count += 1


@contextmanager
def moto_service() -> Iterator[Any]:
    from moto import mock_aws

    os.environ.update(
        AWS_ACCESS_KEY_ID="bench",
        AWS_SECRET_ACCESS_KEY="bench",
        AWS_DEFAULT_REGION="us-east-1",
        CONTINUITY_FLUSH_DELAY_SECONDS="0",
        POWERTOOLS_METRICS_DISABLED="true",
        POWERTOOLS_LOG_LEVEL="ERROR",
    )
    os.environ.pop("AWS_ENDPOINT_URL", None)
    from continuity_core.kernel.aws import client, reset_clients
    from tests.support.api import InProcessService
    from tests.support.cold_starts import reset_functions
    from tests.support.provision import provision

    with mock_aws():
        reset_clients()
        reset_functions()
        os.environ.update(provision("bench"))
        counter = RequestCounter()
        for name in ("dynamodb", "sqs"):
            client(name).meta.events.register("request-created", counter)
        yield InProcessService(), counter
        reset_clients()
        reset_functions()


def hook_requests_per_prompt() -> float:
    with moto_service() as (service, counter):
        service.hook("session-start", {"session_id": "bench", "cwd": PROJECT})
        before = counter.count
        for n in range(PROMPTS):
            service.hook("user-prompt-submit", {"session_id": "bench", "cwd": PROJECT, "prompt": f"step {n}"})
            service.drain_queue()
        assert len(service.session_checkpoints("bench")) == PROMPTS // 10
        return (counter.count - before) / PROMPTS


def seed_checkpoints(total: int) -> None:
    """``total`` checkpoints across 100-checkpoint sessions of the same project, newest last."""
    import boto3

    from continuity_core.checkpoints.dynamo_checkpoints import checkpoint_item
    from continuity_core.models.checkpoint import Checkpoint
    from continuity_core.models.checkpoint_trigger import CheckpointTrigger

    dynamodb: Any = boto3.client("dynamodb")  # not the counted client
    table = os.environ[names.TABLE_ENV]
    start = datetime.now(UTC) - timedelta(hours=1)
    items = []
    for n in range(total):
        checkpoint = Checkpoint(
            id=f"seed-{n}",
            session_key=f"seed-session-{n // 100}",
            harness="claude-code",
            project=PROJECT,
            project_normalized=PROJECT,
            trigger=CheckpointTrigger.PERIODIC,
            digest=f"## Session Checkpoint\nseed {n}",
            prompt_count=10,
            sequence=n % 100 + 1,
            created_at=start + timedelta(milliseconds=n),
        )
        items.append({"PutRequest": {"Item": checkpoint_item("default", checkpoint, 2**31)}})
    for offset in range(0, len(items), 25):
        dynamodb.batch_write_item(RequestItems={table: items[offset : offset + 25]})


def recovery_requests(stored: int) -> float:
    with moto_service() as (service, counter):
        seed_checkpoints(stored)
        before = counter.count
        _, answer = service.hook("session-start", {"session_id": "returning", "cwd": PROJECT})
        assert f"seed {stored - 1}" in answer["hookSpecificOutput"]["additionalContext"]
        return float(counter.count - before)


def run() -> dict[str, float]:
    return {
        "hook_requests_per_prompt": hook_requests_per_prompt(),
        "recovery_requests_10": recovery_requests(10),
        "recovery_requests_10000": recovery_requests(10_000),
    }
