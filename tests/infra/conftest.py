"""Infrastructure tests: the CDK app is synthesized ONCE per session (a synth costs seconds).

The synth is Docker-free (``aws:cdk:bundling-stacks: []``; the layers come from
``infra.build_layer``), uses cdk.json's own context, and runs cdk-nag: an unacknowledged finding
makes ``app.synth()`` raise, so every test using the synth fails if the stack stops passing.
"""

from __future__ import annotations

import os

os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")
os.environ.setdefault("JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION", "1")

import pytest
from aws_cdk import App, Stack
from aws_cdk.assertions import Template

from infra.app import build_app
from tests.infra.synth import DOCKER_FREE, Synthesized, cdk_json_context


@pytest.fixture(scope="session")
def synthesized(tmp_path_factory: pytest.TempPathFactory) -> Synthesized:
    """The app as `cdk synth` builds it (cdk.json context), without Docker, with cdk-nag."""
    outdir = tmp_path_factory.mktemp("cdk.out")
    app, stack = build_app({**cdk_json_context(), **DOCKER_FREE}, outdir=str(outdir))
    assembly = app.synth()  # raises on any unacknowledged cdk-nag finding
    template = Template.from_json(assembly.get_stack_by_name(stack.stack_name).template)
    return Synthesized(stack=stack, assembly=assembly, template=template)


@pytest.fixture(scope="session")
def template(synthesized: Synthesized) -> Template:
    return synthesized.template


@pytest.fixture
def bare_stack() -> Stack:
    """An empty stack for testing one construct on its own (no cdk-nag, no layers)."""
    return Stack(App(context=DOCKER_FREE), "UnderTest")
