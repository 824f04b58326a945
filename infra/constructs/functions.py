"""One factory for every Lambda function in ``wiring.FUNCTIONS``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from aws_cdk import Acknowledgment, Duration, RemovalPolicy, Stack, Validations
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from constructs import Construct

from infra.constructs.buckets import Buckets
from infra.constructs.defaults import ARCHITECTURE, LOG_RETENTION, NAG_PACK, PYTHON_RUNTIME, construct_id
from infra.constructs.queues import Queues
from infra.constructs.storage import Storage
from infra.wiring import Access, FunctionSpec, ItemGrant, resource_env_var

# Kept out of the code asset: caches and anything a test run leaves beside a handler.
ASSET_EXCLUDES = ["__pycache__", "*.pyc", "tests", ".pytest_cache"]

_TABLE_GRANTS = {
    Access.READ: dynamodb.Table.grant_read_data,
    Access.WRITE: dynamodb.Table.grant_write_data,
    Access.READ_WRITE: dynamodb.Table.grant_read_write_data,
}

# Object actions per access, named one by one (the L2 grants add wildcards such as s3:GetObject*).
# Object keys are listed in the head item, so no function needs s3:ListBucket.
_BUCKET_ACTIONS = {
    Access.READ: ["s3:GetObject"],
    Access.WRITE: ["s3:PutObject", "s3:DeleteObject"],
    Access.READ_WRITE: ["s3:GetObject", "s3:PutObject", "s3:DeleteObject"],
    Access.DELETE: ["s3:DeleteObject"],  # also what DeleteObjects needs, per key
}


class ServiceFunctions(Construct):
    """Builds each function with its own role, log group, layers, environment and grants.

    Everything comes from the ``FunctionSpec``: code asset (``source_dir``), handler, timeout,
    memory, environment, and the grants its ``resources`` declare (``CONSUME`` is granted by the
    queue trigger's event source, see ``triggers.py``).
    """

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        specs: Sequence[FunctionSpec],
        source_root: Path,
        layers: Sequence[lambda_.ILayerVersion],
        storage: Storage,
        queues: Queues,
        environment: Mapping[str, str],
        buckets: Buckets | None = None,
        extra_environment: Mapping[str, Mapping[str, str]] | None = None,
        log_removal_policy: RemovalPolicy = RemovalPolicy.RETAIN,
    ) -> None:
        super().__init__(scope, id)
        self._source_root = source_root
        self._layers = list(layers)
        self._storage = storage
        self._tables = storage.tables
        self._queues = queues.queues
        self._dead_letter_queues = queues.dead_letter_queues
        self._queue_specs = queues.specs
        self._buckets = buckets.buckets if buckets is not None else {}
        self._environment = dict(environment)
        self._extra_environment = extra_environment or {}
        self._log_removal_policy = log_removal_policy
        self.functions: dict[str, lambda_.Function] = {spec.key: self._function(spec) for spec in specs}

    def _function(self, spec: FunctionSpec) -> lambda_.Function:
        code_dir = self._source_root / spec.source_dir
        if not code_dir.is_dir():
            raise FileNotFoundError(f"function {spec.key!r}: source_dir {spec.source_dir!r} not found")
        name = construct_id(spec.key)
        log_group = logs.LogGroup(
            self, f"{name}Logs", retention=LOG_RETENTION, removal_policy=self._log_removal_policy
        )
        # One role per function: only its own log group plus the grants from its resources.
        role = iam.Role(
            self,
            f"{name}Role",
            assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
            description=f"Continuity {spec.key} function",
        )
        log_group.grant_write(role)
        function = lambda_.Function(
            self,
            name,
            description=spec.description,
            runtime=PYTHON_RUNTIME,
            architecture=ARCHITECTURE,
            code=lambda_.Code.from_asset(str(code_dir), exclude=ASSET_EXCLUDES),
            handler=spec.handler,
            layers=self._layers,
            timeout=Duration.seconds(spec.timeout_s),
            memory_size=spec.memory_mb,
            role=role,
            log_group=log_group,
            # JSON logs filtered by level: Lambda's own START/END/REPORT lines are INFO and stay out
            # (~300 bytes per invocation, the largest log share per prompt; duration, errors and
            # throttles are CloudWatch metrics anyway), our Powertools lines keep their level.
            logging_format=lambda_.LoggingFormat.JSON,
            system_log_level_v2=lambda_.SystemLogLevel.WARN,
            application_log_level_v2=lambda_.ApplicationLogLevel.INFO,
            environment=self._function_environment(spec),
        )
        self._grant(spec, function)
        Validations.of(function).acknowledge(
            Acknowledgment(
                id=f"{NAG_PACK}::AwsSolutions-L1",
                reason="Python 3.12 is pinned on purpose: the dependency layer is built for cp312/aarch64 "
                "(infra/build_layer.py); the runtime is upgraded together with the layer.",
            )
        )
        return function

    def _function_environment(self, spec: FunctionSpec) -> dict[str, str]:
        env = {**self._environment, **spec.environment}
        for key in (*spec.resources, *(grant.table for grant in spec.item_grants)):
            if key in self._tables:
                env[resource_env_var(key)] = self._tables[key].table_name
            elif key in self._queues:
                env[resource_env_var(key)] = self._queues[key].queue_url
                dlq_var = self._queue_specs[key].dlq_env_var
                if spec.resources.get(key) is Access.INSPECT and dlq_var:
                    env[dlq_var] = self._dead_letter_queues[key].queue_url
            elif key in self._buckets:
                env[resource_env_var(key)] = self._buckets[key].bucket_name
            else:
                raise KeyError(f"function {spec.key!r}: unknown resource {key!r}")
        env.update(self._extra_environment.get(spec.key, {}))
        return env

    def _grant(self, spec: FunctionSpec, function: lambda_.Function) -> None:
        for key, access in spec.resources.items():
            if key in self._tables and access in _TABLE_GRANTS:
                _TABLE_GRANTS[access](self._tables[key], function)
                self._acknowledge_index_wildcard(function.role, key)
            elif key in self._buckets and access in _BUCKET_ACTIONS:
                self._grant_objects(function, key, access)
            elif key in self._queues and access is Access.SEND:
                self._queues[key].grant_send_messages(function)
            elif key in self._queues and access is Access.INSPECT:
                for queue in (self._queues[key], self._dead_letter_queues[key]):
                    queue.grant(function, "sqs:GetQueueAttributes")
            elif key in self._queues and access is Access.CONSUME:
                if spec.queue_trigger is None or spec.queue_trigger.queue != key:
                    raise ValueError(f"function {spec.key!r}: CONSUME of {key!r} needs a queue_trigger on it")
            else:
                raise ValueError(f"function {spec.key!r}: access {access.value!r} does not apply to {key!r}")
        for grant in spec.item_grants:
            function.add_to_role_policy(self._item_statement(grant))

    def _item_statement(self, grant: ItemGrant) -> iam.PolicyStatement:
        """The grant's actions on the table, only for items whose partition key has its prefix.

        ForAllValues: every partition key the request touches must match (an item write names one).
        """
        return iam.PolicyStatement(
            actions=list(grant.actions),
            resources=[self._tables[grant.table].table_arn],
            conditions={"ForAllValues:StringLike": {"dynamodb:LeadingKeys": [f"{grant.key_prefix}*"]}},
        )

    def _grant_objects(self, function: lambda_.Function, bucket_key: str, access: Access) -> None:
        bucket = self._buckets[bucket_key]
        function.add_to_role_policy(
            iam.PolicyStatement(actions=_BUCKET_ACTIONS[access], resources=[bucket.arn_for_objects("*")])
        )
        if function.role is None:
            return
        logical_id = Stack.of(bucket).get_logical_id(bucket.node.default_child)  # type: ignore[arg-type]
        Validations.of(function.role).acknowledge(
            Acknowledgment(
                id=f"{NAG_PACK}::AwsSolutions-IAM5[Resource::<{logical_id}.Arn>/*]",
                reason="Object keys are per tenant and session (transcripts/{agent}/{session}/...), "
                "created at run time; the grant names its actions one by one and covers one bucket.",
            )
        )

    def _acknowledge_index_wildcard(self, role: iam.IRole | None, table_key: str) -> None:
        if role is None or not self._storage.specs[table_key].indexes:
            return
        table = self._tables[table_key]
        logical_id = Stack.of(table).get_logical_id(table.node.default_child)  # type: ignore[arg-type]
        Validations.of(role).acknowledge(
            Acknowledgment(
                id=f"{NAG_PACK}::AwsSolutions-IAM5[Resource::<{logical_id}.Arn>/index/*]",
                reason="The table grant covers the table's own GSIs (tableArn/index/*), which the queries "
                "need; it is scoped to this one table.",
            )
        )
