"""``continuity local`` and ``continuity operator``: the local stack and the operator's commands,
which exist only in the repository's development install (they need the service's code and boto3)."""

from __future__ import annotations

import sys


def main(argv: list[str]) -> int:
    try:
        from infra.local.main import main as local_main
    except ImportError:
        sys.stderr.write(
            "continuity local needs the development install: run `make setup` in the repository\n"
        )
        return 1
    result = local_main(argv)
    return result if isinstance(result, int) else 0


def operator(argv: list[str]) -> int:
    try:
        from infra.local.environment import ensure_import_paths
        from infra.operator import main as operator_main
    except ImportError:
        sys.stderr.write(
            "continuity operator needs the development install (the service's code and the "
            "deployment's AWS credentials): run it in the repository after `make setup`\n"
        )
        return 1
    ensure_import_paths()
    return operator_main(argv)
