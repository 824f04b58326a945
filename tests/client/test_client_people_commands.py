"""The commands a person uses, against the real service in-process: sessions, transcript, search,
ledger, preview, forget, logout and uninstall. Data gets there the way it does in use: hooks posted
by ``continuity hook`` from a Claude Code transcript file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from continuity_client.agent import api
from continuity_client.hook import harness, transcript
from tests.client.client_support import log_text, run_cli, run_hook, spooled
from tests.client.real_service import RealService

FIXTURES = Path(__file__).parent / "fixtures"
SESSION = "5d3c2a4e-8f1b-4c7a-9e2d-1a2b3c4d5e6f"  # the fixture transcript's


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "shop"
    path.mkdir()
    return path.resolve()


def hook_body(project: Path, session: str, transcript_path: Path | None = None, **fields: object) -> dict:
    body: dict = {"session_id": session, "cwd": str(project), **fields}
    if transcript_path is not None:
        body["transcript_path"] = str(transcript_path)
    return body


def lived(
    env: dict[str, str], project: Path, tmp_path: Path, session: str = SESSION, prompts: int = 10
) -> Path:
    """A session as Claude Code runs it: start, prompts with the fixture transcript, flushes delivered."""
    path = tmp_path / "claude" / f"{session}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(FIXTURES / "claude_transcript.jsonl", path)
    run_hook(["session-start"], hook_body(project, session, source="startup"), env)
    for n in range(1, prompts + 1):
        body = hook_body(project, session, path, prompt=f"step {n}: make the payment mock deterministic")
        run_hook(["user-prompt-submit"], body, env)
    return path


def decide(env: dict[str, str], project: Path, session: str, decision: str, rationale: str) -> None:
    client = api.Client(env)
    target = client.target(str(project), session)
    client.digest(
        target, {"summary": "decided", "decisions": [{"decision": decision, "rationale": rationale}]}
    )


# -- reading what the service holds --------------------------------------------------------------------


def test_sessions_transcript_and_search_show_what_the_hooks_stored(
    real_env: dict[str, str], project: Path, tmp_path: Path
) -> None:
    path = lived(real_env, project, tmp_path)

    sessions = run_cli(["sessions"], real_env, cwd=project)
    shown = run_cli(["transcript"], real_env, cwd=project)
    found = run_cli(["search", "deterministic"], real_env, cwd=project)

    assert sessions.returncode == 0, sessions.stderr
    assert f"{SESSION}  claude-code" in sessions.stdout and "(current)" in sessions.stdout
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert shown.returncode == 0 and shown.stdout == transcript.render_all(harness.CLAUDE_CODE, lines)
    assert (
        found.returncode == 0 and f"- session {SESSION}" in found.stdout and "«deterministic»" in found.stdout
    )


def test_projects_lists_the_project_a_session_started_in_with_its_harness(
    real_env: dict[str, str], project: Path, tmp_path: Path
) -> None:
    lived(real_env, project, tmp_path)

    listed = run_cli(["projects"], real_env, cwd=tmp_path)
    as_json = run_cli(["projects", "--json"], real_env, cwd=tmp_path)

    assert listed.returncode == 0, listed.stderr
    (line,) = [row for row in listed.stdout.splitlines() if str(project.resolve()) in row]
    assert "1 sessions  claude-code  on " in line and line.endswith("0 open hand-offs")
    assert json.loads(as_json.stdout)["projects"][0]["last_session_key"] == SESSION


def test_transcript_of_an_unknown_session_says_so(real_env: dict[str, str], project: Path) -> None:
    done = run_cli(["transcript", "no-such-session"], real_env, cwd=project)

    assert done.returncode == 1
    assert (
        done.stderr.strip()
        == "continuity transcript: the service holds no transcript for session 'no-such-session'"
    )


def test_ledger_lists_the_projects_decisions_newest_first(
    real_env: dict[str, str], project: Path, tmp_path: Path
) -> None:
    lived(real_env, project, tmp_path, prompts=1)
    decide(real_env, project, SESSION, "mock the payment gateway", "the sandbox is flaky")
    decide(real_env, project, SESSION, "seed the random generator", "reproducible runs")

    done = run_cli(["ledger"], real_env, cwd=project)

    assert done.returncode == 0, done.stderr
    title, *lines = done.stdout.splitlines()
    assert "what agents recorded with session_digest" in title
    assert "seed the random generator - because reproducible runs" in lines[0]
    assert "mock the payment gateway - because the sandbox is flaky" in lines[1]
    assert f"(session {SESSION})" in lines[0]


def test_preview_shows_what_a_session_starting_now_would_get(
    real_env: dict[str, str], real_service: RealService, project: Path, tmp_path: Path
) -> None:
    lived(real_env, project, tmp_path)
    real_service.deliver_flushes()

    shown = run_cli(["preview", "--json"], real_env, cwd=project)
    started = run_hook(["session-start"], hook_body(project, "a-new-one", source="startup"), real_env).output

    assert shown.returncode == 0, shown.stderr
    answer = json.loads(shown.stdout)
    assert started is not None
    assert answer["text"] == started["hookSpecificOutput"]["additionalContext"]
    assert answer["session_key"] == SESSION
    readable = run_cli(["preview"], real_env, cwd=project).stdout
    assert readable.startswith(
        f"a session starting now in {project} would get (recovered from session {SESSION}"
    )


def test_preview_of_a_project_with_nothing_stored_says_so(real_env: dict[str, str], project: Path) -> None:
    done = run_cli(["preview"], real_env, cwd=project)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"a session starting now in {project} would get nothing")


# -- forget ------------------------------------------------------------------------------------------


def test_forget_deletes_a_session_on_the_service_and_here_and_its_late_hooks_store_nothing(
    real_env: dict[str, str], real_service: RealService, project: Path, tmp_path: Path, home: Path
) -> None:
    # Given a session with checkpoints, a transcript, a decision, and a hook spooled while the
    # service was down
    path = lived(real_env, project, tmp_path)
    real_service.deliver_flushes()
    decide(real_env, project, SESSION, "mock the payment gateway", "the sandbox is flaky")
    real_service.stop()
    run_hook(["user-prompt-submit"], hook_body(project, SESSION, path, prompt="one more"), real_env)
    real_service.restart()
    assert spooled(home)

    done = run_cli(["forget", SESSION, "--yes"], real_env, cwd=project)

    # Then it says what went, on the service and here
    assert done.returncode == 0, done.stderr
    first = done.stdout.splitlines()[0]
    assert first.startswith(f"deleted session {SESSION}: 1 session state, 2 checkpoints, 1 transcripts")
    assert "1 decisions" in first
    assert "removed 2 local file(s)" in done.stdout  # the spool and the transcript cursor
    assert spooled(home) == []
    assert run_cli(["transcript", SESSION], real_env, cwd=project).returncode == 1
    assert "no decisions recorded" in run_cli(["ledger"], real_env, cwd=project).stdout
    # And a late hook of it is refused (logged, not spooled) and stores nothing
    run_hook(["user-prompt-submit"], hook_body(project, SESSION, prompt="later still"), real_env)
    assert "HTTP 410" in log_text(home) and "was deleted" in log_text(home)
    assert spooled(home) == []
    assert run_cli(["status", "--json", "--session", SESSION], real_env, cwd=project).returncode == 0
    assert api.Client(real_env).call("GET", f"/api/checkpoints/{SESSION}")["checkpoints"] == []


def test_forget_a_whole_project(
    real_env: dict[str, str], real_service: RealService, project: Path, tmp_path: Path
) -> None:
    lived(real_env, project, tmp_path)
    run_hook(["session-start"], hook_body(project, "only-started", source="startup"), real_env)

    done = run_cli(["forget", "--project", "--yes", "--json"], real_env, cwd=project)

    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["sessions"] == sorted([SESSION, "only-started"])
    assert answer["deleted"]["states"] == 2
    assert "no sessions with a transcript" in run_cli(["sessions"], real_env, cwd=project).stdout


def test_forget_asks_first_and_without_a_yes_deletes_nothing(
    real_env: dict[str, str], project: Path, tmp_path: Path
) -> None:
    lived(real_env, project, tmp_path, prompts=1)

    done = run_cli(["forget", SESSION], real_env, cwd=project)

    assert done.returncode == 1
    assert "nothing deleted (confirm with --yes" in done.stderr
    assert run_cli(["transcript", SESSION], real_env, cwd=project).returncode == 0


# -- logout and uninstall ----------------------------------------------------------------------------


def test_logout_removes_the_url_and_token_and_keeps_the_other_settings(
    real_env: dict[str, str], real_service: RealService, home: Path
) -> None:
    env = {k: v for k, v in real_env.items() if k not in ("CONTINUITY_URL", "CONTINUITY_TOKEN")}
    assert (
        run_cli(["login", "--url", real_service.url, "--token", real_env["CONTINUITY_TOKEN"]], env).returncode
        == 0
    )
    settings = json.loads((home / "config.json").read_text())
    (home / "config.json").write_text(json.dumps({**settings, "hook_timeout_s": 3}))

    done = run_cli(["logout"], env)

    assert done.returncode == 0 and "removed the URL and token" in done.stdout
    assert json.loads((home / "config.json").read_text()) == {"hook_timeout_s": 3}
    assert "no service URL" in run_cli(["doctor"], env).stdout


def test_uninstall_removes_every_hook_plugin_and_mcp_server_install_wrote(
    real_env: dict[str, str], project: Path, tmp_path: Path
) -> None:
    user = Path(real_env["HOME"])
    (user / ".gemini").mkdir()
    theirs = '{"theme": "dark"}\n'
    (user / ".gemini" / "settings.json").write_text(theirs)
    for args in (["claude-code"], ["gemini"], ["opencode"], ["codex", "--scope", "project"]):
        assert run_cli(["install", *args], real_env, cwd=project).returncode == 0

    done = run_cli(["uninstall"], real_env, cwd=project)

    assert done.returncode == 0, done.stderr
    assert not (user / ".claude" / "settings.json").exists()
    assert (user / ".gemini" / "settings.json").read_text() == theirs
    assert not (project / ".codex" / "hooks.json").exists()
    assert "continuity" not in json.dumps(
        [p.read_text() for p in user.rglob("*.json") if ".continuity" not in str(p)]
    )
    again = run_cli(["uninstall"], real_env, cwd=project)
    assert "no hooks, plugin or MCP server of Continuity found" in again.stdout


def test_uninstall_purge_deletes_the_local_state_unless_hooks_wait_in_the_spool(
    real_env: dict[str, str], real_service: RealService, project: Path, home: Path
) -> None:
    real_service.stop()
    run_hook(["session-end"], hook_body(project, "s-waiting"), real_env)
    real_service.restart()

    refused = run_cli(["uninstall", "--purge"], real_env, cwd=project)
    assert refused.returncode == 1 and "1 hook(s) in the spool were never delivered" in refused.stderr
    assert run_cli(["flush"], real_env).returncode == 0

    done = run_cli(["uninstall", "--purge"], real_env, cwd=project)

    assert done.returncode == 0, done.stderr
    assert not home.exists()
