"""The wiring's tables, queues and buckets on the current (moto) backend: the local stack's own
provisioning, so tests, the local stack and CDK share one definition."""

from __future__ import annotations

import boto3

from infra.local.provision import provision as provision_resources
from infra.wiring import BUCKETS, QUEUES, TABLES


def provision(prefix: str = "continuity-test") -> dict[str, str]:
    """Create everything; returns the environment (table name, queue URL, bucket name)."""
    provisioned = provision_resources(
        boto3.client("dynamodb"),
        boto3.client("sqs"),
        TABLES,
        QUEUES,
        s3=boto3.client("s3"),
        buckets=BUCKETS,
        prefix=prefix,
    )
    return provisioned.environment
