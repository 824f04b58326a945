"""Fixtures for the client tests: a fake service and an isolated home (helpers: client_support)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.client.fake_continuity_service import FakeService


@pytest.fixture
def service() -> Iterator[FakeService]:
    fake = FakeService().start()
    yield fake
    fake.stop()


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "continuity-home"


@pytest.fixture
def client_env(tmp_path: Path, home: Path, service: FakeService) -> dict[str, str]:
    """An environment with HOME and CONTINUITY_HOME in tmp, pointed at the fake service."""
    user_home = tmp_path / "user"
    user_home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CONTINUITY_", "CLAUDE_", "GEMINI_"))}
    for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        env.pop(name, None)
    env.update(
        HOME=str(user_home),
        CONTINUITY_HOME=str(home),
        CONTINUITY_URL=service.url,
        CONTINUITY_TOKEN="good-token",
        CONTINUITY_HOOK_TIMEOUT_S="2",
        CONTINUITY_BACKOFF_S="0",
    )
    return env
