"""Constants shared by the constructs: the Lambda platform, log retention and API throttling."""

from __future__ import annotations

from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs

# The dependency layer is built for this platform (infra/build_layer.py); change both together.
PYTHON_RUNTIME = lambda_.Runtime.PYTHON_3_12
ARCHITECTURE = lambda_.Architecture.ARM_64
LOG_RETENTION = logs.RetentionDays.ONE_MONTH

# Default-stage throttling of the HTTP API (account-level limits are far higher).
API_THROTTLE_BURST_LIMIT = 100
API_THROTTLE_RATE_LIMIT = 50  # requests per second, steady state

# cdk-nag pack name: acknowledgement ids are "<pack>::<rule>[<finding>]".
NAG_PACK = "AwsSolutions"


def construct_id(key: str) -> str:
    """``read_api`` -> ``ReadApi``: wiring keys become stable CDK construct ids."""
    return "".join(part[:1].upper() + part[1:] for part in key.split("_"))
