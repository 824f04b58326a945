"""Create the wiring's tables, queues and buckets on the current (moto) backend."""

from __future__ import annotations

import json
from typing import Any

import boto3

from infra.wiring import BUCKETS, QUEUES, TABLES, GlobalIndex


def provision(prefix: str = "continuity-test") -> dict[str, str]:
    dynamodb = boto3.client("dynamodb")
    sqs = boto3.client("sqs")
    environment: dict[str, str] = {}
    for table in TABLES:
        name = f"{prefix}-{table.key}"
        attributes = {table.partition_key, table.sort_key}
        for index in table.indexes:
            attributes |= {index.partition_key, index.sort_key}
        dynamodb.create_table(
            TableName=name,
            BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": a, "AttributeType": "S"} for a in sorted(attributes)],
            KeySchema=[
                {"AttributeName": table.partition_key, "KeyType": "HASH"},
                {"AttributeName": table.sort_key, "KeyType": "RANGE"},
            ],
            GlobalSecondaryIndexes=[global_index(index) for index in table.indexes],
        )
        environment[table.env_var] = name
    for queue in QUEUES:
        dlq_url = sqs.create_queue(QueueName=f"{prefix}-{queue.key}-dlq")["QueueUrl"]
        dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq_url, AttributeNames=["QueueArn"])["Attributes"][
            "QueueArn"
        ]
        url = sqs.create_queue(
            QueueName=f"{prefix}-{queue.key}",
            Attributes={
                "VisibilityTimeout": str(queue.visibility_timeout_s),
                "RedrivePolicy": json.dumps(
                    {"deadLetterTargetArn": dlq_arn, "maxReceiveCount": queue.max_receive_count}
                ),
            },
        )["QueueUrl"]
        environment[queue.env_var] = url
    s3 = boto3.client("s3")
    for bucket in BUCKETS:
        name = f"{prefix}-{bucket.key}".replace("_", "-")
        s3.create_bucket(Bucket=name)
        environment[bucket.env_var] = name
    return environment


def global_index(index: GlobalIndex) -> Any:
    return {
        "IndexName": index.name,
        "KeySchema": [
            {"AttributeName": index.partition_key, "KeyType": "HASH"},
            {"AttributeName": index.sort_key, "KeyType": "RANGE"},
        ],
        "Projection": projection(index),
    }


def projection(index: GlobalIndex) -> dict[str, Any]:
    if index.projection is None:
        return {"ProjectionType": "ALL"}
    return {"ProjectionType": "INCLUDE", "NonKeyAttributes": list(index.projection)}
