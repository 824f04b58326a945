"""A fake Lambda context object, with the attributes the Python runtime provides."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from infra.local.events import ACCOUNT_ID, REGION
from infra.wiring import FunctionSpec

NAME_PREFIX = "continuity-local"


@dataclass
class LambdaContext:
    function_name: str
    memory_limit_in_mb: int
    invoked_function_arn: str
    aws_request_id: str
    timeout_s: float
    function_version: str = "$LATEST"
    log_group_name: str = ""
    log_stream_name: str = "local"
    identity: Any = None
    client_context: Any = None
    tenant_id: str | None = None
    _deadline: float = field(default=0.0, repr=False)

    def __post_init__(self) -> None:
        self.log_group_name = self.log_group_name or f"/aws/lambda/{self.function_name}"
        self._deadline = time.monotonic() + self.timeout_s

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


def function_name(spec: FunctionSpec, prefix: str = NAME_PREFIX) -> str:
    return f"{prefix}-{spec.key.replace('_', '-')}"


def lambda_context(
    spec: FunctionSpec, *, request_id: str | None = None, prefix: str = NAME_PREFIX
) -> LambdaContext:
    """A context for one invocation of ``spec``; the remaining time counts down from its timeout."""
    name = function_name(spec, prefix)
    return LambdaContext(
        function_name=name,
        memory_limit_in_mb=spec.memory_mb,
        invoked_function_arn=f"arn:aws:lambda:{REGION}:{ACCOUNT_ID}:function:{name}",
        aws_request_id=request_id or str(uuid.uuid4()),
        timeout_s=float(spec.timeout_s),
    )
