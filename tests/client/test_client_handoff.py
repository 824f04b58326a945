"""``continuity handoff`` against the real service in-process: the git state gathered here, the
hand-off listed by ``continuity sessions`` until the next session's start takes it, first and once."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from continuity_client.agent import api
from tests.client.client_support import run_cli, run_hook

SESSION = "a1b2c3d4-0000-4000-8000-000000000001"


def git(project: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(project), *args], capture_output=True, text=True, check=True)
    return done.stdout.strip()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A repository on branch fix/refunds: one commit, a changed file and a new one not committed."""
    path = (tmp_path / "shop").resolve()
    path.mkdir()
    git(path, "init", "-q", "-b", "fix/refunds")
    git(path, "config", "user.email", "ana@example.com")
    git(path, "config", "user.name", "Ana")
    (path / "refunds.py").write_text("retry = 1\n")
    git(path, "add", "refunds.py")
    git(path, "commit", "-q", "-m", "start")
    (path / "refunds.py").write_text("retry = 3\n")
    (path / "notes.md").write_text("todo\n")
    return path


def start(env: dict[str, str], project: Path, session: str) -> str:
    body = {"session_id": session, "cwd": str(project), "source": "startup"}
    answer = run_hook(["session-start"], body, env).output or {}
    return str(answer.get("hookSpecificOutput", {}).get("additionalContext", ""))


def worked(env: dict[str, str], project: Path) -> None:
    start(env, project, SESSION)
    body = {"session_id": SESSION, "cwd": str(project), "prompt": "the retry count must never exceed 3"}
    run_hook(["user-prompt-submit"], body, env)


def test_handoff_sends_the_git_state_and_the_next_session_gets_it_first_once(
    real_env: dict[str, str], project: Path
) -> None:
    # Given a session that worked in the repository
    worked(real_env, project)
    # When the person hands off
    laptop = real_env | {"CONTINUITY_MACHINE": "ana-laptop"}
    done = run_cli(["handoff", "--note", "finish the retry"], laptop, cwd=project)
    assert done.returncode == 0, done.stderr
    assert "(branch fix/refunds, commit " in done.stdout, done.stdout
    assert "2 uncommitted path(s)): finish the retry" in done.stdout
    # Then `sessions` lists it open
    listed = run_cli(["sessions"], real_env, cwd=project)
    assert "open hand-offs of" in listed.stdout and "finish the retry" in listed.stdout
    # and the next session's start opens with it, marked, with the git state and the session's story
    block = start(real_env, project, "a1b2c3d4-0000-4000-8000-000000000002")
    assert block.startswith("## Hand-off from"), block[:200]
    assert ": finish the retry" in block.splitlines()[0]
    assert "on ana-laptop) handed its work to the next session" in block.splitlines()[1]
    assert f"- Git: branch `fix/refunds` at commit `{git(project, 'rev-parse', 'HEAD')[:12]}`" in block
    assert "`notes.md`" in block and "`refunds.py`" in block
    assert "the retry count must never exceed 3" in block
    # and only once
    assert "## Hand-off from" not in start(real_env, project, "a1b2c3d4-0000-4000-8000-000000000003")
    assert "open hand-offs" not in run_cli(["sessions"], real_env, cwd=project).stdout


def test_a_handoff_to_a_person_goes_to_the_session_of_that_user(
    real_env: dict[str, str], project: Path
) -> None:
    worked(real_env, project)
    assert run_cli(["handoff", "--to", "bob", "--no-git"], real_env, cwd=project).returncode == 0
    assert "## Hand-off from" not in start(real_env, project, "a1b2c3d4-0000-4000-8000-000000000004")
    bob = {**real_env, "CONTINUITY_USER": "bob"}
    assert start(bob, project, "a1b2c3d4-0000-4000-8000-000000000005").startswith("## Hand-off from")


def test_handoff_of_a_session_the_service_never_saw_says_so(real_env: dict[str, str], project: Path) -> None:
    done = run_cli(["handoff", "--session", "never-seen", "--no-git"], real_env, cwd=project)
    assert done.returncode == 1
    assert done.stderr.strip() == "continuity handoff: the service has not seen session 'never-seen' yet"


def test_git_state_lists_paths_only_a_rename_by_its_new_name_and_counts_the_rest() -> None:
    answers = {
        "rev-parse HEAD": "0123456789abcdef\n",
        "rev-parse --abbrev-ref HEAD": "main\n",
        "status --porcelain --untracked-files=all": ' M a.py\nR  old.py -> new.py\n?? "sp ace.md"\n',
    }
    state = api.git_state("/repo", lambda args: answers.get(" ".join(args)))
    assert state == {
        "commit": "0123456789abcdef",
        "branch": "main",
        "uncommitted": ["a.py", "new.py", "sp ace.md"],
        "uncommitted_total": 3,
    }


def test_git_state_outside_a_repository_or_on_a_detached_head() -> None:
    assert api.git_state("/nowhere", lambda args: None) == {}
    detached = {"rev-parse HEAD": "abcd1234", "rev-parse --abbrev-ref HEAD": "HEAD"}
    assert "branch" not in api.git_state("/repo", lambda args: detached.get(" ".join(args)))


def test_the_mcp_tool_hands_off_the_current_session(real_env: dict[str, str], project: Path) -> None:
    pytest.importorskip("mcp")
    from tests.client.test_client_mcp import call_tools, text_of

    # Given the agent's session in the project (the hooks noted it as current)
    worked(real_env, project)
    agent_env = {**real_env, "CLAUDE_PROJECT_DIR": str(project)}
    # When the agent calls `handoff`
    _, (result,) = call_tools(agent_env, [("handoff", {"note": "over to codex"})])
    # Then the hand-off is written with the repository's state, and the next session gets it
    assert text_of(result).startswith("Handed off: hand-off from session"), text_of(result)
    assert "(branch fix/refunds, commit" in text_of(result)
    assert (
        ": over to codex" in start(real_env, project, "a1b2c3d4-0000-4000-8000-000000000006").splitlines()[0]
    )
