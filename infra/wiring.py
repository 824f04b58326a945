"""The one declaration of how Continuity is wired.

Every function with its handler, trigger (HTTP routes, SQS queue, schedule), environment and the
resources it may read or write is declared here once. The CDK stack (``infra/stack.py``) and the
local stack (``infra/local``) are both built from these objects, so they cannot drift. The names
in them (environment variables, key and index attributes, projections) are
``continuity_core.kernel.names``, the module the functions' code reads them from.

Plain dataclasses only: this module is imported by the local stack and tests, so it must not
import aws_cdk.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from continuity_core.kernel import names


class Access(StrEnum):
    READ = "read"
    WRITE = "write"
    READ_WRITE = "read_write"
    SEND = "send"  # SQS: send messages
    DELETE = "delete"  # S3: delete objects only (the pruner)
    CONSUME = "consume"  # SQS: receive/delete (event source)
    INSPECT = "inspect"  # SQS: read the queue's and its DLQ's attributes (their depth), nothing else


@dataclass(frozen=True)
class GlobalIndex:
    name: str
    partition_key: str
    sort_key: str
    # None: the index projects every attribute (ALL); else only its keys and these (INCLUDE).
    projection: tuple[str, ...] | None = None


@dataclass(frozen=True)
class TableSpec:
    """A DynamoDB table: string keys, on-demand billing, one TTL attribute."""

    key: str  # logical name, referenced from FunctionSpec.resources
    env_var: str  # the environment variable that carries the physical table name
    partition_key: str
    sort_key: str
    ttl_attribute: str
    indexes: tuple[GlobalIndex, ...] = ()


@dataclass(frozen=True)
class QueueSpec:
    """A standard SQS queue with a dead-letter queue."""

    key: str
    env_var: str  # carries the queue URL
    visibility_timeout_s: int
    max_receive_count: int  # deliveries before a message moves to the DLQ
    dlq_retention_days: int = 14
    dlq_env_var: str | None = None  # carries the DLQ's URL to a function that INSPECTs the queue


@dataclass(frozen=True)
class BucketSpec:
    """A private S3 bucket: SSE-S3 encryption, public access blocked, TLS only; retained unless the
    stage is ephemeral. Objects expire ``transcript_retention_days`` (the service config) +
    ``orphan_grace_days`` after they were written: the pruner deletes a transcript's bodies with its
    head, this rule catches the ones it could not (bodies left without a head)."""

    key: str
    env_var: str  # carries the bucket name
    orphan_grace_days: int = 30
    # Versioned: a body deleted or overwritten (pruner, forget, a lost bucket's objects) stays
    # restorable as a noncurrent version this long, as long as the table's point-in-time recovery
    # reaches back, so a restored table finds its bodies (docs/DEPLOY.md, make restore-drill).
    noncurrent_days: int = 35


@dataclass(frozen=True)
class ItemGrant:
    """Access to some of a table's items beyond what ``FunctionSpec.resources`` grants: ``actions`` on
    the items whose partition key starts with ``key_prefix`` (IAM's ``dynamodb:LeadingKeys``)."""

    table: str  # TableSpec.key
    actions: tuple[str, ...]  # IAM actions, e.g. dynamodb:UpdateItem
    key_prefix: str


@dataclass(frozen=True)
class HttpRoute:
    method: str
    path: str  # HTTP API path template, e.g. /api/hooks/{event}
    authorized: bool = True
    # Part of the JSON API, so in the OpenAPI document (and fuzzed); the dashboard's files are not.
    documented: bool = True


@dataclass(frozen=True)
class QueueTrigger:
    queue: str  # QueueSpec.key
    batch_size: int = 10
    max_batching_window_s: int = 0


@dataclass(frozen=True)
class ScheduleTrigger:
    rate_minutes: int


@dataclass(frozen=True)
class FunctionSpec:
    key: str  # logical name; CDK construct id and local-stack name
    source_dir: str  # relative to the repository root; the Lambda code asset
    handler: str  # "module.function" inside source_dir
    description: str
    routes: tuple[HttpRoute, ...] = ()
    queue_trigger: QueueTrigger | None = None
    schedule: ScheduleTrigger | None = None
    # Resource key (table / queue) -> access. Grants in CDK, env vars in both stacks.
    resources: dict[str, Access] = field(default_factory=dict)
    environment: dict[str, str] = field(default_factory=dict)
    timeout_s: int = 10
    memory_mb: int = 512

    @property
    def item_grants(self) -> tuple[ItemGrant, ...]:
        """A function with authorized routes runs the rate-limit middleware (``continuity_core.kernel.http``),
        which adds each token's requests to a shared counter item: it needs that one write."""
        return (RATE_COUNTER,) if any(route.authorized for route in self.routes) else ()

    @property
    def module(self) -> str:
        return self.handler.rsplit(".", 1)[0]

    @property
    def function_name(self) -> str:
        return self.handler.rsplit(".", 1)[1]


@dataclass(frozen=True)
class AuthorizerSpec:
    """HTTP API Lambda authorizer (REQUEST type, simple responses) guarding authorized routes."""

    function: str  # FunctionSpec.key
    identity_header: str = "authorization"
    # How long a revoked token may still pass (API Gateway caches the answer per token). 60 s, not
    # 300 s: at most one authorizer run per token a minute, which the cost figure already charges
    # (it assumes every request runs the authorizer).
    cache_ttl_s: int = 60


# --------------------------------------------------------------------------------------------
# Resources
# --------------------------------------------------------------------------------------------

CONTINUITY_TABLE = TableSpec(
    key="continuity_table",
    env_var=names.TABLE_ENV,
    partition_key=names.PK,
    sort_key=names.SK,
    ttl_attribute=names.TTL_ATTRIBUTE,
    indexes=(
        GlobalIndex(
            name=names.PROJECT_INDEX, partition_key=names.PROJECT_INDEX_PK, sort_key=names.PROJECT_INDEX_SK
        ),
        # Sessions with a live transcript by project, newest first (a key appends never change).
        GlobalIndex(
            name=names.SESSION_INDEX,
            partition_key=names.SESSION_INDEX_PK,
            sort_key=names.SESSION_INDEX_SK,
            projection=names.SESSION_INDEX_ATTRIBUTES,
        ),
        # Sparse: what ages out (checkpoints, session state, transcript heads) by the bucket its
        # retention runs out in; the pruner reads the due buckets and the next (retention/retention.py).
        GlobalIndex(
            name=names.EXPIRY_INDEX,
            partition_key=names.EXPIRY_PK,
            sort_key=names.EXPIRY_SK,
            projection=names.EXPIRY_INDEX_ATTRIBUTES,
        ),
        # Sparse: sessions with pending prompts by when the idle sweep looks at them (checkpoints/idle.py).
        GlobalIndex(
            name=names.IDLE_INDEX,
            partition_key=names.IDLE_PK,
            sort_key=names.IDLE_SK,
            projection=names.IDLE_INDEX_ATTRIBUTES,
        ),
    ),
)

CHECKPOINT_QUEUE = QueueSpec(
    key="checkpoint_queue",
    env_var=names.QUEUE_ENV,
    # >= 6x the writer's timeout, as AWS recommends for SQS event sources.
    visibility_timeout_s=180,
    max_receive_count=5,
    dlq_env_var=names.DLQ_ENV,
)

# Transcript bodies in gzip chunks once transcriptChunkChars have come (the appends and the head item
# stay in the table).
TRANSCRIPT_BUCKET = BucketSpec(key="transcript_bucket", env_var=names.BUCKET_ENV)

# Each token's requests per minute, counted across instances (admin/dynamo_rate.py): an UpdateItem
# on RATE# items only, so a read-only function stays read-only for everything else in the table.
RATE_COUNTER = ItemGrant(
    table=CONTINUITY_TABLE.key, actions=("dynamodb:UpdateItem",), key_prefix=names.RATE_PREFIX
)

TABLES: tuple[TableSpec, ...] = (CONTINUITY_TABLE,)
QUEUES: tuple[QueueSpec, ...] = (CHECKPOINT_QUEUE,)
BUCKETS: tuple[BucketSpec, ...] = (TRANSCRIPT_BUCKET,)

# --------------------------------------------------------------------------------------------
# Functions
# --------------------------------------------------------------------------------------------

# The authorizer's accepted token (sha256 hex) until the token store lands.
API_TOKEN_ENV_VAR = names.API_TOKEN_ENV

SERVICE_ENVIRONMENT = {
    "POWERTOOLS_SERVICE_NAME": "continuity",
    "POWERTOOLS_METRICS_NAMESPACE": "Continuity",
}

AUTHORIZER = FunctionSpec(
    key="authorizer",
    source_dir="functions/authorizer",
    handler="handler.lambda_handler",
    description="Maps a bearer token to the caller's agent id and scopes.",
    resources={CONTINUITY_TABLE.key: Access.READ},
    environment={**SERVICE_ENVIRONMENT},
    timeout_s=5,
    memory_mb=256,
)

HOOKS = FunctionSpec(
    key="hooks",
    source_dir="functions/hooks",
    handler="handler.lambda_handler",
    description="Hook ingest: session state, debounced checkpoint triggers, recovery at session start.",
    routes=(HttpRoute("POST", "/api/hooks/{event}"),),
    resources={
        CONTINUITY_TABLE.key: Access.READ_WRITE,
        CHECKPOINT_QUEUE.key: Access.SEND,
        # Appends move transcript chunks to S3; the checkpoints written on the request path
        # (pre-compaction, session end, /clear) read the transcript since the digest last did.
        TRANSCRIPT_BUCKET.key: Access.READ_WRITE,
    },
    environment={**SERVICE_ENVIRONMENT},
)

READ_API = FunctionSpec(
    key="read_api",
    source_dir="functions/read_api",
    handler="handler.lambda_handler",
    description="Read API for checkpoints, the session-start preview, and health.",
    routes=(
        HttpRoute("GET", "/api/health", authorized=False),
        HttpRoute("GET", "/api/openapi.json", authorized=False),
        HttpRoute("GET", "/api/checkpoints"),
        HttpRoute("GET", "/api/checkpoints/{session_key}"),
        HttpRoute("GET", "/api/preview"),
        HttpRoute("GET", "/api/whoami"),
    ),
    resources={CONTINUITY_TABLE.key: Access.READ},
    environment={**SERVICE_ENVIRONMENT},
)

CHECKPOINT_WRITER = FunctionSpec(
    key="checkpoint_writer",
    source_dir="functions/checkpoint_writer",
    handler="handler.lambda_handler",
    description="Writes debounced checkpoints from the session's latest state.",
    queue_trigger=QueueTrigger(queue=CHECKPOINT_QUEUE.key, batch_size=10),
    # The rolling digest reads the live transcript since it last did (older parts may be in S3).
    resources={CONTINUITY_TABLE.key: Access.READ_WRITE, TRANSCRIPT_BUCKET.key: Access.READ},
    environment={**SERVICE_ENVIRONMENT},
    timeout_s=30,
)

AGENT_API = FunctionSpec(
    key="agent_api",
    source_dir="functions/agent_api",
    handler="handler.lambda_handler",
    description="Agent digests, explicit checkpoints, hand-offs, the decision ledger and tiered recovery.",
    routes=(
        HttpRoute("POST", "/api/sessions/{session_key}/digest"),
        HttpRoute("POST", "/api/sessions/{session_key}/checkpoint"),
        HttpRoute("POST", "/api/sessions/{session_key}/handoff"),
        HttpRoute("GET", "/api/ledger"),
        HttpRoute("GET", "/api/recovery"),
    ),
    # Level-2 recovery searches transcripts, whose bodies may be in S3.
    resources={CONTINUITY_TABLE.key: Access.READ_WRITE, TRANSCRIPT_BUCKET.key: Access.READ},
    environment={**SERVICE_ENVIRONMENT},
)

SESSIONS = FunctionSpec(
    key="sessions",
    source_dir="functions/sessions",
    handler="handler.lambda_handler",
    description="Sessions: the list by project, one transcript, ranked search, the dashboard's reads.",
    routes=(
        HttpRoute("GET", "/api/sessions"),
        HttpRoute("GET", "/api/sessions/{session_key}/transcript"),
        HttpRoute("POST", "/api/sessions/search"),
        # The dashboard's reads (one request per page, a fixed number of store reads each).
        HttpRoute("GET", "/api/projects"),
        HttpRoute("GET", "/api/projects/activity"),
        HttpRoute("GET", "/api/sessions/overview"),
        HttpRoute("GET", "/api/sessions/{session_key}/timeline"),
        HttpRoute("GET", "/api/sessions/{session_key}/checkpoints/{sequence}"),
        HttpRoute("GET", "/api/sessions/{session_key}/injections"),
        HttpRoute("GET", "/api/sessions/{session_key}/lineage"),
    ),
    resources={CONTINUITY_TABLE.key: Access.READ, TRANSCRIPT_BUCKET.key: Access.READ},
    environment={**SERVICE_ENVIRONMENT},
    # Search indexes the sessions in scope in memory (and keeps them warm): more memory, more CPU.
    timeout_s=25,
    memory_mb=1024,
)

TOKENS = FunctionSpec(
    key="tokens",
    source_dir="functions/tokens",
    handler="handler.lambda_handler",
    description="Administration (admin scope): tokens (create, list, revoke) and the service's health.",
    routes=(
        HttpRoute("POST", "/api/tokens"),
        HttpRoute("GET", "/api/tokens"),
        HttpRoute("DELETE", "/api/tokens/{token_id}"),
        HttpRoute("GET", "/api/admin/health"),
    ),
    # The health route reads the checkpoint queue's and its DLQ's depth (GetQueueAttributes only).
    resources={CONTINUITY_TABLE.key: Access.READ_WRITE, CHECKPOINT_QUEUE.key: Access.INSPECT},
    environment={**SERVICE_ENVIRONMENT},
    memory_mb=256,
)

FORGET = FunctionSpec(
    key="forget",
    source_dir="functions/forget",
    handler="handler.lambda_handler",
    description="Deletes a session's or a project's data now (hooks or admin scope, own agent only).",
    routes=(
        HttpRoute("DELETE", "/api/sessions/{session_key}"),
        HttpRoute("DELETE", "/api/projects"),
    ),
    # Deletes items (BatchWriteItem, DeleteItem), puts the tombstone, rewrites the ledger's head and
    # the project record's open hand-offs;
    # deletes transcript bodies in S3 and nothing else there.
    resources={CONTINUITY_TABLE.key: Access.READ_WRITE, TRANSCRIPT_BUCKET.key: Access.DELETE},
    environment={**SERVICE_ENVIRONMENT},
    timeout_s=30,
)

PRUNER = FunctionSpec(
    key="pruner",
    source_dir="functions/pruner",
    handler="handler.lambda_handler",
    description="Deletes what outlived its retention: checkpoints, session state, transcripts and bodies.",
    schedule=ScheduleTrigger(rate_minutes=60),
    resources={CONTINUITY_TABLE.key: Access.READ_WRITE, TRANSCRIPT_BUCKET.key: Access.DELETE},
    environment={**SERVICE_ENVIRONMENT},
    # A run stops starting buckets 30 s before this; the next run goes on from its cursor.
    timeout_s=300,
)

IDLE_SWEEP = FunctionSpec(
    key="idle_sweep",
    source_dir="functions/idle_sweep",
    handler="handler.lambda_handler",
    description="Writes the final checkpoint (trigger idle) of sessions quiet for idleCloseMinutes.",
    schedule=ScheduleTrigger(rate_minutes=5),
    # Reads the idle index and states, writes checkpoints and moves index places; the writer's
    # digest reads the transcript since it last did (older parts may be in S3).
    resources={CONTINUITY_TABLE.key: Access.READ_WRITE, TRANSCRIPT_BUCKET.key: Access.READ},
    environment={**SERVICE_ENVIRONMENT},
    # A run stops taking sessions 10 s before this; the rest are still due for the next run.
    timeout_s=60,
)

# The web app, bundled with this function and served from the API's own origin (no CORS, no
# bucket, no CDN): the pages need no secret, their data comes from the authorized /api routes.
DASHBOARD = FunctionSpec(
    key="dashboard",
    source_dir="functions/dashboard",
    handler="handler.lambda_handler",
    description="The dashboard: its page and static files (the data comes from the /api routes).",
    routes=(
        HttpRoute("GET", "/dashboard", authorized=False, documented=False),
        HttpRoute("GET", "/dashboard/{proxy+}", authorized=False, documented=False),
        # Browsers ask the origin's root for it whatever the page says: answered, not a 404.
        HttpRoute("GET", "/favicon.ico", authorized=False, documented=False),
    ),
    environment={**SERVICE_ENVIRONMENT},
    timeout_s=5,
    memory_mb=256,
)

FUNCTIONS: tuple[FunctionSpec, ...] = (
    AUTHORIZER,
    HOOKS,
    READ_API,
    CHECKPOINT_WRITER,
    AGENT_API,
    SESSIONS,
    TOKENS,
    FORGET,
    PRUNER,
    IDLE_SWEEP,
    DASHBOARD,
)
API_AUTHORIZER = AuthorizerSpec(function=AUTHORIZER.key)


def function(key: str) -> FunctionSpec:
    return next(spec for spec in FUNCTIONS if spec.key == key)


def dlq_resource(queue_key: str) -> str:
    """A queue's dead-letter queue as a resource of its own (the access guard's, the local stack's)."""
    return f"{queue_key}#dlq"


def resource_env_var(resource_key: str) -> str:
    specs: tuple[TableSpec | QueueSpec | BucketSpec, ...] = (*TABLES, *QUEUES, *BUCKETS)
    for spec in specs:
        if spec.key == resource_key:
            return spec.env_var
    raise KeyError(resource_key)
