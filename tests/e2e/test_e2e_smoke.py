"""The deploy smoke test (`python -m infra.smoke`) against the local stack, as an operator runs it."""

from __future__ import annotations

import io
import os
import subprocess
import sys

import pytest

from infra.smoke import Client, Smoke, run
from tests.e2e.local_stack import ROOT, LocalStackProcess, free_port

pytestmark = pytest.mark.e2e


def smoke_command(url: str, token: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "CONTINUITY_"))}
    env["CONTINUITY_TOKEN"] = token
    return subprocess.run(
        [sys.executable, "-m", "infra.smoke", "--url", url, "--timeout", "10"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_smoke_test_passes_against_a_running_stack(local_stack: LocalStackProcess) -> None:
    result = smoke_command(local_stack.url, local_stack.token)

    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[-1] == "passed"
    for step in ("health", "auth required", "pre-compaction checkpoint", "recovery after compaction"):
        assert any(line.startswith(f"ok    {step}") for line in lines), result.stdout


def test_runs_use_their_own_sessions_so_repeating_it_is_safe(local_stack: LocalStackProcess) -> None:
    first, second = (Smoke(Client(local_stack.url, local_stack.token)) for _ in range(2))

    outcomes = [run(smoke, out=io.StringIO()) for smoke in (first, second)]

    assert outcomes == [0, 0]
    assert first.session != second.session and first.project != second.project


def test_a_wrong_token_fails_at_the_first_authorized_step_with_a_clear_message(
    local_stack: LocalStackProcess,
) -> None:
    result = smoke_command(local_stack.url, "not-the-token")

    assert result.returncode == 1
    assert "ok    health" in result.stdout
    assert "FAIL  session-start: session-start failed (is the token valid" in result.stdout
    assert "HTTP 403" in result.stdout


def test_an_unreachable_url_fails_with_a_message_naming_it() -> None:
    url = f"http://127.0.0.1:{free_port()}"

    result = smoke_command(url, "t")

    assert result.returncode == 1
    assert f"FAIL  health: GET {url}/api/health: cannot connect" in result.stdout


def test_without_a_url_it_says_what_to_give() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONTINUITY_")}
    result = subprocess.run(
        [sys.executable, "-m", "infra.smoke"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )

    assert result.returncode == 2
    assert "give --url" in result.stderr
