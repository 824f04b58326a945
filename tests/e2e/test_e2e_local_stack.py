"""The service end to end on the local stack: hooks over HTTP, debounced checkpoints, recovery, restart.

The stack runs with CONTINUITY_FLUSH_DELAY_SECONDS=1, so a flush lands within about 3 s (the delay,
the poller's 1 s long poll, the writer).
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.e2e.local_stack import ROOT, Api, LocalStackProcess, wait_for

pytestmark = pytest.mark.e2e

RECOVERY_HEADER = "## Session Recovery Context"


def unique(name: str) -> str:
    return f"{name}-{uuid.uuid4().hex[:8]}"


def prompt(session: str, cwd: str, n: int) -> dict[str, str]:
    return {
        "session_id": session,
        "cwd": cwd,
        "hook_event_name": "UserPromptSubmit",
        "prompt": f"step {n}: make the payment mock deterministic",
    }


def send_prompts(api: Api, session: str, cwd: str, numbers: range) -> None:
    for n in numbers:
        answer = api.hook("user-prompt-submit", prompt(session, cwd, n))
        assert (answer.status_code, answer.json()) == (200, {}), answer.text


def ranges(checkpoints: list[dict[str, Any]]) -> list[tuple[int, int, int]]:
    return [(c["first_prompt"], c["last_prompt"], c["prompt_count"]) for c in checkpoints]


@dataclass(frozen=True)
class Session:
    session_id: str
    cwd: str
    session_key: str
    checkpoints: list[dict[str, Any]]  # oldest first


@pytest.fixture(scope="module")
def paced_session(api: Api) -> Session:
    """10 prompts, pause, 10 more, pause, 5 more, pause: the periodic flow of one session."""
    session_id, cwd = unique("paced"), f"/tmp/{unique('e2e-paced')}/shop"

    def count_is(n: int) -> Any:
        return lambda found: len(found) >= n

    send_prompts(api, session_id, cwd, range(1, 11))
    wait_for(lambda: api.project_checkpoints(cwd), count_is(1))
    send_prompts(api, session_id, cwd, range(11, 21))
    wait_for(lambda: api.project_checkpoints(cwd), count_is(2))
    send_prompts(api, session_id, cwd, range(21, 26))
    api.wait_for_queue()  # had the 5 made a flush due, it would be written by now

    newest_first = api.project_checkpoints(cwd)
    assert newest_first, "no checkpoint was written"
    key = newest_first[0]["session_key"]
    return Session(session_id, cwd, key, api.session_checkpoints(key))


def test_ten_ten_five_prompts_give_two_periodic_checkpoints(paced_session: Session, api: Api) -> None:
    checkpoints = paced_session.checkpoints

    assert ranges(checkpoints) == [(1, 10, 10), (11, 20, 10)]
    assert {c["trigger"] for c in checkpoints} == {"periodic"}
    newest_first = api.project_checkpoints(paced_session.cwd)
    assert [c["id"] for c in newest_first] == [c["id"] for c in reversed(checkpoints)]
    fields = {
        "id",
        "session_key",
        "harness",
        "project",
        "project_normalized",
        "trigger",
        "digest",
        "prompt_count",
        "first_prompt",
        "last_prompt",
        "memory_queries",
        "recent_remembers",
        "created_at",
    }
    assert fields <= set(checkpoints[0])
    assert checkpoints[0]["project"] == paced_session.cwd


def test_a_burst_of_prompts_gives_disjoint_contiguous_checkpoints(api: Api) -> None:
    session_id, cwd = unique("burst"), f"/tmp/{unique('e2e-burst')}/shop"

    send_prompts(api, session_id, cwd, range(1, 26))
    api.wait_for_queue()  # every flush the burst queued is written
    checkpoints = sorted(api.project_checkpoints(cwd), key=lambda c: c["first_prompt"])

    assert checkpoints
    assert checkpoints[0]["first_prompt"] == 1
    for before, after in itertools.pairwise(checkpoints):
        assert after["first_prompt"] == before["last_prompt"] + 1
    for checkpoint in checkpoints:
        assert checkpoint["prompt_count"] == checkpoint["last_prompt"] - checkpoint["first_prompt"] + 1
    assert sum(c["prompt_count"] for c in checkpoints) == checkpoints[-1]["last_prompt"]


def session_start(api: Api, session_id: str, cwd: str, source: str) -> requests.Response:
    body = {"session_id": session_id, "cwd": cwd, "hook_event_name": "SessionStart", "source": source}
    return api.hook("session-start", body)


def last_checkpointed_prompt(session: Session) -> str:
    """The latest checkpoint's last prompt, as the block quotes it: the last instruction, under Next."""
    n = session.checkpoints[-1]["last_prompt"]
    quote = f"> step {n}: make the payment mock deterministic"
    return f"### Next\n{quote}\n_The user's last instruction (prompt {n});"


def test_session_start_after_compaction_recovers_the_latest_checkpoint(
    paced_session: Session, api: Api
) -> None:
    answer = session_start(api, paced_session.session_id, paced_session.cwd, "compact")

    assert answer.status_code == 200, answer.text
    output = answer.json()["hookSpecificOutput"]
    assert output["hookEventName"] == "SessionStart"
    assert RECOVERY_HEADER in output["additionalContext"]
    assert last_checkpointed_prompt(paced_session) in output["additionalContext"]
    assert len(answer.text) < 9000


def test_a_new_session_in_the_same_project_recovers_it_too(paced_session: Session, api: Api) -> None:
    answer = session_start(api, unique("fresh"), paced_session.cwd, "startup")

    assert answer.status_code == 200, answer.text
    context = answer.json()["hookSpecificOutput"]["additionalContext"]
    assert RECOVERY_HEADER in context
    assert last_checkpointed_prompt(paced_session) in context


def test_a_new_session_in_another_project_gets_nothing(paced_session: Session, api: Api) -> None:
    answer = session_start(api, unique("other"), f"/tmp/{unique('e2e-elsewhere')}", "startup")

    assert (answer.status_code, answer.json()) == (200, {})


@pytest.mark.parametrize(
    ("path", "data"),
    [
        ("/api/hooks/user-prompt-submit", "{not json"),
        ("/api/hooks/not-an-event", '{"session_id": "s", "cwd": "/tmp/x", "prompt": "p"}'),
        ("/api/hooks/user-prompt-submit", '{"cwd": "/tmp/x", "prompt": "no session id"}'),
    ],
    ids=["malformed-json", "unknown-event", "missing-session-id"],
)
def test_bad_input_is_a_json_4xx(api: Api, path: str, data: str) -> None:
    answer = api.http.post(
        f"{api.stack.url}{path}", data=data, headers={"Content-Type": "application/json"}, timeout=30
    )

    assert 400 <= answer.status_code < 500, answer.text
    assert answer.headers["content-type"].startswith("application/json")
    assert answer.json()["error"] and answer.json()["detail"]


def test_a_body_over_1_mb_is_413(api: Api) -> None:
    big = prompt("big", "/tmp/big", 1) | {"prompt": "x" * (1024 * 1024 + 1)}

    assert api.hook("user-prompt-submit", big).status_code == 413


@pytest.mark.parametrize(
    ("headers", "status", "message"),
    [({}, 401, "Unauthorized"), ({"Authorization": "Bearer wrong-token"}, 403, "Forbidden")],
)
def test_hooks_need_the_token(
    local_stack: LocalStackProcess, headers: dict[str, str], status: int, message: str
) -> None:
    body = prompt("s", "/tmp/x", 1)

    answer = requests.post(
        f"{local_stack.url}/api/hooks/user-prompt-submit", json=body, headers=headers, timeout=30
    )

    assert (answer.status_code, answer.json()) == (status, {"message": message})


def test_health_needs_no_token(local_stack: LocalStackProcess) -> None:
    answer = requests.get(f"{local_stack.url}/api/health", timeout=30)

    assert (answer.status_code, answer.json()) == (200, {"status": "ok"})


def run_local_stack(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "infra.local", *args],
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_bad_setting_stops_the_start_with_a_message_naming_it(tmp_path: Path) -> None:
    result = run_local_stack(
        "--port", "0", "--data-dir", str(tmp_path), env={"CONTINUITY_PROMPT_INTERVAL": "0"}
    )

    assert result.returncode == 2
    assert "CONTINUITY_PROMPT_INTERVAL" in result.stderr
    assert "ready" not in result.stdout


def test_a_port_in_use_stops_the_start_with_a_message(local_stack: LocalStackProcess, tmp_path: Path) -> None:
    result = run_local_stack("--port", str(local_stack.port), "--data-dir", str(tmp_path))

    assert result.returncode == 1
    assert f"127.0.0.1:{local_stack.port}" in result.stderr


def test_checkpoints_survive_a_restart(
    paced_session: Session, api: Api, local_stack: LocalStackProcess
) -> None:
    local_stack.restart()

    after = api.session_checkpoints(paced_session.session_key)

    assert [c["id"] for c in after] == [c["id"] for c in paced_session.checkpoints]
    assert [c["id"] for c in api.project_checkpoints(paced_session.cwd)] == [
        c["id"] for c in reversed(paced_session.checkpoints)
    ]
