"""Fixtures for the client tests: the real service in-process, a fake one for faults, an isolated home
(helpers: client_support)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.client.fake_continuity_service import FakeService
from tests.client.real_service import RealService, admin_token_sha256


@pytest.fixture
def service() -> Iterator[FakeService]:
    fake = FakeService().start()
    yield fake
    fake.stop()


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "continuity-home"


def isolated_env(tmp_path: Path, home: Path, url: str, token: str, **settings: str) -> dict[str, str]:
    """This process's environment without our, the harnesses' and proxy variables; HOME and
    CONTINUITY_HOME in tmp; the client pointed at ``url`` with ``token``."""
    user_home = tmp_path / "user"
    user_home.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CONTINUITY_", "CLAUDE_", "GEMINI_"))}
    for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        env.pop(name, None)
    env.update(HOME=str(user_home), CONTINUITY_HOME=str(home), CONTINUITY_URL=url, CONTINUITY_TOKEN=token)
    return env | settings


@pytest.fixture
def client_env(tmp_path: Path, home: Path, service: FakeService) -> dict[str, str]:
    """An environment with HOME and CONTINUITY_HOME in tmp, pointed at the fake service."""
    return isolated_env(
        tmp_path, home, service.url, "good-token", CONTINUITY_HOOK_TIMEOUT_S="2", CONTINUITY_BACKOFF_S="0"
    )


@pytest.fixture
def real_service(aws: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Iterator[RealService]:
    """The service itself (every function, the authorizer, moto) on 127.0.0.1; no debounce delay."""
    from infra import wiring
    from tests.support.cold_starts import reset_functions

    monkeypatch.setenv("CONTINUITY_FLUSH_DELAY_SECONDS", "0")
    monkeypatch.setenv(wiring.API_TOKEN_ENV_VAR, admin_token_sha256())
    reset_functions()
    served = RealService().start()
    yield served
    served.stop()
    reset_functions()


@pytest.fixture
def real_env(tmp_path: Path, home: Path, real_service: RealService) -> dict[str, str]:
    """``client_env``'s isolation, pointed at the real service with a hooks+read token of agent alice
    (and the default back-off, so a test sees whether the client presumes the service down)."""
    token = real_service.create_token("alice")["token"]
    return isolated_env(
        tmp_path, home, real_service.url, token, CONTINUITY_HOOK_TIMEOUT_S="5", CONTINUITY_BACKOFF_S="10"
    )
