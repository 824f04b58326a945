"""Creates the wiring's tables, queues and buckets on moto (server or ``mock_aws``), idempotently.

Same definitions as the CDK stack: string keys, on-demand billing, GSIs with the declared
projection, TTL on the declared attribute; each queue with its ``-dlq``, redrive policy and
visibility timeout; each bucket private. Resources that already exist (after a replay) are brought
in line instead of re-created.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from infra.local.context import NAME_PREFIX
from infra.wiring import BucketSpec, GlobalIndex, QueueSpec, TableSpec, dlq_resource

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient
    from mypy_boto3_s3 import S3Client
    from mypy_boto3_sqs import SQSClient

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class QueueResource:
    name: str
    url: str
    arn: str
    dlq_name: str
    dlq_url: str
    dlq_arn: str


@dataclass
class Provisioned:
    tables: dict[str, str] = field(default_factory=dict)  # TableSpec.key -> physical name
    queues: dict[str, QueueResource] = field(default_factory=dict)  # QueueSpec.key -> resource
    environment: dict[str, str] = field(default_factory=dict)  # env_var -> name / URL
    # Resource key -> the variables a function that declares it gets (its env_var -> name / URL).
    resource_environment: dict[str, dict[str, str]] = field(default_factory=dict)

    def add(self, key: str, env_var: str, value: str) -> None:
        self.environment[env_var] = value
        self.resource_environment[key] = {env_var: value}


def physical_name(key: str, prefix: str = NAME_PREFIX) -> str:
    return f"{prefix}-{key.replace('_', '-')}"


def provision(
    dynamodb: DynamoDBClient,
    sqs: SQSClient,
    tables: Iterable[TableSpec],
    queues: Iterable[QueueSpec],
    *,
    s3: S3Client | None = None,
    buckets: Iterable[BucketSpec] = (),
    prefix: str = NAME_PREFIX,
) -> Provisioned:
    out = Provisioned()
    for bucket in buckets:
        if s3 is None:
            raise ValueError("buckets need an S3 client")
        name = physical_name(bucket.key, prefix)
        ensure_bucket(s3, name)
        out.add(bucket.key, bucket.env_var, name)
    for table in tables:
        name = physical_name(table.key, prefix)
        ensure_table(dynamodb, table, name)
        out.tables[table.key] = name
        out.add(table.key, table.env_var, name)
    for queue in queues:
        resource = ensure_queue(sqs, queue, physical_name(queue.key, prefix))
        out.queues[queue.key] = resource
        out.add(queue.key, queue.env_var, resource.url)
        if queue.dlq_env_var:  # for a function that INSPECTs the queue (environment.py)
            out.resource_environment[dlq_resource(queue.key)] = {queue.dlq_env_var: resource.dlq_url}
            out.environment[queue.dlq_env_var] = resource.dlq_url
    return out


def ensure_table(dynamodb: DynamoDBClient, spec: TableSpec, name: str) -> None:
    try:
        described = dynamodb.describe_table(TableName=name)["Table"]
    except dynamodb.exceptions.ResourceNotFoundException:
        described = None
    if described is None:
        attributes = {spec.partition_key, spec.sort_key}
        for index in spec.indexes:
            attributes |= {index.partition_key, index.sort_key}
        kwargs: dict[str, Any] = {}
        if spec.indexes:
            kwargs["GlobalSecondaryIndexes"] = [_gsi(index) for index in spec.indexes]
        dynamodb.create_table(
            TableName=name,
            KeySchema=_key_schema(spec.partition_key, spec.sort_key),
            AttributeDefinitions=[{"AttributeName": a, "AttributeType": "S"} for a in sorted(attributes)],
            BillingMode="PAY_PER_REQUEST",
            **kwargs,
        )
    else:
        _check_keys(described, spec, name)
        _add_missing_indexes(dynamodb, described, spec, name)
    ttl = dynamodb.describe_time_to_live(TableName=name)["TimeToLiveDescription"]
    if ttl.get("TimeToLiveStatus") not in ("ENABLED", "ENABLING"):
        dynamodb.update_time_to_live(
            TableName=name,
            TimeToLiveSpecification={"Enabled": True, "AttributeName": spec.ttl_attribute},
        )
    elif ttl.get("AttributeName") != spec.ttl_attribute:
        log.warning(
            "table %s has TTL on %s, the wiring says %s; start with --fresh to rebuild it",
            name,
            ttl.get("AttributeName"),
            spec.ttl_attribute,
        )


def ensure_queue(sqs: SQSClient, spec: QueueSpec, name: str) -> QueueResource:
    dlq_name = f"{name}-dlq"
    dlq_url = _ensure_queue_url(
        sqs, dlq_name, {"MessageRetentionPeriod": str(spec.dlq_retention_days * 86400)}
    )
    dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq_url, AttributeNames=["QueueArn"])["Attributes"][
        "QueueArn"
    ]
    attributes = {
        "VisibilityTimeout": str(spec.visibility_timeout_s),
        "RedrivePolicy": json.dumps(
            {"deadLetterTargetArn": dlq_arn, "maxReceiveCount": spec.max_receive_count}
        ),
    }
    url = _ensure_queue_url(sqs, name, attributes)
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    return QueueResource(name, url, arn, dlq_name, dlq_url, dlq_arn)


def _ensure_queue_url(sqs: SQSClient, name: str, attributes: dict[str, str]) -> str:
    try:
        url = sqs.get_queue_url(QueueName=name)["QueueUrl"]
    except sqs.exceptions.QueueDoesNotExist:
        return sqs.create_queue(QueueName=name, Attributes=attributes)["QueueUrl"]  # type: ignore[arg-type]
    answer = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    current = {str(name): value for name, value in answer.items()}
    changed = {k: v for k, v in attributes.items() if not _same_attribute(k, current.get(k), v)}
    if changed:
        sqs.set_queue_attributes(QueueUrl=url, Attributes=changed)  # type: ignore[arg-type]
    return url


def _same_attribute(name: str, current: str | None, wanted: str) -> bool:
    if current is None:
        return False
    if name == "RedrivePolicy":
        a, b = json.loads(current), json.loads(wanted)
        return bool(
            a.get("deadLetterTargetArn") == b["deadLetterTargetArn"]
            and int(a.get("maxReceiveCount", 0)) == int(b["maxReceiveCount"])
        )
    return current == wanted


def _key_schema(partition_key: str, sort_key: str) -> list[Any]:
    return [
        {"AttributeName": partition_key, "KeyType": "HASH"},
        {"AttributeName": sort_key, "KeyType": "RANGE"},
    ]


def ensure_bucket(s3: S3Client, name: str) -> None:
    try:
        s3.head_bucket(Bucket=name)
    except s3.exceptions.ClientError:
        s3.create_bucket(Bucket=name)
    # Versioned as the deployed bucket is (a deleted body stays restorable: make restore-drill).
    s3.put_bucket_versioning(Bucket=name, VersioningConfiguration={"Status": "Enabled"})


def index_projection(index: GlobalIndex) -> dict[str, Any]:
    """DynamoDB's Projection for a declared index (the CDK construct maps it the same way)."""
    if index.projection is None:
        return {"ProjectionType": "ALL"}
    return {"ProjectionType": "INCLUDE", "NonKeyAttributes": list(index.projection)}


def _gsi(index: GlobalIndex) -> Any:
    return {
        "IndexName": index.name,
        "KeySchema": _key_schema(index.partition_key, index.sort_key),
        "Projection": index_projection(index),
    }


def _check_keys(described: Any, spec: TableSpec, name: str) -> None:
    keys = {k["KeyType"]: k["AttributeName"] for k in described["KeySchema"]}
    if keys != {"HASH": spec.partition_key, "RANGE": spec.sort_key}:
        raise RuntimeError(
            f"table {name} has keys {keys}, the wiring declares "
            f"{spec.partition_key}/{spec.sort_key}; start the local stack with --fresh"
        )


def _add_missing_indexes(dynamodb: DynamoDBClient, described: Any, spec: TableSpec, name: str) -> None:
    existing = {i["IndexName"] for i in described.get("GlobalSecondaryIndexes", [])}
    for index in spec.indexes:
        if index.name in existing:
            continue
        log.info("adding index %s to %s", index.name, name)
        dynamodb.update_table(
            TableName=name,
            AttributeDefinitions=[
                {"AttributeName": index.partition_key, "AttributeType": "S"},
                {"AttributeName": index.sort_key, "AttributeType": "S"},
            ],
            GlobalSecondaryIndexUpdates=[{"Create": _gsi(index)}],
        )
