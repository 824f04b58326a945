"""Where the operator tools find a deployed stage: its stack name and its CloudFormation outputs.

The stack (``infra/stack.py``) declares its outputs with fixed logical ids, so the keys below are
stable. ``cdk deploy --outputs-file`` writes them as ``{"Continuity-dev": {"ApiUrl": ...}}``; an
existing stack answers them through ``DescribeStacks``.

Plain Python and boto3 only: importing ``infra.app`` would start the CDK (jsii) runtime.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

# The CDK app (infra.app) validates its context with these too.
STAGE_PATTERN = re.compile(r"[a-z][a-z0-9-]{0,30}")
TOKEN_HASH_PATTERN = re.compile(r"[0-9a-f]{64}")

API_URL = "ApiUrl"
TABLE_NAME = "TableName"
CHECKPOINT_QUEUE_URL = "CheckpointQueueUrl"
CHECKPOINT_DLQ_URL = "CheckpointDlqUrl"
TRANSCRIPT_BUCKET_NAME = "TranscriptBucketName"


class OutputsError(RuntimeError):
    """A stage's outputs could not be read (no such stack, missing output, unreadable file)."""


def check_stage(stage: str) -> str:
    if not STAGE_PATTERN.fullmatch(stage):
        raise ValueError(f"invalid stage {stage!r}: use lower-case letters, digits and '-' (max 31)")
    return stage


def stack_name(stage: str) -> str:
    return f"Continuity-{check_stage(stage)}"


def read_outputs_file(path: Path, stage: str) -> dict[str, str]:
    """The stage's outputs from the file ``cdk deploy --outputs-file`` wrote."""
    try:
        document = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise OutputsError(f"cannot read the outputs file {path}: {error}") from error
    outputs = document.get(stack_name(stage)) if isinstance(document, dict) else None
    if not isinstance(outputs, dict):
        raise OutputsError(f"{path} has no outputs for stack {stack_name(stage)}")
    return {str(key): str(value) for key, value in outputs.items()}


def describe_outputs(stage: str, cloudformation: Any) -> dict[str, str]:
    """The deployed stack's outputs, through CloudFormation ``DescribeStacks``."""
    from botocore.exceptions import ClientError

    name = stack_name(stage)
    try:
        stacks = cloudformation.describe_stacks(StackName=name)["Stacks"]
    except ClientError as error:
        raise OutputsError(f"cannot describe stack {name}: {error}") from error
    if not stacks:
        raise OutputsError(f"stack {name} does not exist")
    return {o["OutputKey"]: o["OutputValue"] for o in stacks[0].get("Outputs", [])}


def require(outputs: dict[str, str], key: str, stage: str) -> str:
    value = outputs.get(key)
    if not value:
        raise OutputsError(f"stack {stack_name(stage)} has no output {key}")
    return value
