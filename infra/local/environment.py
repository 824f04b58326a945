"""Process environment of the local stack: import paths, fake AWS credentials, function env, token."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import secrets
import socket
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

from infra.local.context import NAME_PREFIX, function_name
from infra.local.events import REGION
from infra.wiring import Access, FunctionSpec, dlq_resource

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_DATA_DIR = REPO_ROOT / ".continuity-local"
TOKEN_FILE = "token"
# While the stack runs: the endpoint of its moto, for the operator (python -m infra.operator --local).
LOCAL_ENDPOINT_FILE = "aws_endpoint"

# Of this process's own variables, the ones a worker inherits: a search path and a locale (Lambda
# sets both too), where temporary files go.
_PROCESS_VARIABLES = ("PATH", "LANG", "LC_ALL", "TMPDIR")

FAKE_AWS = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "AWS_DEFAULT_REGION": REGION,
    "AWS_REGION": REGION,
}


def ensure_import_paths() -> None:
    """``functions.<key>.handler`` needs the repository root; ``continuity_core`` lives in layers/."""
    root = str(REPO_ROOT)
    if root not in sys.path:
        sys.path.insert(0, root)
    if importlib.util.find_spec("continuity_core") is None:
        sys.path.insert(0, str(REPO_ROOT / "layers"))


def use_fake_aws(endpoint_url: str | None) -> None:
    """Point every boto3 client of this process at moto, never at a real account."""
    os.environ.update(FAKE_AWS)
    for name in ("AWS_PROFILE", "AWS_DEFAULT_PROFILE"):
        os.environ.pop(name, None)
    for name in [n for n in os.environ if n.startswith("AWS_ENDPOINT_URL_")]:
        os.environ.pop(name)
    if endpoint_url:
        os.environ["AWS_ENDPOINT_URL"] = endpoint_url
    else:
        os.environ.pop("AWS_ENDPOINT_URL", None)
    os.environ.setdefault("POWERTOOLS_TRACE_DISABLED", "true")  # no X-Ray daemon locally


def shared_environment(functions: Iterable[FunctionSpec]) -> dict[str, str]:
    """The union of the functions' declared environments, for runs where functions share a process
    (``InProcessRuntime``); the local stack gives each worker its own (``function_environment``)."""
    env: dict[str, str] = {}
    owner: dict[str, str] = {}
    for spec in functions:
        for name, value in spec.environment.items():
            if name in env and env[name] != value:
                raise ValueError(
                    f"{name} is {env[name]!r} for {owner[name]} but {value!r} for {spec.key}; "
                    "functions that share a process cannot have both"
                )
            env[name] = value
            owner.setdefault(name, spec.key)
    return env


def function_environment(
    spec: FunctionSpec,
    *,
    config: Mapping[str, str],
    resources: Mapping[str, Mapping[str, str]],
    extra: Mapping[str, str] | None = None,
    endpoint_url: str,
    prefix: str = NAME_PREFIX,
) -> dict[str, str]:
    """Everything one function's worker sees, and nothing else.

    As CDK builds it (``infra/constructs/functions.py``): the service config, the spec's own
    variables, the variables of each resource it declares (``resources``: resource key -> its
    variables), its ``extra`` (the authorizer's token hash). Then what Lambda sets (function name,
    memory size: search sizes its index by it), the local AWS endpoint and credentials, and the
    locale and search path of this process.
    """
    env = {**config, **spec.environment}
    for key in spec.resources:
        if key not in resources:
            raise KeyError(f"function {spec.key!r}: unknown resource {key!r}")
        env.update(resources[key])
        if spec.resources[key] is Access.INSPECT:  # as CDK: the DLQ's URL too
            env.update(resources.get(dlq_resource(key), {}))
    env.update(extra or {})
    name = function_name(spec, prefix)
    env.update(
        {
            "AWS_LAMBDA_FUNCTION_NAME": name,
            "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": str(spec.memory_mb),
            "AWS_LAMBDA_FUNCTION_VERSION": "$LATEST",
            "AWS_LAMBDA_LOG_GROUP_NAME": f"/aws/lambda/{name}",
            "_HANDLER": spec.handler,
            **FAKE_AWS,
            "AWS_ENDPOINT_URL": endpoint_url,
            "POWERTOOLS_TRACE_DISABLED": "true",  # no X-Ray daemon locally
        }
    )
    env.update({variable: os.environ[variable] for variable in _PROCESS_VARIABLES if variable in os.environ})
    return env


def load_or_create_token(data_dir: Path) -> str:
    """The local API token: ``<data-dir>/token``, created (mode 0600) on first use."""
    path = data_dir / TOKEN_FILE
    if path.exists():
        token = path.read_text().strip()
        if token:
            return token
    token = secrets.token_urlsafe(32)
    ensure_private_dir(data_dir)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as file:
        file.write(token + "\n")
    os.chmod(path, 0o600)
    return token


def ensure_private_dir(path: Path) -> None:
    """Create ``path`` readable by its owner only (an existing directory is left as it is)."""
    if not path.exists():
        path.mkdir(mode=0o700, parents=True)


def token_sha256(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def ensure_port_free(host: str, port: int) -> None:
    """Raise OSError with a clear message if ``host:port`` cannot be bound (0 = any port)."""
    if port == 0:
        return
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as error:
            raise OSError(f"cannot listen on {host}:{port}: {error.strerror or error}") from error
