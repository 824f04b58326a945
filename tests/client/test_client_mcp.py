"""``continuity mcp`` tools and ``continuity status|checkpoint|recover`` against the fake service."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest

from continuity_client.agent import api, mcp_server
from tests.client.client_support import run_cli, run_hook, spooled
from tests.client.fake_continuity_service import ERROR_500, FakeService

pytest.importorskip("mcp")

SESSION = "mcp-session-1"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "shop"
    (folder / "src").mkdir(parents=True)
    return folder


@pytest.fixture
def agent_env(client_env: dict[str, str], project: Path) -> dict[str, str]:
    """The harness's environment for its MCP server: the project it runs in."""
    return {**client_env, "CLAUDE_PROJECT_DIR": str(project)}


@pytest.fixture
def seen_session(agent_env: dict[str, str], project: Path, service: FakeService) -> str:
    """A session the hooks reported for the project."""
    run_hook(["session-start"], {"session_id": SESSION, "cwd": str(project), "source": "startup"}, agent_env)
    return SESSION


def call_tools(env: dict[str, str], calls: list[tuple[str, dict[str, Any]]]) -> tuple[list[str], list[Any]]:
    """(tool names, results of each call) through an in-process MCP client."""
    from mcp import Client

    async def go() -> tuple[list[str], list[Any]]:
        server = mcp_server.build_server(client=api.Client(env))
        async with Client(server, mode="legacy") as client:
            names = [tool.name for tool in (await client.list_tools()).tools]
            results = [await client.call_tool(name, arguments) for name, arguments in calls]
            return names, results

    return anyio.run(go)


def text_of(result: Any) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


def test_the_server_offers_the_five_tools(agent_env: dict[str, str]) -> None:
    names, _ = call_tools(agent_env, [])

    assert sorted(names) == ["handoff", "recover", "remember", "session_digest", "session_search"]


def test_session_digest_writes_the_agents_checkpoint_for_the_current_session(
    agent_env: dict[str, str], seen_session: str, service: FakeService, project: Path
) -> None:
    # When the agent calls session_digest without naming its session
    digest = {
        "summary": "Payment mock is deterministic now.",
        "decisions": [
            {
                "decision": "Amounts are Decimal",
                "rationale": "floats drift",
                "evidence": [{"path": "tests/mocks/payment.py", "line": 12}],
            }
        ],
        "next_steps": ["fix test_partial"],
    }
    _, (result,) = call_tools(agent_env, [("session_digest", digest)])

    # Then the digest went to the session the hooks last saw, with the project and its decision
    assert not result.is_error, text_of(result)
    assert f"session {seen_session}" in text_of(result)
    (written,) = service.checkpoints[seen_session]
    assert (written["trigger"], written["summary"]) == ("agent", digest["summary"])
    assert service.ledger[str(project.resolve())][0]["decision"] == "Amounts are Decimal"


def test_recover_answers_the_level_asked_for(
    agent_env: dict[str, str], seen_session: str, service: FakeService
) -> None:
    calls: list[tuple[str, dict[str, Any]]] = [
        ("session_digest", {"summary": "halfway", "next_steps": ["ship"]}),
        ("recover", {"level": 1}),
        ("recover", {"level": 2, "query": "refund"}),
    ]

    _, (_, first, second) = call_tools(agent_env, calls)

    assert text_of(first).startswith("Level 1: halfway | next: ship")
    assert "searched: refund" in text_of(second)


def test_recover_with_nothing_stored_says_so(agent_env: dict[str, str], seen_session: str) -> None:
    _, (result,) = call_tools(agent_env, [("recover", {"level": 1})])

    assert not result.is_error
    assert text_of(result) == "Nothing stored yet for this session or project."


def test_session_search_finds_earlier_conversation(
    agent_env: dict[str, str], seen_session: str, service: FakeService, project: Path
) -> None:
    service.transcripts[seen_session] = "User: why Decimal?\n\nAssistant: floats drift in refunds.\n\n"
    service.sessions[seen_session] = str(project.resolve())

    _, (hit, none) = call_tools(
        agent_env, [("session_search", {"query": "refunds"}), ("session_search", {"query": "kafka"})]
    )

    assert f"session {seen_session}" in text_of(hit) and "floats drift in refunds" in text_of(hit)
    assert text_of(none) == "no matches"


def test_session_search_says_when_the_service_has_no_search_yet(
    agent_env: dict[str, str], seen_session: str, service: FakeService
) -> None:
    service.search_route = False

    _, (result,) = call_tools(agent_env, [("session_search", {"query": "x"})])

    assert result.is_error
    assert "not available" in text_of(result)


def test_remember_posts_a_remember_hook_for_the_session(
    agent_env: dict[str, str], seen_session: str, service: FakeService
) -> None:
    _, (result,) = call_tools(agent_env, [("remember", {"content": "use Decimal for money"})])

    posted = service.requests[-1]
    assert text_of(result) == f"Remembered for session {seen_session}."
    assert (posted.event, posted.body["content"], posted.body["session_id"]) == (
        "remember",
        "use Decimal for money",
        seen_session,
    )
    assert posted.key.startswith(f"{seen_session}:remember:")


def test_remember_is_spooled_when_the_service_fails(
    agent_env: dict[str, str], seen_session: str, service: FakeService, home: Path
) -> None:
    service.mode = ERROR_500

    _, (result,) = call_tools(agent_env, [("remember", {"content": "keep this"})])

    assert "kept locally" in text_of(result)
    assert [r["body"]["content"] for r in spooled(home)] == ["keep this"]


def test_a_tool_without_a_known_session_says_how_to_name_one(agent_env: dict[str, str]) -> None:
    _, (result,) = call_tools(agent_env, [("session_digest", {"summary": "x"})])

    assert result.is_error
    assert "no current session" in text_of(result)


def test_explicit_session_and_project_arguments_win(
    agent_env: dict[str, str], seen_session: str, service: FakeService, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    arguments = {"summary": "elsewhere", "session_key": "other-session", "project": str(other)}

    _, (result,) = call_tools(agent_env, [("session_digest", arguments)])

    assert not result.is_error, text_of(result)
    assert service.checkpoints["other-session"][0]["project_normalized"] == str(other.resolve())


def test_the_session_is_found_from_a_sub_folder_of_the_project(
    client_env: dict[str, str], seen_session: str, project: Path
) -> None:
    env = {k: v for k, v in client_env.items() if k != "CLAUDE_PROJECT_DIR"}
    env["CONTINUITY_PROJECT_DIR"] = str(project / "src")

    target = api.Client(env).target()

    assert (target.session, target.project) == (seen_session, str(project.resolve()))


# ---- the CLI: status, checkpoint, recover ---------------------------------------------------


def cli(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_cli(args, env, cwd)


def test_checkpoint_then_status_then_recover_from_the_project_folder(
    client_env: dict[str, str], seen_session: str, project: Path, service: FakeService
) -> None:
    # Given a terminal in the project's sub-folder (no harness variables)
    folder = project / "src"

    # When the user writes a checkpoint, asks for the status and recovers
    written = cli(["checkpoint"], client_env, folder)
    status = cli(["status", "--json"], client_env, folder)
    recovered = cli(["recover", "1"], client_env, folder)

    # Then each found the session the hooks reported for the project
    assert written.returncode == 0, written.stderr
    assert f"explicit checkpoint 1 of session {seen_session}" in written.stdout
    report = json.loads(status.stdout)
    assert (report["session"], report["project"]) == (seen_session, str(project.resolve()))
    assert report["session_checkpoints"] == 1
    assert report["latest_session_checkpoint"]["trigger"] == "explicit"
    assert report["ledger_decisions"] == 0
    assert recovered.stdout.startswith("Level 1: explicit checkpoint of")


def test_status_for_people_reads_as_sentences(
    client_env: dict[str, str], seen_session: str, project: Path
) -> None:
    shown = cli(["status"], client_env, project)

    assert shown.returncode == 0, shown.stderr
    assert f"session: {seen_session} (last hook)" in shown.stdout
    assert "checkpoints: none yet" in shown.stdout
    assert "decision ledger: 0 decision(s)" in shown.stdout


def test_recover_with_nothing_stored_fails_with_a_message(
    client_env: dict[str, str], seen_session: str, project: Path
) -> None:
    recovered = cli(["recover", "2", "--query", "x"], client_env, project)

    assert recovered.returncode == 1
    assert "nothing stored" in recovered.stderr


def test_checkpoint_of_a_session_the_service_never_saw_fails_clearly(
    client_env: dict[str, str], project: Path
) -> None:
    written = cli(["checkpoint", "--session", "ghost"], client_env, project)

    assert written.returncode == 1
    assert "has not seen session 'ghost'" in written.stderr
