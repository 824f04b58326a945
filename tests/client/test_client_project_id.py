"""The project a session belongs to is its repository (hook/project_id.py): every clone, worktree and
machine of one remote is one project; credentials in a remote never leave the machine."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from continuity_client.agent import api
from continuity_client.hook import current, harness, machine, project_id
from tests.client.client_support import run_hook
from tests.client.fake_continuity_service import FakeService


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=_git_env())


def _git_env() -> dict[str, str]:
    return {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }


def repository(folder: Path, *remotes: tuple[str, str], branch: str = "main") -> Path:
    folder.mkdir(parents=True)
    git("init", "-q", "-b", branch, cwd=folder)
    for name, url in remotes:
        git("remote", "add", name, url, cwd=folder)
    return folder


@pytest.mark.parametrize(
    "url",
    [
        "https://github.com/acme/shop",
        "https://github.com/acme/shop.git",
        "https://ana:s3cr3t-pass@github.com/acme/shop.git",
        "https://ghp_abcdefghijklmnopqrstuvwxyz0123456789@github.com/acme/shop",
        "https://github.com:443/acme/shop.git/",
        "http://GitHub.com/Acme/Shop.GIT",
        "ssh://git@github.com/acme/shop.git",
        "ssh://git@github.com:22/acme/shop.git",
        "git@github.com:acme/shop.git",
        "git@GITHUB.COM:Acme/Shop",
        "github.com:acme/shop.git",
        "git://github.com/acme/shop.git",
    ],
)
def test_every_form_of_one_remote_is_one_project_id_without_credentials(url: str, tmp_path: Path) -> None:
    # Given a repository whose origin is written in one of the forms git accepts
    root = repository(tmp_path / "shop", ("origin", url))

    # When the project is derived
    identity = project_id.derive(str(root), {})

    # Then it is the host and path, lower case, with no scheme, user, secret, port or .git
    assert identity.id == "github.com/acme/shop"
    assert identity.source == "remote"
    assert "s3cr3t" not in identity.id and "ghp_" not in identity.id


def test_origin_wins_over_a_remote_listed_before_it(tmp_path: Path) -> None:
    root = repository(
        tmp_path / "r", ("upstream", "git@github.com:other/fork.git"), ("origin", "git@x.org:a/b")
    )
    assert project_id.derive(str(root), {}).id == "x.org/a/b"


def test_without_origin_the_first_remote_is_the_project(tmp_path: Path) -> None:
    root = repository(tmp_path / "r", ("mirror", "https://gitlab.com/Team/Sub/App.git"), ("zz", "git@h:z/z"))
    assert project_id.derive(str(root), {}).id == "gitlab.com/team/sub/app"


def test_two_clones_of_one_bare_repository_at_different_paths_are_one_project(tmp_path: Path) -> None:
    # Given a bare repository cloned twice, as on two machines
    bare = tmp_path / "server" / "shop.git"
    bare.mkdir(parents=True)
    git("init", "-q", "--bare", cwd=bare)
    git("clone", "-q", str(bare), str(tmp_path / "laptop" / "shop"), cwd=tmp_path)
    git("clone", "-q", str(bare), str(tmp_path / "desktop" / "code" / "shop-copy"), cwd=tmp_path)

    # Then both derive the same id
    first = project_id.derive(str(tmp_path / "laptop" / "shop"), {})
    second = project_id.derive(str(tmp_path / "desktop" / "code" / "shop-copy"), {})
    assert first.id == second.id == str(bare.parent / "shop").lower()


def test_a_repository_without_a_remote_is_its_real_path(tmp_path: Path) -> None:
    root = repository(tmp_path / "Local")
    (root / "src").mkdir()
    identity = project_id.derive(str(root / "src"), {})
    assert (identity.id, identity.source) == (str(root), "path")


def test_a_folder_outside_any_repository_is_its_real_path(tmp_path: Path) -> None:
    assert project_id.derive(str(tmp_path), {}).id == str(tmp_path)


def test_a_worktree_reads_the_main_repositorys_remote_and_its_own_branch(tmp_path: Path) -> None:
    # Given a repository with a commit and a worktree on another branch
    root = repository(tmp_path / "shop", ("origin", "git@github.com:acme/shop.git"))
    git("commit", "-q", "--allow-empty", "-m", "first", cwd=root)
    git("worktree", "add", "-q", "-b", "fix/refunds", str(tmp_path / "shop-refunds"), cwd=root)

    # When each derives its project
    main = project_id.derive(str(root), {})
    worktree = project_id.derive(str(tmp_path / "shop-refunds"), {})

    # Then they share the project (the worktree's .git is a file) and each knows its branch
    assert main.id == worktree.id == "github.com/acme/shop"
    assert (main.branch, worktree.branch) == ("main", "fix/refunds")


def test_a_detached_head_has_no_branch(tmp_path: Path) -> None:
    root = repository(tmp_path / "r", ("origin", "git@h:a/b"))
    git("commit", "-q", "--allow-empty", "-m", "first", cwd=root)
    git("checkout", "-q", "--detach", cwd=root)
    assert project_id.derive(str(root), {}).branch is None


def test_a_sub_folder_belongs_to_the_repositorys_project_unless_it_says_otherwise(tmp_path: Path) -> None:
    # Given a monorepo with two packages, one of them marked as a project of its own
    root = repository(tmp_path / "mono", ("origin", "https://github.com/acme/mono.git"))
    (root / "packages" / "api" / "src").mkdir(parents=True)
    (root / "packages" / "web").mkdir(parents=True)
    (root / "packages" / "api" / project_id.PROJECT_FILE).write_text("")

    # Then the marked package (and any folder in it) is "<repository>/<path>", the other the repository
    assert (
        project_id.derive(str(root / "packages" / "api" / "src"), {}).id
        == "github.com/acme/mono/packages/api"
    )
    assert project_id.derive(str(root / "packages" / "web"), {}).id == "github.com/acme/mono"


def test_a_committed_project_file_names_the_project_in_every_clone(tmp_path: Path) -> None:
    # Given a repository whose root file holds an id, and a package naming its own
    root = repository(tmp_path / "shop", ("origin", "git@github.com:acme/shop.git"))
    (root / project_id.PROJECT_FILE).write_text("acme-shop\n")
    (root / "billing").mkdir()
    (root / "billing" / project_id.PROJECT_FILE).write_text("  acme-billing  \n")
    (root / "web").mkdir()
    (root / "web" / project_id.PROJECT_FILE).write_text("")

    assert project_id.derive(str(root), {}).id == "acme-shop"
    assert project_id.derive(str(root / "billing"), {}).id == "acme-billing"
    assert project_id.derive(str(root / "web"), {}).id == "acme-shop/web"


def test_the_environment_names_the_project_above_everything(tmp_path: Path) -> None:
    root = repository(tmp_path / "shop", ("origin", "git@github.com:acme/shop.git"))
    (root / project_id.PROJECT_FILE).write_text("from-file")
    assert project_id.derive(str(root), {project_id.PROJECT_ENV: " shop-x "}).id == "shop-x"


def test_an_unreadable_project_file_is_no_id(tmp_path: Path) -> None:
    (tmp_path / project_id.PROJECT_FILE).write_text("x" * (project_id.MAX_ID_CHARS + 1))
    assert project_id.derive(str(tmp_path), {}).id == str(tmp_path)


def test_the_hook_sends_the_id_the_path_the_branch_and_the_machine_but_no_credentials(
    tmp_path: Path, service: FakeService, client_env: dict[str, str]
) -> None:
    # Given a clone whose remote holds a password, on a machine named by the user
    root = repository(tmp_path / "shop", ("origin", "https://ana:hunter2-secret@github.com/acme/shop.git"))
    env = client_env | {"CONTINUITY_MACHINE": "ana-laptop", "CONTINUITY_USER": "ana"}

    # When a hook runs there
    run_hook(["session-start"], {"session_id": "s1", "cwd": str(root), "source": "startup"}, env)

    # Then the service gets the repository's id, the old path key, the branch and who/where it runs
    body = service.requests[0].body
    assert body["project_normalized"] == "github.com/acme/shop"
    assert body["project_path"] == str(root)
    assert body["branch"] == "main"
    assert body["machine_name"] == "ana-laptop" and body["user"] == "ana"
    assert len(body["machine_id"]) == 32
    assert "hunter2" not in str(body)


def test_the_machine_id_is_stable_and_says_nothing_about_the_machine(tmp_path: Path) -> None:
    first = machine.machine_id(str(tmp_path))
    assert first is not None and first == machine.machine_id(str(tmp_path))
    assert os.uname().nodename.lower() not in first


def test_the_machine_name_comes_from_the_environment_then_the_config_then_the_host() -> None:
    assert machine.machine_name({"CONTINUITY_MACHINE": "box"}, {"machine": "cfg"}) == "box"
    assert machine.machine_name({}, {"machine": "cfg"}) == "cfg"
    assert machine.machine_name({}, {}) == os.uname().nodename.split(".")[0][: machine.MAX_NAME_CHARS]


def test_the_derivation_costs_well_under_a_millisecond_on_the_hook_path(tmp_path: Path) -> None:
    # Given a worktree deep inside a repository (the longest walk up)
    root = repository(tmp_path / "shop", ("origin", "git@github.com:acme/shop.git"))
    deep = root / "a" / "b" / "c" / "d"
    deep.mkdir(parents=True)

    # When it is derived many times
    started = time.perf_counter()
    for _ in range(200):
        harness.build_body({"cwd": str(deep)}, "claude-code", {})
    per_call = (time.perf_counter() - started) / 200

    # Then one derivation is far below the hook's budget (no git subprocess)
    assert per_call < 0.002


def test_continuity_config_names_the_machine_and_its_user_for_later_hooks(
    tmp_path: Path, service: FakeService, client_env: dict[str, str]
) -> None:
    # Given the user names this machine and themselves
    from tests.client.client_support import run_cli

    named = run_cli(["config", "machine", "ana-desktop"], client_env)
    person = run_cli(["config", "user", "ana"], client_env)
    shown = run_cli(["config", "machine"], client_env)

    # When a hook runs afterwards
    run_hook(["session-start"], {"session_id": "s2", "cwd": str(tmp_path), "source": "startup"}, client_env)

    # Then it carries both names
    assert named.returncode == person.returncode == 0, named.stderr + person.stderr
    assert shown.stdout.strip() == "ana-desktop"
    body = service.requests[0].body
    assert (body["machine_name"], body["user"]) == ("ana-desktop", "ana")


def test_project_names_a_directory_when_one_is_there_else_a_project_id(tmp_path: Path) -> None:
    # Given a clone of acme/shop whose hooks saw a session, on branch fix/refunds
    clone = repository(
        tmp_path / "src" / "shop", ("origin", "git@github.com:Acme/Shop.git"), branch="fix/refunds"
    )
    home = str(tmp_path / "continuity-home")
    current.record(home, str(clone.resolve()), "s-laptop", "codex", None)
    env: dict[str, str] = {}

    # When a command is given the folder, the id, or an id this machine never saw
    by_folder = api.Target.resolve(env, home, str(clone))
    by_id = api.Target.resolve(env, home, "github.com/acme/shop")
    unseen = api.Target.resolve(env, home, "github.com/acme/other")
    unseen_given = api.Target.resolve(env, home, "github.com/acme/other", "s-given")

    # Then the folder's id is derived as the hooks derive it, and the id finds that folder and its session
    assert (by_folder.project, by_folder.session) == ("github.com/acme/shop", "s-laptop")
    assert (by_id.project, by_id.folder, by_id.session) == (
        "github.com/acme/shop",
        str(clone.resolve()),
        "s-laptop",
    )
    assert (by_id.branch, by_id.harness) == ("fix/refunds", "codex")
    # and an id with no folder here stands for itself, its session only when one is given
    assert (unseen.project, unseen.folder, unseen.session) == (
        "github.com/acme/other",
        "github.com/acme/other",
        None,
    )
    assert unseen_given.session == "s-given"
