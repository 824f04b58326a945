"""Helpers shared by the infrastructure tests (the session synth lives in conftest.py)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from aws_cdk import Stack
from aws_cdk.assertions import Template
from aws_cdk.cx_api import CloudAssembly
from constructs import IConstruct

from infra.build_layer import REPO_ROOT
from infra.stack import ContinuityStack

# Docker-free synth: no stack gets asset bundling (the layers are prebuilt by infra.build_layer).
DOCKER_FREE: dict[str, Any] = {"aws:cdk:bundling-stacks": []}


def cdk_json_context() -> dict[str, Any]:
    """The context `cdk synth` would use: cdk.json's own."""
    return dict(json.loads((REPO_ROOT / "cdk.json").read_text())["context"])


@dataclass(frozen=True)
class Synthesized:
    stack: ContinuityStack
    assembly: CloudAssembly
    template: Template

    def logical_id(self, construct: IConstruct) -> str:
        """Logical id of an L2 construct's CloudFormation resource."""
        return logical_id(self.stack, construct)

    def resources(self, type_: str) -> dict[str, Any]:
        return dict(self.template.find_resources(type_))


def logical_id(stack: Stack, construct: IConstruct) -> str:
    return stack.get_logical_id(construct.node.default_child)  # type: ignore[arg-type]
