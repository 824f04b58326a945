"""The DynamoDB table matches its TableSpec and is protected unless the stage is ephemeral."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from aws_cdk import Stack
from aws_cdk.assertions import Template

from infra import wiring
from infra.constructs.storage import Storage
from infra.local.provision import index_projection

if TYPE_CHECKING:
    from tests.infra.synth import Synthesized


def _table(synthesized: Synthesized, spec: wiring.TableSpec) -> dict:
    logical_id = synthesized.logical_id(synthesized.stack.storage.tables[spec.key])
    return synthesized.resources("AWS::DynamoDB::Table")[logical_id]


def _key_schema(partition_key: str, sort_key: str) -> list[dict[str, str]]:
    return [
        {"AttributeName": partition_key, "KeyType": "HASH"},
        {"AttributeName": sort_key, "KeyType": "RANGE"},
    ]


@pytest.mark.parametrize("spec", wiring.TABLES, ids=lambda t: t.key)
def test_each_table_has_the_wiring_keys_indexes_and_ttl(
    synthesized: Synthesized, spec: wiring.TableSpec
) -> None:
    # When the table is read from the template
    props = _table(synthesized, spec)["Properties"]
    # Then its keys, GSIs (with their projection), string attributes and TTL are the spec's
    assert props["KeySchema"] == _key_schema(spec.partition_key, spec.sort_key)
    indexes = {gsi["IndexName"]: gsi for gsi in props.get("GlobalSecondaryIndexes", [])}
    assert set(indexes) == {index.name for index in spec.indexes}
    for index in spec.indexes:
        assert indexes[index.name]["KeySchema"] == _key_schema(index.partition_key, index.sort_key)
        assert indexes[index.name]["Projection"] == index_projection(index)
    assert all(a["AttributeType"] == "S" for a in props["AttributeDefinitions"])
    assert props["TimeToLiveSpecification"] == {"AttributeName": spec.ttl_attribute, "Enabled": True}


@pytest.mark.parametrize("spec", wiring.TABLES, ids=lambda t: t.key)
def test_each_table_is_on_demand_encrypted_recoverable_and_retained(
    synthesized: Synthesized, spec: wiring.TableSpec
) -> None:
    # When the table is read (cdk.json's dev stage is not ephemeral)
    resource = _table(synthesized, spec)
    props = resource["Properties"]
    # Then it bills per request, is encrypted, has PITR, and survives stack deletion
    assert props["BillingMode"] == "PAY_PER_REQUEST"
    assert props["SSESpecification"] == {"SSEEnabled": True}
    assert props["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}
    assert props["DeletionProtectionEnabled"] is True
    assert resource["DeletionPolicy"] == "Retain"
    assert resource["UpdateReplacePolicy"] == "Retain"


def test_an_ephemeral_stage_destroys_its_tables_without_deletion_protection(bare_stack: Stack) -> None:
    # Given the storage construct of an ephemeral stage
    Storage(bare_stack, "Storage", tables=wiring.TABLES, ephemeral=True)
    # When it is synthesized
    tables = Template.from_stack(bare_stack).find_resources("AWS::DynamoDB::Table")
    # Then its tables go away with the stack
    assert len(tables) == len(wiring.TABLES)
    for table in tables.values():
        assert table["DeletionPolicy"] == "Delete"
        assert table["Properties"]["DeletionProtectionEnabled"] is False


def test_the_table_name_is_an_output_with_a_fixed_logical_id(synthesized: Synthesized) -> None:
    # Then the outputs are found by their fixed names
    table = synthesized.logical_id(synthesized.stack.storage.tables[wiring.CONTINUITY_TABLE.key])
    outputs = synthesized.template.find_outputs("*")
    assert outputs["TableName"]["Value"] == {"Ref": table}
    assert {"ApiUrl", "TableName", "CheckpointQueueUrl", "CheckpointDlqUrl"} <= set(outputs)
