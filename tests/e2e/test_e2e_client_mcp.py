"""``continuity mcp`` end to end: the SDK's stdio client drives the real server against the local stack.

The hooks run first, as the harness would (``continuity hook ...`` processes), so the project has a
current session the service knows; the MCP server then finds it by itself.
"""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import anyio
import pytest

from continuity_core.recovery.tiers import LEVEL_LIMITS
from tests.e2e.local_stack import Api, LocalStackProcess, agent_env

pytestmark = pytest.mark.e2e
mcp = pytest.importorskip("mcp")


def client_env(stack: LocalStackProcess, home: Path, project: Path) -> dict[str, str]:
    return {**agent_env(stack, home, drop=("CLAUDE_", "GEMINI_")), "CLAUDE_PROJECT_DIR": str(project)}


def run_hook(event: str, payload: dict[str, Any], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "continuity_client", "hook", event],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


def text_of(result: Any) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


async def round_trip(env: dict[str, str], project: Path, summary: str) -> dict[str, Any]:
    """initialize → list tools → session_digest → recover(1), over stdio."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    server = StdioServerParameters(
        command=sys.executable, args=["-m", "continuity_client", "mcp"], env=env, cwd=str(project)
    )
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        initialized = await session.initialize()
        tools = await session.list_tools()
        digest = await session.call_tool(
            "session_digest",
            {
                "summary": summary,
                "decisions": [
                    {
                        "decision": "Refunds use Decimal amounts",
                        "rationale": "float rounding broke test_partial",
                        "evidence": [{"path": "shop/refunds.py", "line": 42}],
                    }
                ],
                "next_steps": ["remove the float fallback"],
            },
        )
        recovered = await session.call_tool("recover", {"level": 1})
        return {
            "server": initialized.server_info.name,
            "tools": sorted(tool.name for tool in tools.tools),
            "digest": digest,
            "recovered": recovered,
        }


def test_an_mcp_client_round_trip_against_the_local_stack(
    local_stack: LocalStackProcess, api: Api, tmp_path: Path
) -> None:
    # Given a project whose session the hooks reported to the local stack
    project = tmp_path / "shop"
    project.mkdir()
    env = client_env(local_stack, tmp_path / "home", project)
    session = f"mcp-e2e-{uuid.uuid4().hex[:8]}"
    base = {"session_id": session, "cwd": str(project)}
    assert run_hook("session-start", {**base, "source": "startup"}, env).returncode == 0
    assert run_hook("user-prompt-submit", {**base, "prompt": "make refunds exact"}, env).returncode == 0
    summary = f"Refunds are exact now ({session})."

    # When an MCP client starts `continuity mcp` and goes through the round trip
    seen = anyio.run(round_trip, env, project, summary)

    # Then the server offered its tools, wrote the digest for that session, and recovers it
    assert seen["server"] == "continuity"
    assert seen["tools"] == ["handoff", "recover", "remember", "session_digest", "session_search"]
    assert not seen["digest"].is_error, text_of(seen["digest"])
    assert f"session {session}" in text_of(seen["digest"])
    assert not seen["recovered"].is_error, text_of(seen["recovered"])
    recovered = text_of(seen["recovered"])
    assert "Refunds are exact now" in recovered and "remove the float fallback" in recovered
    assert len(recovered) <= LEVEL_LIMITS[1]
    # And the service holds the agent's checkpoint
    triggers = [c["trigger"] for c in api.session_checkpoints(session)]
    assert "agent" in triggers
