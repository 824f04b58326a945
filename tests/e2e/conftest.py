"""Session fixtures: one local stack for the e2e tests, started once."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.e2e.local_stack import Api, LocalStackProcess


@pytest.fixture(scope="session")
def local_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalStackProcess]:
    base = tmp_path_factory.mktemp("local-stack")
    stack = LocalStackProcess(base / "data", base / "local-stack.log")
    stack.start()
    yield stack
    stack.stop()


@pytest.fixture(scope="session")
def api(local_stack: LocalStackProcess) -> Api:
    return Api(local_stack)
