"""``continuity local``: the local stack, which exists only in the repository's development install."""

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
