"""Schemathesis against the local stack, driven by the API's own OpenAPI document (GET /api/openapi.json):
no 5xx, and every answer conforms to the document (status codes, content types, bodies, headers)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.local_stack import LocalStackProcess

pytestmark = pytest.mark.e2e

CHECKS = ",".join(
    [
        "not_a_server_error",
        "status_code_conformance",
        "content_type_conformance",
        "response_schema_conformance",
        "response_headers_conformance",
        "negative_data_rejection",
        "ignored_auth",
    ]
)


@pytest.fixture(scope="module")
def fuzzed_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalStackProcess]:
    """A stack of its own: a fuzzer's thousand requests would use up the shared stack's rate limit."""
    base = tmp_path_factory.mktemp("schemathesis-stack")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CONTINUITY_RATE_LIMIT_PER_MINUTE", "100000")
        stack = LocalStackProcess(base / "data", base / "stack.log", token="schemathesis-admin")
        stack.start()
    yield stack
    stack.stop()


def test_schemathesis_finds_no_server_error_and_no_answer_off_the_schema(
    fuzzed_stack: LocalStackProcess,
) -> None:
    st = shutil.which("st", path=str(Path(sys.executable).parent))
    assert st, "schemathesis is part of the dev install (make setup)"

    result = subprocess.run(
        [
            st,
            "run",
            f"{fuzzed_stack.url}/api/openapi.json",
            "--header",
            f"Authorization: Bearer {fuzzed_stack.token}",
            "--max-examples",
            "25",
            "--checks",
            CHECKS,
            "--seed",
            "20261122",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )

    assert result.returncode == 0, result.stdout[-6000:]
