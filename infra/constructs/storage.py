"""DynamoDB tables declared in ``wiring.TABLES``."""

from __future__ import annotations

from collections.abc import Sequence

from aws_cdk import RemovalPolicy
from aws_cdk import aws_dynamodb as dynamodb
from constructs import Construct

from infra.constructs.defaults import construct_id
from infra.wiring import TableSpec


class Storage(Construct):
    """On-demand tables with string keys, GSIs (projecting ALL unless the index names its attributes),
    TTL, PITR and AWS-managed encryption.

    Tables are retained and deletion-protected unless the stage is ephemeral.
    """

    def __init__(self, scope: Construct, id: str, *, tables: Sequence[TableSpec], ephemeral: bool) -> None:
        super().__init__(scope, id)
        self.specs: dict[str, TableSpec] = {spec.key: spec for spec in tables}
        self.tables: dict[str, dynamodb.Table] = {spec.key: self._table(spec, ephemeral) for spec in tables}

    def _table(self, spec: TableSpec, ephemeral: bool) -> dynamodb.Table:
        table = dynamodb.Table(
            self,
            construct_id(spec.key),
            partition_key=_string(spec.partition_key),
            sort_key=_string(spec.sort_key),
            billing_mode=dynamodb.BillingMode.PAY_PER_REQUEST,
            time_to_live_attribute=spec.ttl_attribute,
            point_in_time_recovery_specification=dynamodb.PointInTimeRecoverySpecification(
                point_in_time_recovery_enabled=True
            ),
            encryption=dynamodb.TableEncryption.AWS_MANAGED,
            removal_policy=RemovalPolicy.DESTROY if ephemeral else RemovalPolicy.RETAIN,
            deletion_protection=not ephemeral,
        )
        for index in spec.indexes:
            table.add_global_secondary_index(
                index_name=index.name,
                partition_key=_string(index.partition_key),
                sort_key=_string(index.sort_key),
                projection_type=dynamodb.ProjectionType.ALL
                if index.projection is None
                else dynamodb.ProjectionType.INCLUDE,
                non_key_attributes=None if index.projection is None else list(index.projection),
            )
        return table


def _string(name: str) -> dynamodb.Attribute:
    return dynamodb.Attribute(name=name, type=dynamodb.AttributeType.STRING)
