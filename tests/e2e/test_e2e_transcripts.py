"""Live transcripts, sub-agent inheritance and search end to end on the local stack (over HTTP).

A parent session with 12 prompts and a growing transcript; sub-agent starts (Claude Code with
agent_id, OpenClaw key) answer the inherited block with the parent's checkpoint and transcript tail;
search finds a word said only in the parent transcript; a transcript past the S3 threshold reads
back byte-identical.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
import requests

from tests.e2e.local_stack import Api, wait_for

pytestmark = pytest.mark.e2e

HEADING = "## Inherited from Parent Session"


def unique(name: str) -> str:
    return f"{name}-{uuid.uuid4().hex[:8]}"


class Client:
    """A transcript and its cursor: every hook sends only what is new."""

    def __init__(self, api: Api, session: str, cwd: str, harness: str = "claude-code") -> None:
        self.api, self.session, self.cwd, self.harness = api, session, cwd, harness
        self.text, self.sent = "", 0

    def prompt(self, n: int, said: str) -> requests.Response:
        self.text += said
        body = {
            "session_id": self.session,
            "cwd": self.cwd,
            "harness": self.harness,
            "hook_event_name": "UserPromptSubmit",
            "prompt": f"step {n}",
            "transcript": {"offset": self.sent, "text": self.text[self.sent :]},
        }
        answer = self.api.hook("user-prompt-submit", body)
        assert answer.status_code == 200, answer.text
        self.sent = len(self.text)
        return answer


def sessions_api(api: Api, method: str, path: str, **kwargs: Any) -> requests.Response:
    return api.http.request(method, f"{api.stack.url}{path}", timeout=60, **kwargs)


@pytest.fixture(scope="module")
def parent(api: Api) -> Client:
    client = Client(api, unique("parent"), f"/tmp/{unique('e2e-transcripts')}/shop")
    for n in range(1, 13):
        said = f"User: step {n}: make the payment mock deterministic\nAssistant: edited mock.py ({n}).\n"
        if n == 11:
            said += "Assistant: the culprit was the okapi fixture; it is seeded now.\n"
        client.prompt(n, said)
        if n == 10:
            wait_for(lambda: api.session_checkpoints(client.session), bool, timeout_s=15)
    return client


def context(answer: requests.Response) -> str:
    assert answer.status_code == 200, answer.text
    return str(answer.json()["hookSpecificOutput"]["additionalContext"])


def test_a_claude_code_subagent_inherits_the_checkpoint_and_the_tail(parent: Client, api: Api) -> None:
    body = {
        "session_id": parent.session,
        "cwd": parent.cwd,
        "hook_event_name": "SubagentStart",
        "agent_id": "agent-7c1e",
        "agent_type": "Explore",
    }
    block = context(api.hook("subagent-start", body))
    assert block.startswith(HEADING)
    assert f"`{parent.session}`" in block
    assert "### Parent's Latest Checkpoint (periodic" in block
    tail = block.split("### Parent Transcript Since That Checkpoint\n", 1)[1]
    assert "okapi fixture" in tail and "step 12" in tail
    assert len(block) < 9000


def test_an_openclaw_subagent_inherits_from_its_main_session(api: Api) -> None:
    agent = uuid.uuid4().hex[:8]
    main = Client(api, f"agent:{agent}:main", f"/tmp/{unique('e2e-openclaw')}", harness="openclaw")
    main.prompt(1, "User: port the billing job\nAssistant: started billing/queue.py\n")
    answer = api.hook(
        "session-start",
        {"session_id": f"agent:{agent}:subagent:{uuid.uuid4()}", "cwd": main.cwd, "harness": "openclaw"},
    )
    block = context(answer)
    assert f"`agent:{agent}:main`" in block and "billing/queue.py" in block


def test_search_finds_a_word_said_only_in_the_parent_transcript(parent: Client, api: Api) -> None:
    answer = sessions_api(api, "POST", "/api/sessions/search", json={"query": "okapi", "project": parent.cwd})
    assert answer.status_code == 200, answer.text
    (hit,) = answer.json()["results"]
    assert hit["session_key"] == parent.session
    assert "«okapi»" in hit["snippet"]


def test_the_parent_is_listed(parent: Client, api: Api) -> None:
    answer = sessions_api(api, "GET", "/api/sessions", params={"project": parent.cwd})
    assert answer.status_code == 200, answer.text
    assert [s["session_key"] for s in answer.json()["sessions"]] == [parent.session]


def _local_stack_provisions_buckets() -> bool:
    from infra.local.stack import StackOptions

    return "buckets" in StackOptions.__dataclass_fields__


@pytest.mark.skipif(
    not _local_stack_provisions_buckets(), reason="the local stack does not provision wiring.BUCKETS yet"
)
def test_a_transcript_over_the_s3_threshold_reads_back_byte_identical(api: Api) -> None:
    client = Client(api, unique("big"), f"/tmp/{unique('e2e-big')}")
    for n in range(30):
        client.prompt(n, f'turn {n}: café ☕ 😀 «json» "quotes" \\ {"x" * 5000}\n')
    answer = sessions_api(api, "GET", f"/api/sessions/{client.session}/transcript")
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["length"] == len(client.text)
    assert body["text"].encode("utf-8") == client.text.encode("utf-8")
