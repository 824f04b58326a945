"""Live transcripts end to end: the real ``continuity hook`` reads a transcript file and the local
stack keeps the readable text; a lost delta is mended through the service's 409."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from continuity_client.hook import harness, transcript
from tests.e2e.local_stack import ROOT, Api, LocalStackProcess, agent_env, wait_for

pytestmark = pytest.mark.e2e

FIXTURE = ROOT / "tests" / "client" / "fixtures" / "claude_transcript.jsonl"


class Agent:
    """One agent machine: its CONTINUITY_HOME, a project and a Claude Code transcript file."""

    def __init__(self, stack: LocalStackProcess, base: Path) -> None:
        self.session = str(uuid.uuid4())
        self.project = base / "shop"
        self.project.mkdir()
        self.transcript = base / "claude" / f"{self.session}.jsonl"
        self.transcript.parent.mkdir()
        self.lines = FIXTURE.read_text(encoding="utf-8").splitlines(keepends=True)
        self.written = 0
        self.env = {**agent_env(stack, base, drop=("CLAUDE_",)), "CONTINUITY_BACKOFF_S": "0"}

    def write_until(self, end: int) -> None:
        with self.transcript.open("a", encoding="utf-8") as handle:
            handle.write("".join(self.lines[self.written : end]))
        self.written = end

    def readable(self) -> str:
        records = [json.loads(line) for line in self.lines[: self.written]]
        return transcript.render_all(harness.CLAUDE_CODE, records)

    def hook(
        self, event: str, prompt: str, env: dict[str, str] | None = None, delivered: bool = True
    ) -> subprocess.CompletedProcess[str]:
        """Run a hook as the harness does. A prompt's hook hands its delivery to a background
        process and exits first: ``delivered`` waits until its spool is empty (all delivered)."""
        payload: dict[str, Any] = {
            "session_id": self.session,
            "transcript_path": str(self.transcript),
            "cwd": str(self.project),
            "hook_event_name": "UserPromptSubmit",
            "prompt": prompt,
        }
        done = subprocess.run(
            [sys.executable, "-m", "continuity_client", "hook", event],
            input=json.dumps(payload),
            capture_output=True,
            text=True,
            env=env or self.env,
            timeout=60,
        )
        assert (done.returncode, done.stderr) == (0, "")
        if delivered:
            spool = Path(self.env["CONTINUITY_HOME"]) / "spool"
            assert wait_for(lambda: not any(p.stat().st_size for p in spool.glob("*.jsonl")), bool, 30)
        return done

    def log(self) -> str:
        path = Path(self.env["CONTINUITY_HOME"]) / "client.log"
        return path.read_text() if path.exists() else ""


def stored_transcript(api: Api, session: str) -> str:
    answer = api.http.get(f"{api.stack.url}/api/sessions/{session}/transcript", timeout=30)
    assert answer.status_code == 200, answer.text
    return str(answer.json()["text"])


@pytest.fixture
def agent(local_stack: LocalStackProcess, tmp_path: Path) -> Agent:
    return Agent(local_stack, tmp_path)


def test_prompt_hooks_post_the_transcript_to_the_local_stack(agent: Agent, api: Api) -> None:
    # Given a Claude Code transcript that grows between two prompts
    agent.write_until(9)
    agent.hook("user-prompt-submit", "first")
    agent.write_until(len(agent.lines))

    # When the second prompt's hook runs
    agent.hook("user-prompt-submit", "second")

    # Then both prompts were accepted (no error in the client's log)
    assert "HTTP" not in agent.log() and "dropped" not in agent.log()


def test_the_service_holds_the_readable_transcript(agent: Agent, api: Api) -> None:
    agent.write_until(9)
    agent.hook("user-prompt-submit", "first")
    agent.write_until(len(agent.lines))
    agent.hook("pre-compaction", "")

    assert stored_transcript(api, agent.session) == agent.readable()


def test_a_lost_delta_is_mended_through_the_services_409(
    agent: Agent, api: Api, local_stack: LocalStackProcess
) -> None:
    # Given a delta that never reached the service (spooled while it was away, then the spool lost)
    agent.write_until(5)
    agent.hook("user-prompt-submit", "one")
    agent.write_until(12)
    away = {**agent.env, "CONTINUITY_URL": "http://127.0.0.1:9"}
    agent.hook("user-prompt-submit", "two", env=away, delivered=False)
    assert wait_for(lambda: "left in the spool" in agent.log(), bool, 30)  # its delivery found no one
    for spooled in (Path(agent.env["CONTINUITY_HOME"]) / "spool").glob("*.jsonl"):
        spooled.unlink()

    # When the next prompt's hook runs against the service again
    agent.write_until(len(agent.lines))
    agent.hook("user-prompt-submit", "three")

    # Then the service answered the gap, the client resent from its length, and nothing is missing
    assert "resending from there" in agent.log()
    assert stored_transcript(api, agent.session) == agent.readable()


def test_the_mcp_search_finds_the_transcript(agent: Agent, api: Api) -> None:
    agent.write_until(len(agent.lines))
    agent.hook("user-prompt-submit", "first")

    answer = api.http.post(
        f"{api.stack.url}/api/sessions/search",
        json={"query": "Decimal amounts", "session_key": agent.session},
        timeout=30,
    )

    assert answer.status_code == 200, answer.text
    assert [r["session_key"] for r in answer.json()["results"]] == [agent.session]
