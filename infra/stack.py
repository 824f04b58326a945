"""The Continuity stack: composes the constructs from the declarations in ``infra/wiring.py``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from aws_cdk import CfnOutput, Environment, RemovalPolicy, Stack
from constructs import Construct

from continuity_core.kernel.config import ContinuityConfig
from infra import outputs, wiring
from infra.build_layer import REPO_ROOT, LayerPaths
from infra.constructs.api import ServiceApi
from infra.constructs.buckets import Buckets
from infra.constructs.functions import ServiceFunctions
from infra.constructs.layers import SharedLayers
from infra.constructs.monitoring import Monitoring
from infra.constructs.queues import Queues
from infra.constructs.storage import Storage
from infra.constructs.triggers import Triggers

API_TOKEN_ENV_VAR = wiring.API_TOKEN_ENV_VAR


class ContinuityStack(Stack):
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        config: ContinuityConfig,
        layers: LayerPaths,
        api_token_sha256: str = "",
        ephemeral: bool = False,
        source_root: Path = REPO_ROOT,
        functions: Sequence[wiring.FunctionSpec] = wiring.FUNCTIONS,
        stack_name: str | None = None,
        description: str | None = None,
        env: Environment | None = None,
        tags: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(scope, id, stack_name=stack_name, description=description, env=env, tags=tags)
        removal = RemovalPolicy.DESTROY if ephemeral else RemovalPolicy.RETAIN

        self.storage = Storage(self, "Storage", tables=wiring.TABLES, ephemeral=ephemeral)
        self.queues = Queues(self, "Queues", queues=wiring.QUEUES)
        self.buckets = Buckets(
            self,
            "Buckets",
            buckets=wiring.BUCKETS,
            # The bodies are transcripts': their lifecycle follows the transcripts' retention.
            retention_days=config.transcript_retention_days,
            ephemeral=ephemeral,
        )
        shared_layers = SharedLayers(self, "Layers", paths=layers)
        self.functions = ServiceFunctions(
            self,
            "Functions",
            specs=functions,
            source_root=source_root,
            layers=shared_layers.all,
            storage=self.storage,
            queues=self.queues,
            buckets=self.buckets,
            environment=config.to_environment(),
            extra_environment={wiring.API_AUTHORIZER.function: {API_TOKEN_ENV_VAR: api_token_sha256}},
            log_removal_policy=removal,
        )
        Triggers(self, "Triggers", specs=functions, functions=self.functions.functions, queues=self.queues)
        self.api = ServiceApi(
            self,
            "Api",
            specs=functions,
            functions=self.functions.functions,
            authorizer=wiring.API_AUTHORIZER,
            log_removal_policy=removal,
        )

        self.monitoring = Monitoring(
            self,
            "Monitoring",
            functions=self.functions.functions,
            dead_letter_queues=self.queues.dead_letter_queues,
            api=self.api.api,
            dashboard_name=f"{self.stack_name}-overview",
        )

        # Fixed logical ids (top-level construct ids): tests and scripts look them up by name.
        table = self.storage.tables[wiring.CONTINUITY_TABLE.key]
        CfnOutput(self, outputs.API_URL, value=self.api.url, description="HTTP API base URL")
        CfnOutput(self, outputs.TABLE_NAME, value=table.table_name, description="Continuity table")
        CfnOutput(
            self,
            outputs.CHECKPOINT_QUEUE_URL,
            value=self.queues.queues[wiring.CHECKPOINT_QUEUE.key].queue_url,
            description="Checkpoint queue",
        )
        CfnOutput(
            self,
            outputs.CHECKPOINT_DLQ_URL,
            value=self.queues.dead_letter_queues[wiring.CHECKPOINT_QUEUE.key].queue_url,
            description="Checkpoint dead-letter queue",
        )
        CfnOutput(
            self,
            outputs.TRANSCRIPT_BUCKET_NAME,
            value=self.buckets.buckets[wiring.TRANSCRIPT_BUCKET.key].bucket_name,
            description="Transcript bodies (gzip chunks of transcriptChunkChars)",
        )
