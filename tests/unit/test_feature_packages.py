"""The core is split by feature (docs/ARCHITECTURE.md, "The core, by feature"): read from the source.

A storage adapter stores and reads; it decides nothing, so it imports no feature's rules. The few
that still do are listed here by name, so the list can only shrink: a new one fails.
"""

from __future__ import annotations

import ast
from pathlib import Path

CORE = Path(__file__).resolve().parents[2] / "layers" / "continuity_core"
FEATURES = (
    "kernel",
    "hooks",
    "extraction",
    "checkpoints",
    "recovery",
    "transcripts",
    "sessions",
    "admin",
    "retention",
)
# Not rules: the stored shapes, the storage interfaces and the redaction every write applies.
SHARED = {"kernel", "models", "ports", "redaction"}
ADAPTER_PREFIXES = ("dynamo_", "s3_", "sqs_")
# Rules' types an adapter still returns (the feature's port types, to move beside its port).
KNOWN_RULE_IMPORTS = {
    ("admin.dynamo_health", "admin.health"),
    ("admin.dynamo_rate", "admin.health"),
    ("admin.dynamo_rate", "admin.ratelimit"),
    ("retention.dynamo_retention", "retention.retention"),
}


def is_adapter(module: str) -> bool:
    """``feature.module`` (under continuity_core) that talks to AWS."""
    return module.split(".")[-1].startswith(ADAPTER_PREFIXES) or module == "kernel.aws"


def core_imports(path: Path) -> set[str]:
    """Every continuity_core module ``path`` imports (nested imports too), without the prefix."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("continuity_core."):
            module = node.module.removeprefix("continuity_core.")
            found |= {f"{module}.{a.name}" for a in node.names} if "." not in module else {module}
        elif isinstance(node, ast.Import):
            found |= {a.name.removeprefix("continuity_core.") for a in node.names if "." in a.name}
    return found


def adapters() -> dict[str, Path]:
    return {
        f"{path.parent.name}.{path.stem}": path
        for feature in FEATURES
        for path in sorted((CORE / feature).glob("*.py"))
        if is_adapter(f"{path.parent.name}.{path.stem}")
    }


def test_the_flat_rules_and_adapters_folders_are_gone_and_each_feature_is_a_package() -> None:
    assert not (CORE / "logic").exists() and not (CORE / "adapters").exists()
    for feature in FEATURES:
        init = CORE / feature / "__init__.py"
        tree = ast.parse(init.read_text())
        # One docstring saying what the feature does for the user; nothing runs at import.
        assert ast.get_docstring(tree), f"{feature}/__init__.py says what the feature does"
        assert len(tree.body) == 1, f"{feature}/__init__.py holds only its docstring"


def test_adapters_import_no_rules_but_the_listed_ones() -> None:
    found = set()
    for name, path in adapters().items():
        for module in core_imports(path):
            if module.split(".")[0] in SHARED or is_adapter(module):
                continue
            found.add((name, ".".join(module.split(".")[:2])))

    assert found - KNOWN_RULE_IMPORTS == set(), "an adapter imports rules: move what it needs to kernel/"
    assert KNOWN_RULE_IMPORTS - found == set(), "one moved out: take it off KNOWN_RULE_IMPORTS"


def test_the_guard_sees_every_adapter() -> None:
    # Guards the check above: it would pass, for the wrong reason, if it found no adapter.
    assert {"hooks.dynamo_state", "transcripts.s3_bodies", "hooks.sqs_flush_queue", "kernel.aws"} <= set(
        adapters()
    )
