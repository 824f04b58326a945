"""`continuity token …` against the local stack, admin-bootstrapped by `continuity local --token T`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import requests

from tests.e2e.local_stack import LocalStackProcess

pytestmark = pytest.mark.e2e


def continuity(stack: LocalStackProcess, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "CONTINUITY_HOME": str(home),
        "CONTINUITY_URL": stack.url,
        "CONTINUITY_TOKEN": stack.token,
    }
    return subprocess.run(
        [sys.executable, "-m", "continuity_client", "token", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


def bearer(token: str, spaces: int = 1) -> dict[str, str]:
    """An Authorization header; the authorizer reads any run of spaces after the scheme, the cache
    keys on the header's exact value, so each ``spaces`` is an identity the cache has not seen."""
    return {"Authorization": "Bearer" + " " * spaces + token}


def test_a_created_token_works_until_revoked(local_stack: LocalStackProcess, tmp_path: Path) -> None:
    # Given a hooks-only token of the admin's own agent, made with the CLI
    created = continuity(
        local_stack, tmp_path, "create", "--name", "e2e-hooks", "--scopes", "hooks", "--expires", "30d"
    )
    assert created.returncode == 0, created.stderr
    token = created.stdout.strip().splitlines()[-1]
    hook_url = f"{local_stack.url}/api/hooks/user-prompt-submit"
    body = {"session_id": "token-e2e", "cwd": "/e2e/tokens", "prompt": "hello"}

    # Then it posts hooks (under either spacing), but may not read
    for spaces in (1, 2):
        assert (
            requests.post(hook_url, json=body, headers=bearer(token, spaces), timeout=30).status_code == 200
        )
    read = requests.get(f"{local_stack.url}/api/checkpoints/token-e2e", headers=bearer(token), timeout=30)
    assert read.status_code == 403

    # When it is revoked
    listed = continuity(local_stack, tmp_path, "list", "--json")
    record = next(t for t in json.loads(listed.stdout)["tokens"] if t.get("name") == "e2e-hooks")
    assert token not in listed.stdout
    assert continuity(local_stack, tmp_path, "revoke", record["token_id"]).returncode == 0

    # Then the list says so, and the authorizer refuses it. API Gateway (and the local gateway)
    # reuse an answer for the same Authorization value for 5 minutes, so the refusal is asked for
    # under a value the cache has not seen.
    after = continuity(local_stack, tmp_path, "list", "--json")
    revoked = next(t for t in json.loads(after.stdout)["tokens"] if t["token_id"] == record["token_id"])
    assert revoked["revoked_at"]
    refused = requests.post(hook_url, json=body, headers=bearer(token, 3), timeout=30)
    assert refused.status_code == 403, refused.text


def test_token_commands_explain_a_missing_admin_token(local_stack: LocalStackProcess, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONTINUITY_")}
    result = subprocess.run(
        [sys.executable, "-m", "continuity_client", "token", "list"],
        capture_output=True,
        text=True,
        env={**env, "CONTINUITY_HOME": str(tmp_path)},
        timeout=60,
        check=False,
    )
    assert result.returncode == 1
    assert "continuity login" in result.stderr
