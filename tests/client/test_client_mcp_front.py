"""``continuity mcp`` as a harness starts it: the front answers the handshake, the SDK the rest.

Each test runs the real process over stdio: the SDK's own stdio client where a client is needed,
raw JSON-RPC lines where the exact answers matter.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import anyio
import pytest

from continuity_client.agent import mcp_front
from tests.client.client_support import run_hook
from tests.client.fake_continuity_service import FakeService

pytest.importorskip("mcp")

SESSION = "front-session-1"
HANDSHAKE_ANSWERS = 1 + len(mcp_front.LISTS)  # initialize and the lists
VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "1999-01-01"]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "shop"
    folder.mkdir()
    return folder


@pytest.fixture
def agent_env(client_env: dict[str, str], project: Path) -> dict[str, str]:
    run_hook(["session-start"], {"session_id": SESSION, "cwd": str(project), "source": "startup"}, client_env)
    return {**client_env, "CLAUDE_PROJECT_DIR": str(project)}


@pytest.mark.parametrize("version", VERSIONS)
def test_the_front_answers_the_handshake_exactly_as_the_sdk_does(
    version: str, agent_env: dict[str, str]
) -> None:
    # Given a client opening with initialize at this protocol version, then the four lists
    opening = mcp_front.handshake_messages(version)

    # When the front answers it, and when the SDK alone answers it
    front = mcp_front.converse([], opening, HANDSHAKE_ANSWERS, agent_env)
    sdk = mcp_front.converse(["--sdk"], opening, HANDSHAKE_ANSWERS, agent_env)

    # Then the answers are the same (a stale mcp_handshake.json fails here:
    # `python -m continuity_client.agent.mcp_front --record` writes it again)
    assert front == sdk
    assert front[0]["result"]["serverInfo"]["name"] == "continuity"


def test_a_tool_call_after_the_handshake_is_answered_by_the_sdk_once(agent_env: dict[str, str]) -> None:
    # Given the handshake answered by the front, then a ping and a tool call the SDK must validate
    messages = [
        *mcp_front.handshake_messages("2025-06-18"),
        {"jsonrpc": "2.0", "id": 10, "method": "ping"},
        {
            "jsonrpc": "2.0",
            "id": 11,
            "method": "tools/call",
            "params": {"name": "recover", "arguments": {"level": 7}},
        },
        {"jsonrpc": "2.0", "id": 12, "method": "tools/call", "params": {"name": "nope", "arguments": {}}},
    ]

    # When they are sent in one go
    answers = mcp_front.converse([], messages, HANDSHAKE_ANSWERS + 3, agent_env)

    # Then each request has exactly one answer and the replayed initialize's never shows: the
    # handshake's in order, the rest in whatever order the SDK finishes them (it runs requests
    # concurrently, and JSON-RPC matches answers by id)
    ids = [answer.get("id") for answer in answers]
    assert ids[:HANDSHAKE_ANSWERS] == [1, 2, 3, 4, 5]
    assert Counter(ids[HANDSHAKE_ANSWERS:]) == Counter([10, 11, 12])
    by_id = {answer["id"]: answer for answer in answers}
    assert by_id[11]["result"]["isError"] is True
    assert "level must be 1, 2 or 3" in json.dumps(by_id[11]["result"])
    assert "error" in by_id[12] or by_id[12]["result"]["isError"] is True


def as_set(answers: list[dict]) -> list[str]:
    """Answers in a comparable order (the SDK may send a notification before or after an answer)."""
    return sorted(json.dumps(answer, sort_keys=True) for answer in answers)


def test_a_per_request_client_gets_the_sdk_answers_from_the_front(agent_env: dict[str, str]) -> None:
    # Given a client of the per-request era (Claude Code): discover, a subscription, the lists
    opening = mcp_front.modern_messages("2026-07-28")
    count = 2 + len(mcp_front.LISTS)

    # When the front answers it, and when the SDK alone answers it
    front = mcp_front.converse([], opening, count, agent_env)
    sdk = mcp_front.converse(["--sdk"], opening, count, agent_env)

    # Then the answers are the same, the subscription's acknowledgement included
    assert as_set(front) == as_set(sdk)
    assert any(answer.get("method") == mcp_front.ACKNOWLEDGED for answer in front)


def test_a_per_request_tool_call_goes_to_the_sdk_without_a_second_acknowledgement(
    agent_env: dict[str, str],
) -> None:
    # Given the opening answered by the front, then a tool call the SDK must validate
    opening = mcp_front.modern_messages("2026-07-28")
    meta = opening[0]["params"]["_meta"]
    call = {"name": "recover", "arguments": {"level": 7}, "_meta": meta}
    messages = [*opening, {"jsonrpc": "2.0", "id": 99, "method": "tools/call", "params": call}]

    # When they are sent in one go
    answers = mcp_front.converse([], messages, 3 + len(mcp_front.LISTS), agent_env)

    # Then the SDK answered the call, and the subscription was acknowledged once
    assert answers[-1]["id"] == 99 and answers[-1]["result"]["isError"] is True
    acknowledged = [a for a in answers if a.get("method") == mcp_front.ACKNOWLEDGED]
    assert len(acknowledged) == 1


def test_a_client_without_the_handshake_gets_the_sdk_from_its_first_message(
    agent_env: dict[str, str],
) -> None:
    # Given a request before any initialize
    early = [{"jsonrpc": "2.0", "id": 9, "method": "tools/list"}]

    # Then the front does not answer it from the recording: the SDK does, as it would alone
    assert mcp_front.converse([], early, 1, agent_env) == mcp_front.converse(["--sdk"], early, 1, agent_env)


async def sdk_client_round_trip(env: dict[str, str], project: Path) -> dict[str, Any]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    server = StdioServerParameters(
        command=sys.executable, args=["-m", "continuity_client", "mcp"], env=env, cwd=str(project)
    )
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        initialized = await session.initialize()
        tools = await session.list_tools()
        remembered = await session.call_tool("remember", {"content": "money is Decimal"})
        recovered = await session.call_tool("recover", {"level": 1})
        return {
            "server": initialized.server_info.name,
            "tools": sorted(tool.name for tool in tools.tools),
            "remembered": "".join(getattr(block, "text", "") for block in remembered.content),
            "recovered": "".join(getattr(block, "text", "") for block in recovered.content),
        }


def test_the_sdk_client_works_through_the_front(
    agent_env: dict[str, str], project: Path, service: FakeService
) -> None:
    # When the SDK's stdio client starts `continuity mcp` and calls two tools
    seen = anyio.run(sdk_client_round_trip, agent_env, project)

    # Then it got the handshake, the five tools, and both calls reached the service
    assert seen["server"] == "continuity"
    assert seen["tools"] == ["handoff", "recover", "remember", "session_digest", "session_search"]
    assert seen["remembered"] == f"Remembered for session {SESSION}."
    assert seen["recovered"] == "Nothing stored yet for this session or project."
    remembered = [r for r in service.requests if r.event == "remember"]
    assert [r.body["content"] for r in remembered] == ["money is Decimal"]


def test_a_client_that_leaves_after_the_handshake_ends_the_server(agent_env: dict[str, str]) -> None:
    # Given only the handshake, then stdin closed
    answers = mcp_front.converse([], mcp_front.handshake_messages("2025-11-25"), HANDSHAKE_ANSWERS, agent_env)

    # Then each was answered and the process ended by itself (converse waits for it)
    assert [answer["id"] for answer in answers] == [1, 2, 3, 4, 5]
