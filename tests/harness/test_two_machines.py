"""One repository on two machines, with the real CLIs: Claude Code works on the laptop, the person
runs ``continuity handoff --note …`` there, and Codex on the desktop (another HOME, another clone
of the same bare repository at another path, another machine name) gets the hand-off first in its
model request, once.

Then a third session, Claude Code on the laptop on another branch, is not handed the desktop's
work as its own (a session on the laptop's ``main`` would be: the control). Last, the dashboard's
projects page in Chromium shows the repository as one project, with both machines.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from continuity_client.hook.project_id import normalize_remote
from tests.e2e.chromium import CHROMIUM, chromium, sign_in
from tests.e2e.local_stack import LocalStackProcess
from tests.harness import clis
from tests.harness.claude_code import ClaudeSession, environment
from tests.harness.codex import Codex
from tests.harness.machine import Machine
from tests.harness.mock_model import MockModel
from tests.harness.script import CONSTRAINT, RECOVERY

pytestmark = [pytest.mark.harness, pytest.mark.e2e]

NOTE = "finish the zstd reader; the vendored folder stays untouched"
AFTER = "AFTER_HANDOFF: where were we?"
AGAIN = "AGAIN: anything new?"
HANDOFF = "## Hand-off from"
THIRD = "THIRD: where were we?"
ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / os.environ.get("CONTINUITY_SCREENSHOTS", "build/dashboard-screenshots")


def git(*args: str, cwd: Path) -> str:
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(cwd),
        "GIT_AUTHOR_NAME": "Ana",
        "GIT_AUTHOR_EMAIL": "ana@example.com",
        "GIT_COMMITTER_NAME": "Ana",
        "GIT_COMMITTER_EMAIL": "ana@example.com",
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def shared_repository(base: Path) -> Path:
    """A bare repository with one commit on ``main`` (the "server" both machines clone)."""
    seed = base / "seed"
    seed.mkdir(parents=True)
    git("init", "-q", "-b", "main", cwd=seed)
    (seed / "reader.py").write_text("def read(path):\n    return open(path).read()\n")
    git("add", "reader.py", cwd=seed)
    git("commit", "-q", "-m", "the reader", cwd=seed)
    bare = base / "server" / "shop.git"
    git("clone", "-q", "--bare", str(seed), str(bare), cwd=base)
    return bare


def machine(base: Path, name: str, bare: Path) -> Machine:
    """A machine named ``name`` whose project is a clone of ``bare`` (the project folder is empty)."""
    made = Machine(base)
    made.env["CONTINUITY_MACHINE"] = name
    # This checkout's client, whichever checkout the venv's editable install points at.
    made.env["PYTHONPATH"] = str(ROOT / "client")
    git("clone", "-q", str(bare), str(made.project), cwd=base)
    return made


def projects_page(
    stack: LocalStackProcess, project: str, shot: str | None = None
) -> tuple[list[str], list[str]]:
    """(every listed project, the cells of ``project``'s row) as the projects page shows them; with
    ``shot``, its screenshot (build/, or docs/dashboard/ with ``make screenshots``)."""
    if CHROMIUM is None:
        pytest.skip("no chromium binary for the projects page: apt-get install -y chromium")
    pytest.importorskip("playwright.sync_api", reason="playwright is in the dev extras")
    with chromium() as browser:
        page = browser.new_page()
        sign_in(page, stack, "#/projects")
        row = page.locator(f"tr[data-project='{project}']")
        row.wait_for()
        listed = page.locator("#projects tbody tr").evaluate_all("rows => rows.map(r => r.dataset.project)")
        if shot is not None:
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SHOTS / f"{shot}.png"), full_page=True)
        return listed, row.locator("td").all_inner_texts()


def test_a_handoff_from_claude_code_on_one_machine_reaches_codex_on_another_first_and_once(
    local_stack: LocalStackProcess, tmp_path: Path
) -> None:
    claude, codex = clis.ensure(clis.CLAUDE_CODE), clis.ensure(clis.CODEX)
    bare = shared_repository(tmp_path)
    laptop = machine(tmp_path / "laptop", "ana-laptop", bare)
    desktop = machine(tmp_path / "desktop" / "src", "ana-desktop", bare)
    assert laptop.project != desktop.project

    # Given Claude Code worked on the laptop and left a change uncommitted
    laptop.login(local_stack.url, local_stack.token)
    laptop.install("claude-code")
    with MockModel() as model:
        session = ClaudeSession(claude, laptop, environment(laptop, model.url))
        try:
            session.send(CONSTRAINT)
        finally:
            code = session.close()
    assert code == 0, session.stderr()
    (laptop.project / "reader.py").write_text("import zstd\n")
    laptop.wait_delivered()

    # When the person hands off there
    handed = laptop.continuity("handoff", "--note", NOTE)
    assert "(branch main, commit " in handed.stdout, handed.stdout
    # (the projects page counts it open, on the one machine that worked so far)
    project = normalize_remote(str(bare))
    assert project is not None
    _, cells = projects_page(local_stack, project)
    assert (cells[3], cells[5]) == ("ana-laptop", "1")

    # and Codex starts on the desktop, twice
    desktop.login(local_stack.url, local_stack.token)
    desktop.install("codex")
    with MockModel() as model:
        cli = Codex(codex, desktop, model.url)
        first, second = cli.exec(AFTER), cli.exec(AGAIN)
        assert [first.exit_code, second.exit_code] == [0, 0], second.stderr
        received, later = model.prompted("AFTER_HANDOFF"), model.prompted("AGAIN")

    # Then Codex's first request opens with the hand-off: the note, where it came from, the git state
    block = next(text for text in received.strings() if HANDOFF in text)
    assert f"{HANDOFF} " in block and NOTE in block
    assert "on ana-laptop" in block
    assert f"- Git: branch `main` at commit `{git('rev-parse', 'HEAD', cwd=laptop.project)[:12]}`" in block
    assert "`reader.py`" in block
    assert "never edit the vendored folder" in block  # the laptop session's own words
    # and the next session does not get it again
    assert not later.contains(HANDOFF)

    # When the desktop's work is checkpointed, and Claude Code starts on the laptop on another branch
    desktop.continuity("checkpoint")
    desktop_session = second.first("thread_id")
    same_branch = json.loads(laptop.continuity("preview", "--json").stdout)
    git("checkout", "-q", "-b", "docs/zstd", cwd=laptop.project)
    other_branch = json.loads(laptop.continuity("preview", "--json").stdout)
    with MockModel() as model:
        session = ClaudeSession(claude, laptop, environment(laptop, model.url))
        try:
            session.send(THIRD)
        finally:
            session.close()
        third = model.prompted("THIRD")

    # Then it starts without the desktop's work, which the laptop's main branch would have recovered
    assert same_branch.get("session_key") == desktop_session, same_branch
    assert other_branch.get("session_key") != desktop_session, other_branch
    assert not third.contains(RECOVERY) and not third.contains("AGAIN")

    # And the dashboard's projects page lists the repository once, not a project per clone, with
    # both machines, the two harnesses and no hand-off left open
    listed, cells = projects_page(local_stack, project, shot="projects-two-machines")
    assert listed.count(project) == 1
    assert not {str(laptop.project), str(desktop.project)} & set(listed), listed
    assert cells[0] == project  # the repository's id, not a clone's folder
    assert (cells[3], cells[4], cells[5]) == ("ana-desktop, ana-laptop", "claude-code, codex", "0")
