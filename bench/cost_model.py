"""The cost model behind ``cost_per_100k_prompts_usd``: list prices, assumptions and the arithmetic.

Pure: ``bench/bench_cost.py`` measures a ``Usage`` (per prompt) on moto, ``costs()`` prices it.
docs/COST.md shows the same tables; ``python -m bench.bench_cost --markdown`` prints them, and a
unit test checks the doc's figures against ``costs()`` of the doc's own usage table.

Prices: AWS list prices, us-east-1, on-demand, no free tier, checked 2026-11-22 (sources in
docs/COST.md).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields

PROMPTS = 100_000
GB = 1024**3


@dataclass(frozen=True)
class Prices:
    api_gateway_http_per_million: float = 1.00  # HTTP API, first 300M/month, per 512 KB
    lambda_requests_per_million: float = 0.20
    lambda_arm_gb_second: float = 0.0000133334  # arm64, first 7.5B GB-s/month
    dynamodb_wru_per_million: float = 0.625  # on-demand, Standard table class
    dynamodb_rru_per_million: float = 0.125
    dynamodb_storage_gb_month: float = 0.25
    dynamodb_pitr_gb_month: float = 0.20  # continuous backups, on the table size
    sqs_requests_per_million: float = 0.40  # standard queue, per 64 KB chunk
    s3_put_per_thousand: float = 0.005  # S3 Standard PUT/COPY/POST/LIST
    s3_get_per_thousand: float = 0.0004
    s3_storage_gb_month: float = 0.023
    logs_ingest_per_gb: float = 0.50  # CloudWatch Logs, Standard class (Lambda's first tier)
    logs_storage_gb_month: float = 0.03


@dataclass(frozen=True)
class Assumptions:
    """What the bench cannot measure on moto; conservative on purpose."""

    authorizer_cache_hit_ratio: float = 0.0  # every request invokes the authorizer (real: 300 s cache)
    cpu_scale_reference_mb: int = 1769  # Lambda gives one full vCPU at 1,769 MB
    # What one AWS call waits on Lambda (in-region DynamoDB answers in single-digit ms; S3 and SQS take
    # longer): billed wall time, not CPU, so it is not scaled by the CPU share.
    aws_call_ms: float = 10.0
    cold_start_share: float = 0.02  # invocations that pay an init phase
    init_ms: float = 800.0  # billed init duration of a cold start
    # Lambda's START/END/REPORT lines are system INFO logs, filtered out (system level WARN,
    # infra/constructs/functions.py); what JSON log format adds to our own lines (requestId).
    platform_log_bytes_per_invocation: int = 60
    access_log_bytes_per_request: int = 350  # one JSON line per API request (infra/constructs/api.py)
    esm_sqs_requests_per_batch: int = 2  # Lambda's ReceiveMessage + DeleteMessageBatch per delivery
    retention_days: int = 7  # the items' TTL (config retentionDays)
    s3_orphan_grace_days: int = 30  # wiring.BucketSpec.orphan_grace_days
    # wiring.BucketSpec.noncurrent_days: a body the pruner deleted stays a noncurrent version this long.
    s3_noncurrent_days: int = 35
    log_retention_days: int = 30  # infra/constructs/defaults.LOG_RETENTION


@dataclass(frozen=True)
class Usage:
    """What one prompt costs in requests, units, milliseconds and bytes (a session's share included)."""

    http_requests: float  # API Gateway requests = hooks function invocations
    writer_invocations: float  # checkpoint writer deliveries (batches)
    hooks_ms: float  # median warm time in our own code (AWS calls left out; scaled by CPU share)
    writer_ms: float
    authorizer_ms: float
    hooks_aws_calls: float  # AWS calls per invocation (each billed ``aws_call_ms`` of waiting)
    writer_aws_calls: float
    authorizer_aws_calls: float
    hooks_memory_mb: int
    writer_memory_mb: int
    authorizer_memory_mb: int
    dynamodb_wru: float  # write request units (size-based; transactions x2; GSI writes included, x1)
    dynamodb_rru: float  # read request units of the hook path
    authorizer_rru: float  # read request units of one authorizer invocation (token lookup)
    pruner_wru: float  # the pruner's deletes of what the prompt left (checkpoints, state, head)
    pruner_rru: float
    dynamodb_stored_bytes: float  # item bytes (+100 B each, GSI copies included) written per prompt
    s3_puts: float
    s3_gets: float
    s3_stored_bytes: float
    sqs_requests: float  # our own SendMessage etc.
    app_log_bytes: float  # Powertools log lines + EMF metrics written per prompt


def lambda_billed_ms(measured_ms: float, aws_calls: float, memory_mb: int, a: Assumptions) -> float:
    """Our own ms measured on a full core → billed ms at ``memory_mb`` (CPU share), plus the waits
    on AWS calls and the cold starts' share."""
    cpu_scale = max(1.0, a.cpu_scale_reference_mb / memory_mb)
    return math.ceil(measured_ms * cpu_scale + aws_calls * a.aws_call_ms) + a.cold_start_share * a.init_ms


def lambda_cost(
    invocations: float, measured_ms: float, aws_calls: float, memory_mb: int, p: Prices, a: Assumptions
) -> float:
    billed = lambda_billed_ms(measured_ms, aws_calls, memory_mb, a)
    gb_seconds = invocations * (memory_mb / 1024) * billed / 1000
    return invocations * p.lambda_requests_per_million / 1e6 + gb_seconds * p.lambda_arm_gb_second


def costs(
    usage: Usage, prices: Prices | None = None, assumptions: Assumptions | None = None
) -> dict[str, float]:
    """USD per ``PROMPTS`` prompts, per service and in total."""
    p, a = prices or Prices(), assumptions or Assumptions()
    n = PROMPTS
    authorizer_invocations = usage.http_requests * (1 - a.authorizer_cache_hit_ratio)

    api_gateway = n * usage.http_requests * p.api_gateway_http_per_million / 1e6
    invocations = (
        (usage.http_requests, usage.hooks_ms, usage.hooks_aws_calls, usage.hooks_memory_mb),
        (usage.writer_invocations, usage.writer_ms, usage.writer_aws_calls, usage.writer_memory_mb),
        (authorizer_invocations, usage.authorizer_ms, usage.authorizer_aws_calls, usage.authorizer_memory_mb),
    )
    lambda_ = sum(lambda_cost(n * count, ms, calls, memory, p, a) for count, ms, calls, memory in invocations)
    rru = usage.dynamodb_rru + authorizer_invocations * usage.authorizer_rru + usage.pruner_rru
    stored_gb_months = n * usage.dynamodb_stored_bytes / GB * a.retention_days / 30
    dynamodb = (
        n * (usage.dynamodb_wru + usage.pruner_wru) * p.dynamodb_wru_per_million / 1e6
        + n * rru * p.dynamodb_rru_per_million / 1e6
        + stored_gb_months * (p.dynamodb_storage_gb_month + p.dynamodb_pitr_gb_month)
    )
    s3_days = a.retention_days + max(a.s3_orphan_grace_days, a.s3_noncurrent_days)
    s3_gb_months = n * usage.s3_stored_bytes / GB * s3_days / 30
    s3 = (
        n * usage.s3_puts * p.s3_put_per_thousand / 1e3
        + n * usage.s3_gets * p.s3_get_per_thousand / 1e3
        + s3_gb_months * p.s3_storage_gb_month
    )
    sqs_requests = usage.sqs_requests + usage.writer_invocations * a.esm_sqs_requests_per_batch
    sqs = n * sqs_requests * p.sqs_requests_per_million / 1e6
    all_invocations = usage.http_requests + usage.writer_invocations + authorizer_invocations
    log_bytes = (
        usage.app_log_bytes
        + all_invocations * a.platform_log_bytes_per_invocation
        + usage.http_requests * a.access_log_bytes_per_request
    )
    log_gb = n * log_bytes / GB
    cloudwatch = log_gb * (p.logs_ingest_per_gb + p.logs_storage_gb_month * a.log_retention_days / 30)

    parts = {
        "cost_api_gateway_usd": api_gateway,
        "cost_lambda_usd": lambda_,
        "cost_dynamodb_usd": dynamodb,
        "cost_s3_usd": s3,
        "cost_sqs_usd": sqs,
        "cost_cloudwatch_usd": cloudwatch,
    }
    return {**parts, "cost_per_100k_prompts_usd": sum(parts.values())}


SERVICE_NAMES = {
    "cost_api_gateway_usd": "API Gateway (HTTP API)",
    "cost_lambda_usd": "Lambda (arm64)",
    "cost_dynamodb_usd": "DynamoDB (on-demand, storage, PITR)",
    "cost_s3_usd": "S3 (transcript chunks)",
    "cost_sqs_usd": "SQS",
    "cost_cloudwatch_usd": "CloudWatch Logs",
    "cost_per_100k_prompts_usd": "**total per 100,000 prompts**",
}


def _number(value: float) -> str:
    return f"{value:.6g}"


def markdown(usage: Usage, prices: Prices | None = None, assumptions: Assumptions | None = None) -> str:
    """The three tables of docs/COST.md: usage per prompt, prices, cost per service."""
    p, a = prices or Prices(), assumptions or Assumptions()
    lines = ["| usage per prompt | key | value |", "|---|---|---|"]
    lines += [f"| {_label(f.name)} | `{f.name}` | {_number(getattr(usage, f.name))} |" for f in fields(usage)]
    lines += ["", "| price (us-east-1) | key | USD |", "|---|---|---|"]
    lines += [f"| {_label(name)} | `{name}` | {_number(value)} |" for name, value in asdict(p).items()]
    lines += ["", "| assumption | key | value |", "|---|---|---|"]
    lines += [f"| {_label(name)} | `{name}` | {_number(value)} |" for name, value in asdict(a).items()]
    lines += ["", "| service | key | USD per 100,000 prompts |", "|---|---|---|"]
    lines += [
        f"| {SERVICE_NAMES[key]} | `{key}` | {value:.4f} |" for key, value in costs(usage, p, a).items()
    ]
    return "\n".join(lines) + "\n"


def _label(name: str) -> str:
    return name.replace("_", " ")
