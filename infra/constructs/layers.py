"""The two Lambda layers every function carries: third-party dependencies and ``continuity_core``."""

from __future__ import annotations

from aws_cdk import aws_lambda as lambda_
from constructs import Construct

from infra.build_layer import LayerPaths
from infra.constructs.defaults import ARCHITECTURE, PYTHON_RUNTIME


class SharedLayers(Construct):
    """Layer versions from the directories ``infra.build_layer`` prepared (no Docker bundling)."""

    def __init__(self, scope: Construct, id: str, *, paths: LayerPaths) -> None:
        super().__init__(scope, id)
        self.dependencies = self._layer("Dependencies", str(paths.deps), "Runtime dependencies (pyproject).")
        self.core = self._layer("Core", str(paths.core), "continuity_core: models, logic, adapters.")

    @property
    def all(self) -> list[lambda_.ILayerVersion]:
        return [self.dependencies, self.core]

    def _layer(self, id: str, path: str, description: str) -> lambda_.LayerVersion:
        return lambda_.LayerVersion(
            self,
            id,
            code=lambda_.Code.from_asset(path),
            compatible_runtimes=[PYTHON_RUNTIME],
            compatible_architectures=[ARCHITECTURE],
            description=description,
        )
