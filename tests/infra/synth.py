"""Helpers shared by the infrastructure tests (the session synth lives in conftest.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from aws_cdk import CfnElement, Stack
from aws_cdk.assertions import Template
from aws_cdk.cx_api import CloudAssembly
from constructs import IConstruct

from infra.app import DOCKER_FREE, cdk_json_context
from infra.stack import ContinuityStack

__all__ = ["DOCKER_FREE", "Synthesized", "cdk_json_context", "logical_id"]


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
    # An L2 construct's default child is its CloudFormation resource
    return stack.get_logical_id(cast(CfnElement, construct.node.default_child))
