"""Faults the local stack can inject, to see what a fleet of agents loses when AWS misbehaves.

Off unless asked: ``continuity local --faults SPEC`` or ``CONTINUITY_LOCAL_FAULTS=SPEC``, where SPEC
is comma-separated ``name=value`` items (a bare name means 1):

- ``aws_errors=0.2``: a share of the functions' DynamoDB and S3 calls answer a throttling error or
  a 5xx (half each) instead of reaching moto. The functions' own botocore retries see them first,
  as they would see AWS's.
- ``writer_crash=0.1``: a share of the functions' ``TransactWriteItems`` calls, and of the
  checkpoint writer's ``UpdateItem`` calls (its commit's reset, after the checkpoint's put), end the
  worker process instead (``os._exit``): the function crashed after its reads, or between the
  checkpoint and the reset, as a Lambda sandbox that runs out of memory does. The runtime answers
  ``Runtime.ExitError`` and starts a fresh worker.
- ``sqs_duplicate``: every SQS message is handed to its function twice (at-least-once delivery).
- ``sqs_delay=0.1``, ``sqs_delay_s=30``: a share of SQS messages is held back on first receive and
  delivered ``sqs_delay_s`` later (default 30 s).

Each injected fault is logged with ``FAULT_MARK`` so a run can count them in the stack's log.
"""

from __future__ import annotations

import json
import logging
import os
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from infra.wiring import FunctionSpec

log = logging.getLogger(__name__)

FAULTS_ENV_VAR = "CONTINUITY_LOCAL_FAULTS"
FAULT_MARK = "[fault injected]"

_AWS_SERVICES = ("dynamodb", "s3")
_CRASH_OPERATION = "TransactWriteItems"
# The checkpoint writer's commit is a put, then the state's reset: a crash between them.
_WRITER_CRASH_OPERATION = "UpdateItem"
_CRASH_EXIT_CODE = 70


class FaultSpecError(ValueError):
    pass


@dataclass(frozen=True)
class Faults:
    aws_errors: float = 0.0
    writer_crash: float = 0.0
    sqs_duplicate: float = 0.0
    sqs_delay: float = 0.0
    sqs_delay_s: float = 30.0

    @property
    def any(self) -> bool:
        return any((self.aws_errors, self.writer_crash, self.sqs_duplicate, self.sqs_delay))

    @property
    def in_workers(self) -> bool:
        return bool(self.aws_errors or self.writer_crash)

    @classmethod
    def parse(cls, spec: str) -> Faults:
        """``"aws_errors=0.2,sqs_duplicate"`` -> Faults; FaultSpecError names what is wrong."""
        known = {f.name for f in fields(cls)}
        values: dict[str, float] = {}
        for item in filter(None, (part.strip() for part in spec.split(","))):
            name, _, raw = item.partition("=")
            name = name.strip()
            if name not in known:
                raise FaultSpecError(f"unknown fault {name!r} (known: {', '.join(sorted(known))})")
            try:
                value = float(raw) if raw else 1.0
            except ValueError:
                raise FaultSpecError(f"fault {name}: {raw!r} is not a number") from None
            if value < 0 or (name != "sqs_delay_s" and value > 1):
                raise FaultSpecError(f"fault {name}: {value:g} is not a share between 0 and 1")
            if name == "sqs_delay_s" and value > 900:
                raise FaultSpecError("fault sqs_delay_s: SQS delays a message 900 s at most")
            values[name] = value
        return cls(**values)

    @classmethod
    def from_environment(cls, env: Mapping[str, str] = os.environ) -> Faults:
        return cls.parse(env.get(FAULTS_ENV_VAR, ""))

    def describe(self) -> str:
        named = [f.name for f in fields(self) if getattr(self, f.name)]
        if not self.sqs_delay:
            named = [name for name in named if name != "sqs_delay_s"]
        return ", ".join(f"{name}={getattr(self, name):g}" for name in named)


NO_FAULTS = Faults()


def install_in_worker(
    faults: Faults, then: Callable[[FunctionSpec], None] | None, spec: FunctionSpec
) -> None:
    """A worker's setup (``functools.partial`` of the first two): its botocore calls may fail."""
    from botocore.handlers import BUILTIN_HANDLERS

    from infra.wiring import CHECKPOINT_WRITER

    chance = random.Random()  # forked workers must not share the fork server's sequence
    chance.seed(os.urandom(16))

    def before_send(request: Any, event_name: str = "", **_: Any) -> Any:
        # before-send.<service>.<operation>
        service, operation = [*event_name.split("."), "", ""][1:3]
        if service not in _AWS_SERVICES:
            return None
        crashable = operation == _CRASH_OPERATION or (
            spec.key == CHECKPOINT_WRITER.key and operation == _WRITER_CRASH_OPERATION
        )
        if faults.writer_crash and crashable and chance.random() < faults.writer_crash:
            log.error("%s %s: crashing before %s", FAULT_MARK, spec.key, operation)
            logging.shutdown()
            os._exit(_CRASH_EXIT_CODE)
        if faults.aws_errors and chance.random() < faults.aws_errors:
            throttle = chance.random() < 0.5
            log.warning(
                "%s %s: %s %s answers %s",
                FAULT_MARK,
                spec.key,
                service,
                operation,
                "throttling" if throttle else "5xx",
            )
            return _error_response(request.url, service, throttle)
        return None

    # First: botocore takes the first answer of a before-send (an in-process moto registers one too).
    BUILTIN_HANDLERS.insert(0, ("before-send", before_send))
    if then is not None:
        then(spec)


def _error_response(url: str, service: str, throttle: bool) -> Any:
    from botocore.awsrequest import AWSResponse, HTTPHeaders

    if service == "dynamodb":
        kind = "ProvisionedThroughputExceededException" if throttle else "InternalServerError"
        body = json.dumps({"__type": f"com.amazonaws.dynamodb.v20120810#{kind}", "message": "injected"})
        status, headers = (400 if throttle else 500), {"Content-Type": "application/x-amz-json-1.0"}
    else:
        code = "SlowDown" if throttle else "InternalError"
        body = f"<Error><Code>{code}</Code><Message>injected</Message></Error>"
        status, headers = (503 if throttle else 500), {"Content-Type": "application/xml"}
    answer_headers = HTTPHeaders()
    for name, value in headers.items():
        answer_headers[name] = value
    return AWSResponse(url, status, answer_headers, _Raw(body.encode()))


class _Raw:
    """The raw body botocore reads from an ``AWSResponse``."""

    def __init__(self, body: bytes) -> None:
        self._body = body

    def stream(self, **_: Any) -> Any:
        yield self._body
