"""The client and the real service together: one repository on two machines is one project, and work
stored under a folder's path (what the client sends today) is still recovered once the folder's
project is its repository."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.client.client_support import run_cli, run_hook
from tests.client.real_service import RealService
from tests.client.test_client_project_id import git, repository


def prompts(env: dict[str, str], folder: Path, session: str, count: int = 10) -> None:
    run_hook(["session-start"], {"session_id": session, "cwd": str(folder), "source": "startup"}, env)
    for n in range(1, count + 1):
        body = {"session_id": session, "cwd": str(folder), "prompt": f"step {n}: refund order {n} twice"}
        run_hook(["user-prompt-submit"], body, env)


def started(env: dict[str, str], folder: Path, session: str, harness: str = "claude-code") -> str:
    body = {"session_id": session, "cwd": str(folder), "source": "startup"}
    output = run_hook(["session-start", "--harness", harness], body, env).output
    return str(((output or {}).get("hookSpecificOutput") or {}).get("additionalContext") or "")


def test_a_second_clone_on_another_machine_recovers_the_work_marked_with_where_it_was_done(
    tmp_path: Path, real_env: dict[str, str], real_service: RealService
) -> None:
    # Given one bare repository cloned on two "machines" (two homes, two names, two paths)
    bare = tmp_path / "server" / "shop.git"
    bare.mkdir(parents=True)
    git("init", "-q", "--bare", "-b", "main", cwd=bare)
    laptop, desktop = tmp_path / "laptop" / "shop", tmp_path / "desktop" / "work" / "shop2"
    for clone in (laptop, desktop):
        git("clone", "-q", str(bare), str(clone), cwd=tmp_path)
    env_a = real_env | {"CONTINUITY_HOME": str(tmp_path / "home-a"), "CONTINUITY_MACHINE": "ana-laptop"}
    env_b = real_env | {"CONTINUITY_HOME": str(tmp_path / "home-b"), "CONTINUITY_MACHINE": "ana-desktop"}

    # When Claude Code works on the laptop, then Codex starts on the desktop
    prompts(env_a, laptop, "laptop-session")
    real_service.deliver_flushes()
    context = started(env_b, desktop, "desktop-session", harness="codex")

    # Then the desktop's session gets the laptop's work, saying where it came from
    assert "session laptop-session" in context
    assert "from ana-laptop, branch `main`, Claude Code" in context
    assert "refund order 10 twice" in context


def test_work_stored_under_the_folders_path_is_recovered_once_the_project_is_the_repository(
    tmp_path: Path, real_env: dict[str, str], real_service: RealService
) -> None:
    # Given a session stored by the client keyed by the folder's real path (a folder that is no
    # repository is keyed as every folder is today)
    folder = (tmp_path / "shop").resolve()
    folder.mkdir()
    prompts(real_env, folder, "path-keyed-session")
    real_service.deliver_flushes()

    # When the folder is a clone of a remote (its project is now github.com/acme/shop) and a session starts
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=folder, check=True)
    git("remote", "add", "origin", "git@github.com:acme/shop.git", cwd=folder)
    shown = run_cli(["preview", "--json"], real_env, cwd=folder)
    context = started(real_env, folder, "after-upgrade")

    # Then the path-keyed work is recovered, and `continuity preview` says so beforehand
    assert "session path-keyed-session" in context
    assert "refund order 10 twice" in context
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["session_key"] == "path-keyed-session"


def test_another_agents_token_gets_nothing_of_the_project(
    tmp_path: Path, real_env: dict[str, str], real_service: RealService
) -> None:
    # Given work in a repository
    root = repository(tmp_path / "shop", ("origin", "https://github.com/acme/shop.git"))
    prompts(real_env, root, "alice-session")
    real_service.deliver_flushes()

    # When another agent's token starts a session in a clone of the same remote
    other = repository(tmp_path / "elsewhere" / "shop", ("origin", "git@github.com:acme/shop"))
    intruder = real_env | {
        "CONTINUITY_TOKEN": real_service.create_token("mallory")["token"],
        "CONTINUITY_HOME": str(tmp_path / "home-m"),
    }
    context = started(intruder, other, "mallory-session")
    own = started(real_env | {"CONTINUITY_HOME": str(tmp_path / "home-a2")}, other, "alice-2")

    # Then it recovers nothing of alice's project (which alice's own token there does)
    assert context == ""
    assert "session alice-session" in own


def test_project_takes_the_id_from_anywhere_and_the_folder_as_before(
    tmp_path: Path, real_env: dict[str, str], real_service: RealService
) -> None:
    # Given a session that worked in a clone of acme/shop on branch fix/refunds, one commit in
    clone = repository(
        tmp_path / "src" / "shop", ("origin", "https://github.com/acme/shop.git"), branch="fix/refunds"
    )
    (clone / "refunds.py").write_text("retry = 3\n")
    git("add", "refunds.py", cwd=clone)
    git("commit", "-q", "-m", "start", cwd=clone)
    prompts(real_env, clone, "laptop-session", count=2)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    # When the person hands off from another folder, naming the project by its id
    handed = run_cli(
        ["handoff", "--project", "github.com/acme/shop", "--note", "finish"], real_env, cwd=elsewhere
    )
    # and another machine (no folder of the project there) asks about the id, and this one about the folder
    other_machine = real_env | {"CONTINUITY_HOME": str(tmp_path / "home-b")}
    by_id = run_cli(["status", "--json", "--project", "github.com/acme/shop"], other_machine, cwd=elsewhere)
    by_folder = run_cli(["status", "--json", "--project", str(clone)], real_env, cwd=elsewhere)

    # Then the hand-off is the clone's session's, with its branch and commit
    assert handed.returncode == 0, handed.stderr
    assert "(branch fix/refunds, commit " in handed.stdout and "finish" in handed.stdout, handed.stdout
    # and both name the same project and see its work
    for done in (by_id, by_folder):
        assert done.returncode == 0, done.stderr
        report = json.loads(done.stdout)
        assert report["project"] == "github.com/acme/shop"
        assert report["latest_project_checkpoint"] is not None
    assert json.loads(by_folder.stdout)["session"] == "laptop-session"
