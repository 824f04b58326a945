"""Throwaway functions for the local stack's unit tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from infra.local.runtime import InProcessRuntime
from infra.wiring import FunctionSpec


def throwaway(key: str, **kwargs: Any) -> FunctionSpec:
    """A FunctionSpec that exists only in a test; its handler comes from ``runtime_with``."""
    return FunctionSpec(
        key=key, source_dir=f"functions/{key}", handler="handler.lambda_handler", description="test", **kwargs
    )


def runtime_with(
    *pairs: tuple[FunctionSpec, Callable[[dict[str, Any], Any], Any]], **kwargs: Any
) -> InProcessRuntime:
    """A runtime over throwaway specs, each with its handler (no imports)."""
    by_key = {spec.key: handler for spec, handler in pairs}
    return InProcessRuntime([spec for spec, _ in pairs], loader=lambda spec: by_key[spec.key], **kwargs)
