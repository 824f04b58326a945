"""CDK app entry point (``python -m infra.app``, run by ``cdk synth`` through cdk.json).

Context (cdk.json, or ``-c key=value``):

* ``stage`` (default ``dev``): the stack is ``Continuity-{stage}``.
* ``stages.<stage>.ephemeral`` (or ``ephemeral``): ``true`` destroys tables and log groups with
  the stack and drops deletion protection; otherwise they are retained.
* ``continuity``: the service configuration in camelCase (``promptInterval``, ...), validated by
  ``continuity_core.kernel.config`` so a bad value fails synth with a message naming it.
* ``apiTokenSha256``: sha256 hex of the accepted bearer token, given to the authorizer.

cdk-nag's AWS Solutions checks run as a policy-validation plugin: an unacknowledged finding
makes synth fail.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aws_cdk import Annotations, App, Validations
from cdk_nag import AwsSolutionsChecks

from continuity_core.kernel.config import (
    ConfigError,
    ContinuityConfig,
    camel_case,
    environment_variable,
    load_config_from_camel_case,
)
from infra import outputs
from infra.build_layer import REPO_ROOT, LayerPaths, ensure_layers
from infra.stack import ContinuityStack

# Docker-free synth: no stack gets asset bundling (the layers are prebuilt by infra.build_layer).
DOCKER_FREE: dict[str, Any] = {"aws:cdk:bundling-stacks": []}
DEFAULT_STAGE = "dev"
_TRUE, _FALSE = ("true", "1", "yes"), ("false", "0", "no", "")
EMPTY_TOKEN_WARNING = (
    "context apiTokenSha256 is empty: the authorizer denies every request until it is set, e.g. "
    "-c apiTokenSha256=$(printf %s \"$TOKEN\" | sha256sum | cut -d' ' -f1)"
)


@dataclass(frozen=True)
class AppSettings:
    stage: str
    config: ContinuityConfig
    api_token_sha256: str
    ephemeral: bool

    @property
    def stack_name(self) -> str:
        return outputs.stack_name(self.stage)


def cdk_json_context() -> dict[str, Any]:
    """The context `cdk synth` would use: cdk.json's own."""
    return dict(json.loads((REPO_ROOT / "cdk.json").read_text())["context"])


def read_settings(context: Mapping[str, Any]) -> AppSettings:
    """Validate the app's context; raise ConfigError naming the offending key."""
    stage = str(context.get("stage") or DEFAULT_STAGE)
    if not outputs.STAGE_PATTERN.fullmatch(stage):
        raise ConfigError(f"invalid context stage={stage!r}: use lower-case letters, digits and '-'")

    continuity = context.get("continuity") or {}
    if isinstance(continuity, str):  # -c continuity='{"promptInterval": 5}'
        try:
            continuity = json.loads(continuity)
        except json.JSONDecodeError as error:
            raise ConfigError(f"invalid context continuity: not JSON ({error})") from error
    if not isinstance(continuity, dict):
        raise ConfigError("invalid context continuity: expected an object of camelCase settings")
    try:
        config = load_config_from_camel_case(continuity)
    except ConfigError as error:
        raise ConfigError(f"context continuity: {_with_camel_case_names(str(error))}") from error

    token_hash = str(context.get("apiTokenSha256") or "").strip().lower()
    if token_hash and not outputs.TOKEN_HASH_PATTERN.fullmatch(token_hash):
        raise ConfigError("invalid context apiTokenSha256: expected 64 hex characters (sha256 of the token)")

    stage_context = (context.get("stages") or {}).get(stage) or {}
    override = context.get("ephemeral")  # -c ephemeral=true wins over the stage's entry
    ephemeral = _flag("ephemeral", stage_context.get("ephemeral", False) if override is None else override)
    return AppSettings(stage=stage, config=config, api_token_sha256=token_hash, ephemeral=ephemeral)


def _with_camel_case_names(message: str) -> str:
    """``CONTINUITY_PROMPT_INTERVAL`` -> ``promptInterval (CONTINUITY_PROMPT_INTERVAL)``: the cdk.json key."""
    for field in ContinuityConfig.model_fields:
        variable = environment_variable(field)
        message = re.sub(rf"\b{variable}\b", f"{camel_case(field)} ({variable})", message)
    return message


def _flag(name: str, value: object) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE or text in _FALSE:
        return text in _TRUE
    raise ConfigError(f"invalid context {name}={value!r}: expected true or false")


def _context(app: App, keys: tuple[str, ...]) -> dict[str, Any]:
    return {key: app.node.try_get_context(key) for key in keys}


def build_app(
    context: Mapping[str, Any] | None = None,
    *,
    layers: LayerPaths | None = None,
    source_root: Path = REPO_ROOT,
    outdir: str | None = None,
) -> tuple[App, ContinuityStack]:
    """The app with its one stack and cdk-nag attached; ``app.synth()`` runs the checks."""
    app = App(context=dict(context or {}), outdir=outdir)
    settings = read_settings(_context(app, ("stage", "stages", "ephemeral", "continuity", "apiTokenSha256")))
    stack = ContinuityStack(
        app,
        settings.stack_name,
        stack_name=settings.stack_name,
        description=f"Continuity ({settings.stage}): hook ingest, debounced checkpoints, read API",
        tags={"service": "continuity", "stage": settings.stage},
        config=settings.config,
        layers=layers or ensure_layers(),
        api_token_sha256=settings.api_token_sha256,
        ephemeral=settings.ephemeral,
        source_root=source_root,
    )
    if not settings.api_token_sha256:
        Annotations.of(stack).add_warning_v2("continuity:emptyApiToken", EMPTY_TOKEN_WARNING)
    Validations.of(app).add_plugins(AwsSolutionsChecks(app))
    return app, stack


def main() -> int:
    try:
        app, _ = build_app()
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    app.synth()
    return 0


if __name__ == "__main__":
    sys.exit(main())
