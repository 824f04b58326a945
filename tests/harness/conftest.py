"""The real-CLI stage: the local stack (shared with the e2e tests), a scripted model, a machine."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from tests.e2e.conftest import api, local_stack  # noqa: F401 - the same session fixtures


@pytest.fixture
def stopped_service() -> str:
    """The URL of a service that is not running: the connection is refused at once."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@pytest.fixture
def silent_service() -> Iterator[str]:
    """The URL of a service that accepts connections and never answers (hung, or a dead proxy)."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(64)
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
