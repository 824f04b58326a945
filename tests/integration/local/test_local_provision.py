"""Provisioning from the wiring on moto: same definitions as CDK, idempotent."""

import json
from typing import Any

from infra import wiring
from infra.local.provision import provision


def test_tables_and_queues_are_created_as_declared(moto_clients: tuple[Any, Any]) -> None:
    dynamodb, sqs = moto_clients

    out = provision(dynamodb, sqs, wiring.TABLES, wiring.QUEUES)

    table = dynamodb.describe_table(TableName=out.tables["continuity_table"])["Table"]
    assert table["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
    assert {k["AttributeName"]: k["KeyType"] for k in table["KeySchema"]} == {"pk": "HASH", "sk": "RANGE"}
    assert {a["AttributeType"] for a in table["AttributeDefinitions"]} == {"S"}
    indexes = {index["IndexName"]: index for index in table["GlobalSecondaryIndexes"]}
    assert set(indexes) == {index.name for index in wiring.CONTINUITY_TABLE.indexes}
    assert indexes["by_project"]["Projection"]["ProjectionType"] == "ALL"
    ttl = dynamodb.describe_time_to_live(TableName=out.tables["continuity_table"])["TimeToLiveDescription"]
    assert (ttl["TimeToLiveStatus"], ttl["AttributeName"]) == ("ENABLED", "expires_at")

    queue = out.queues["checkpoint_queue"]
    attributes = sqs.get_queue_attributes(QueueUrl=queue.url, AttributeNames=["All"])["Attributes"]
    assert attributes["VisibilityTimeout"] == "180"
    assert json.loads(attributes["RedrivePolicy"]) == {
        "deadLetterTargetArn": queue.dlq_arn,
        "maxReceiveCount": 5,
    }
    assert queue.dlq_name == f"{queue.name}-dlq"

    assert out.environment == {
        "CONTINUITY_TABLE_NAME": out.tables["continuity_table"],
        "CHECKPOINT_QUEUE_URL": queue.url,
        "CHECKPOINT_DLQ_URL": queue.dlq_url,  # for the function that reads the queues' depth
    }


def test_provisioning_twice_changes_nothing_and_repairs_drift(moto_clients: tuple[Any, Any]) -> None:
    dynamodb, sqs = moto_clients
    first = provision(dynamodb, sqs, wiring.TABLES, wiring.QUEUES)
    url = first.queues["checkpoint_queue"].url
    sqs.set_queue_attributes(QueueUrl=url, Attributes={"VisibilityTimeout": "5"})

    second = provision(dynamodb, sqs, wiring.TABLES, wiring.QUEUES)

    assert second.environment == first.environment
    attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["VisibilityTimeout"])["Attributes"]
    assert attributes["VisibilityTimeout"] == "180"
