"""Write every sealed session's files: ``python -m bench.sealed._build``."""

from __future__ import annotations

from bench.sealed import _sessions_a, _sessions_b


def main() -> None:
    for build in (*_sessions_a.ALL, *_sessions_b.ALL):
        build()


if __name__ == "__main__":
    main()
