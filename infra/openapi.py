"""The OpenAPI document of every HTTP function, merged; `make openapi` writes it into the shared
layer (``continuity_core/openapi.json``), where the read API serves it at ``GET /api/openapi.json``.

A test regenerates it and fails on drift, so the document always matches the handlers.
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

from infra.wiring import FUNCTIONS

DOCUMENT = Path(__file__).resolve().parents[1] / "layers" / "continuity_core" / "openapi.json"
TITLE = "Continuity API"
VERSION = "1"


def build() -> dict[str, Any]:
    merged: dict[str, Any] = {"paths": {}, "components": {"schemas": {}}}
    for spec in FUNCTIONS:
        if not any(route.documented for route in spec.routes):
            continue
        module = importlib.import_module(f"{spec.source_dir.replace('/', '.')}.{spec.module}")
        document = json.loads(module.app.get_openapi_json_schema(title=TITLE, version=VERSION))
        for path, operations in document.get("paths", {}).items():
            merged["paths"].setdefault(path, {}).update(operations)
        merged["components"]["schemas"].update(document.get("components", {}).get("schemas", {}))
        merged = {**document, "paths": merged["paths"], "components": merged["components"]}
    merged["paths"] = dict(sorted(merged["paths"].items()))
    merged["components"]["schemas"] = dict(sorted(merged["components"]["schemas"].items()))
    return merged


def render() -> str:
    return json.dumps(build(), indent=2, sort_keys=False) + "\n"


def main() -> int:
    DOCUMENT.write_text(render())
    print(f"written {DOCUMENT}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
