"""Each function's grant as CDK synthesizes it: its role's policy statements and its environment.

The access guard (``infra/local/access_guard.py``) enforces what this module reads out of the
synthesized CloudFormation template, so tests and the local stack run every function under the
permissions it has on AWS, never under a hand-written copy of them.

A synth takes seconds, so the result is cached as JSON in ``build/access-policies/<hash>.json``,
keyed on the sources that decide the template's policies (the CDK app, the wiring, cdk.json and
the layer's top-level modules, names.py and config.py among them). A changed source means a new
synth on the next load; nothing is ever edited by hand.

Resource ARNs stay symbolic in the cache (``${continuity_table}`` for the table the wiring calls
``continuity_table``, ``${AWS::Region}``): the guard binds them to the physical names of whichever
backend it checks (moto in tests, the local stack's moto server).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from infra import wiring
from infra.build_layer import REPO_ROOT

if TYPE_CHECKING:
    from infra.stack import ContinuityStack

CACHE_DIR = REPO_ROOT / "build" / "access-policies"
# Bump when what this module extracts changes shape (a cached file of an older shape is ignored).
FORMAT = 1
SOURCES = (
    "cdk.json",
    "infra/*.py",
    "infra/constructs/*.py",
    "infra/local/access_policies.py",
    "layers/continuity_core/*.py",
)

TABLE, QUEUE, BUCKET = "table", "queue", "bucket"
# CloudFormation pseudo parameters an ARN may use; bound by the guard like the resources.
PSEUDO = {"AWS::Region": "${AWS::Region}", "AWS::AccountId": "${AWS::AccountId}", "AWS::Partition": "aws"}


@dataclass(frozen=True)
class Statement:
    effect: str  # Allow | Deny
    actions: tuple[str, ...]
    # ARN patterns with ${resource_key} and ${AWS::...} placeholders; resources outside the wiring
    # (the function's own log group) are left out: no call a function makes can name them.
    resources: tuple[str, ...]
    # {"ForAllValues:StringLike": {"dynamodb:LeadingKeys": ["RATE#*"]}}
    conditions: dict[str, dict[str, tuple[str, ...]]] = field(default_factory=dict)


@dataclass(frozen=True)
class FunctionAccess:
    statements: tuple[Statement, ...]
    environment: tuple[str, ...]  # the names of the variables Lambda gives it


@dataclass(frozen=True)
class StackAccess:
    functions: dict[str, FunctionAccess]  # FunctionSpec.key -> its grant
    resources: dict[str, str]  # resource key (wiring) -> kind: table | queue | bucket
    partition_keys: dict[str, str]  # table key -> its partition key attribute (dynamodb:LeadingKeys)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "resources": self.resources,
            "partition_keys": self.partition_keys,
            "functions": {
                key: {
                    "environment": list(access.environment),
                    "statements": [
                        {
                            "effect": s.effect,
                            "actions": list(s.actions),
                            "resources": list(s.resources),
                            "conditions": {
                                op: {k: list(v) for k, v in keys.items()} for op, keys in s.conditions.items()
                            },
                        }
                        for s in access.statements
                    ],
                }
                for key, access in self.functions.items()
            },
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> StackAccess:
        if data.get("format") != FORMAT:
            raise ValueError(f"access policies of format {data.get('format')!r}, expected {FORMAT}")
        return cls(
            resources=dict(data["resources"]),
            partition_keys=dict(data["partition_keys"]),
            functions={
                key: FunctionAccess(
                    environment=tuple(access["environment"]),
                    statements=tuple(
                        Statement(
                            effect=s["effect"],
                            actions=tuple(s["actions"]),
                            resources=tuple(s["resources"]),
                            conditions={
                                op: {k: tuple(v) for k, v in c.items()} for op, c in s["conditions"].items()
                            },
                        )
                        for s in access["statements"]
                    ),
                )
                for key, access in data["functions"].items()
            },
        )


def load(cache_dir: Path = CACHE_DIR) -> StackAccess:
    """The functions' grants: from the cache when the sources did not change, else from a synth.

    The synth runs in a process of its own: jsii keeps a node process for as long as the process
    that imported it lives, and the Ctrl-C that stops the local stack reaches the whole process
    group, node first, so the stack would end in jsii's BrokenPipeError traceback at exit."""
    path = cache_dir / f"{sources_hash()}.json"
    cached = _read(path)
    if cached is not None:
        return cached
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    subprocess.run(
        [sys.executable, "-m", "infra.local.access_policies", str(cache_dir)],
        check=True,
        cwd=REPO_ROOT,
        env=environment,
    )
    written = _read(path)
    if written is None:  # the sources changed meanwhile: the next load synthesizes again
        return synthesize()
    return written


def _read(path: Path) -> StackAccess | None:
    if not path.exists():
        return None
    try:
        return StackAccess.from_json(json.loads(path.read_text()))
    except (ValueError, KeyError, TypeError):
        return None  # a file of another format or a broken write: synthesize again


def write_cache(cache_dir: Path = CACHE_DIR) -> Path:
    """Synthesize here and write the cache file (``python -m infra.local.access_policies DIR``)."""
    path = cache_dir / f"{sources_hash()}.json"
    access = synthesize()
    cache_dir.mkdir(parents=True, exist_ok=True)
    # Written aside and renamed: a concurrent reader sees the old file or the whole new one.
    fd, temporary = tempfile.mkstemp(dir=cache_dir, suffix=".tmp")
    with os.fdopen(fd, "w") as file:
        json.dump(access.to_json(), file, indent=1, sort_keys=True)
    os.replace(temporary, path)
    return path


def sources_hash(root: Path = REPO_ROOT) -> str:
    digest = hashlib.sha256(str(FORMAT).encode())
    for pattern in SOURCES:
        for path in sorted(root.glob(pattern)):
            digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:32]


def synthesize() -> StackAccess:
    """Synthesize the app as ``cdk synth`` would (``infra.synth_template``) and read the grants."""
    from infra.synth_template import synthesize as synthesize_template

    with tempfile.TemporaryDirectory(prefix="continuity-access-") as scratch:
        template, _, stack = synthesize_template(Path(scratch, "cdk.out"))
        return from_template(template, stack)


def from_template(template: Mapping[str, Any], stack: ContinuityStack) -> StackAccess:
    """Read each function's role policy and environment names out of the synthesized template.

    ``stack`` names the logical ids: which table, queue and bucket is which wiring resource, and
    which Lambda function is which ``FunctionSpec``.
    """
    resources: dict[str, Any] = template["Resources"]
    kinds: dict[str, tuple[str, str]] = {}  # logical id -> (resource key, kind)
    for kind, constructs in (
        (TABLE, stack.storage.tables),
        (QUEUE, stack.queues.queues),
        (QUEUE, {wiring.dlq_resource(k): q for k, q in stack.queues.dead_letter_queues.items()}),
        (BUCKET, stack.buckets.buckets),
    ):
        for key, construct in constructs.items():
            kinds[_logical_id(stack, construct)] = (key, kind)

    partition_keys = {}
    for logical_id, (key, kind) in kinds.items():
        if kind == TABLE:
            schema = resources[logical_id]["Properties"]["KeySchema"]
            partition_keys[key] = next(k["AttributeName"] for k in schema if k["KeyType"] == "HASH")

    functions = {}
    for key, function in stack.functions.functions.items():
        properties = resources[_logical_id(stack, function)]["Properties"]
        role_id = properties["Role"]["Fn::GetAtt"][0]
        statements = tuple(
            _statement(raw, kinds, where=f"function {key}") for raw in _role_statements(resources, role_id)
        )
        variables = (properties.get("Environment") or {}).get("Variables") or {}
        functions[key] = FunctionAccess(statements=statements, environment=tuple(sorted(variables)))
    return StackAccess(
        functions=functions,
        resources={key: kind for key, kind in kinds.values()},
        partition_keys=partition_keys,
    )


def _logical_id(stack: ContinuityStack, construct: Any) -> str:
    return str(stack.get_logical_id(construct.node.default_child))


def _role_statements(resources: Mapping[str, Any], role_id: str) -> list[Mapping[str, Any]]:
    """The statements of every policy attached to the role: inline ones and AWS::IAM::Policy."""
    role = resources[role_id]["Properties"]
    if role.get("ManagedPolicyArns"):
        raise ValueError(f"role {role_id} has managed policies, which the access guard cannot read")
    found: list[Mapping[str, Any]] = []
    for policy in role.get("Policies") or []:
        found += _as_list(policy["PolicyDocument"]["Statement"])
    for resource in resources.values():
        if resource["Type"] == "AWS::IAM::Policy" and {"Ref": role_id} in resource["Properties"]["Roles"]:
            found += _as_list(resource["Properties"]["PolicyDocument"]["Statement"])
    return found


def _statement(raw: Mapping[str, Any], kinds: Mapping[str, tuple[str, str]], where: str) -> Statement:
    unsupported = {"NotAction", "NotResource", "Principal", "NotPrincipal"} & set(raw)
    if unsupported:
        raise ValueError(f"{where}: the access guard cannot evaluate {sorted(unsupported)}")
    patterns = [_arn(value, kinds, where) for value in _as_list(raw.get("Resource", []))]
    return Statement(
        effect=str(raw["Effect"]),
        actions=tuple(str(action) for action in _as_list(raw["Action"])),
        resources=tuple(pattern for pattern in patterns if pattern is not None),
        conditions={
            operator: {key: tuple(str(v) for v in _as_list(values)) for key, values in keys.items()}
            for operator, keys in (raw.get("Condition") or {}).items()
        },
    )


def _arn(value: Any, kinds: Mapping[str, tuple[str, str]], where: str) -> str | None:
    """A resource value of the template as an ARN pattern; None for a resource outside the wiring."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and len(value) == 1:
        ((function, argument),) = value.items()
        if function == "Fn::GetAtt" and argument[1] == "Arn":
            found = kinds.get(argument[0])
            return f"${{{found[0]}}}" if found else None
        if function == "Ref" and argument in PSEUDO:
            return PSEUDO[argument]
        if function == "Fn::Join":
            separator, parts = argument
            resolved = [_arn(part, kinds, where) for part in parts]
            return None if any(p is None for p in resolved) else separator.join(p or "" for p in resolved)
    raise ValueError(f"{where}: the access guard cannot resolve the resource {value!r}")


def _as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list) else [value]


if __name__ == "__main__":
    write_cache(Path(sys.argv[1]) if len(sys.argv) > 1 else CACHE_DIR)
