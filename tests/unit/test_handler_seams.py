"""Handlers parse, call a service and answer: none reaches a store or an AWS client itself.

Read from the source (an import graph), so a handler that starts building a store
(``roots/shared.py``), importing another function's root or an adapter fails here before any
request shows it. A handler's services come from its own composition root (``roots/<key>.py``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HANDLERS = sorted((ROOT / "functions").glob("*/handler.py"))
SHARED = ROOT / "layers" / "continuity_core" / "roots" / "shared.py"
# The storage adapters: each feature package's ``dynamo_*``, ``s3_*`` and ``sqs_*`` modules and the
# kernel's AWS client factory (``kernel/aws.py``).
ADAPTER_PREFIXES = ("dynamo_", "s3_", "sqs_")


def is_adapter(module: str) -> bool:
    parts = module.split(".")
    if parts[0] != "continuity_core" or len(parts) < 3:
        return False
    return parts[-1].startswith(ADAPTER_PREFIXES) or parts[1:] == ["kernel", "aws"]


def imported_names(tree: ast.Module) -> list[tuple[str, str]]:
    """(module, name) for every ``from module import name`` and ``import module``, nested or not."""
    found: list[tuple[str, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found += [(node.module, alias.name) for alias in node.names]
        elif isinstance(node, ast.Import):
            found += [(alias.name, "") for alias in node.names]
    return found


def store_factories() -> set[str]:
    """The builders in roots/shared.py whose return type is an adapter (a store, not a service)."""
    tree = ast.parse(SHARED.read_text())
    adapters = {name for module, name in imported_names(tree) if is_adapter(module)}
    return {
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.returns and ast.unparse(node.returns) in adapters
    }


def test_the_shared_builders_still_have_store_factories_for_this_check_to_find() -> None:
    # Guards the check below: if shared.py changed shape, it would pass for the wrong reason.
    assert {"checkpoint_store", "transcript_storage", "state_store"} <= store_factories()


@pytest.mark.parametrize("handler", HANDLERS, ids=lambda path: path.parent.name)
def test_a_handler_imports_no_adapter_no_store_and_no_aws_client(handler: Path) -> None:
    imports = imported_names(ast.parse(handler.read_text()))
    stores = store_factories()
    own_root = ("continuity_core.roots", handler.parent.name)

    reaching = [
        f"{module}.{name}".rstrip(".")
        for module, name in imports
        if is_adapter(module)
        or is_adapter(f"{module}.{name}")
        or module.split(".")[0] in {"boto3", "botocore"}
        or (module == "continuity_core.roots.shared" and name in stores)
        or (module == "continuity_core.roots" and (module, name) != own_root)
        or (
            module.startswith("continuity_core.roots.")
            and module not in {"continuity_core.roots.cold_start", ".".join(own_root)}
        )
    ]

    assert reaching == [], f"{handler.relative_to(ROOT)} reaches past the services: {reaching}"
