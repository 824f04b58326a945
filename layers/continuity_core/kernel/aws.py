"""boto3 clients, built lazily on first use and cached per process, and the call every adapter makes.

Nothing here runs at import: moto must start before a client exists, and cold starts count.
``AWS_ENDPOINT_URL`` (honoured by boto3) points the clients at the local stack.
"""

from __future__ import annotations

import os
from functools import cache
from typing import Any


@cache
def client(service: str) -> Any:
    import boto3
    from botocore.config import Config

    # Hooks sit in the agent's loop: fail fast rather than hang, retry a little.
    config = Config(connect_timeout=2, read_timeout=5, retries={"mode": "standard", "max_attempts": 3})
    return boto3.session.Session().client(service, config=config)  # type: ignore[call-overload]


def reset_clients() -> None:
    """Forget cached clients (tests start a new moto backend)."""
    client.cache_clear()


def required_env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        raise RuntimeError(f"environment variable {name} is not set")
    return value


# Error codes that mean "the service is busy or failing", per service: the caller may retry later.
UNAVAILABLE = {
    "dynamodb": {
        "ProvisionedThroughputExceededException",
        "ThrottlingException",
        "RequestLimitExceeded",
        "InternalServerError",
        "ServiceUnavailable",
    },
    "s3": {"SlowDown", "ServiceUnavailable", "InternalError", "RequestTimeout", "503", "500"},
}


def call(service: str, operation: str, **kwargs: Any) -> Any:
    """One AWS call; throttling, service faults and lost connections become StorageUnavailableError."""
    from botocore.exceptions import ClientError, ConnectionError, ReadTimeoutError

    from continuity_core.kernel.errors import StorageUnavailableError

    try:
        return getattr(client(service), operation)(**kwargs)
    except ClientError as error:
        if error.response["Error"]["Code"] in UNAVAILABLE.get(service, set()):
            raise StorageUnavailableError(str(error)) from error
        raise
    except (ConnectionError, ReadTimeoutError) as error:
        raise StorageUnavailableError(str(error)) from error


def call_dynamodb(operation: str, **kwargs: Any) -> Any:
    """One DynamoDB call; throttling and service faults become StorageUnavailableError."""
    return call("dynamodb", operation, **kwargs)


def write_if(operation: str, **kwargs: Any) -> bool:
    """A conditional write: False when its condition did not hold (nothing was written)."""
    from botocore.exceptions import ClientError

    try:
        call_dynamodb(operation, **kwargs)
    except ClientError as error:
        if error.response["Error"]["Code"] != "ConditionalCheckFailedException":
            raise
        return False
    return True
