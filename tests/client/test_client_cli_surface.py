"""What a person sees of the CLI around its commands: a closed pipe, the README's commands table,
what login says of a token, what uninstall leaves, and install hints that fit the installation."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from continuity_client.cli import USAGE
from continuity_client.hook import spool
from continuity_client.setup import doctor
from continuity_client.setup.hints import extra_hint
from tests.client.client_support import log_text, run_cli, run_hook, run_hook_cli
from tests.client.fake_continuity_service import FakeService
from tests.client.real_service import RealService
from tests.client.test_client_people_commands import SESSION, hook_body, lived

ROOT = Path(__file__).resolve().parents[2]
WHEEL = "/home/u/dist/continuity_client-0.1.0-py3-none-any.whl"


def help_commands() -> set[str]:
    """The first word of each command line of ``continuity --help``."""
    return {m.group(1) for m in re.finditer(r"^  ([a-z][a-z-]*)\b", USAGE, re.MULTILINE)}


def readme_table_commands() -> set[tuple[str, str | None]]:
    """(command, sub-command or None) named in the README's "What a person runs" table: a row
    `continuity token create …` / `list` names token's sub-commands, `continuity status` / `preview`
    two commands."""
    text = (ROOT / "README.md").read_text()
    table = text.split("What a person runs", 1)[1].split("\n\n", 2)[1]
    named: set[tuple[str, str | None]] = set()
    for row in table.splitlines()[2:]:
        cells = [c.removeprefix("continuity ").split() for c in re.findall(r"`([^`]+)`", row.split(" | ")[0])]
        command = cells[0][0]
        has_subcommands = len(cells[0]) > 1 and cells[0][1].isalpha() and cells[0][1].islower()
        for cell in cells:
            if has_subcommands:
                named.add((command, cell[1] if cell is cells[0] else cell[0]))
            else:
                named.add((cell[0], None))
    return named


def help_of(command: str) -> str:
    """The lines of ``continuity --help`` about ``command``."""
    return USAGE.split(f"\n  {command}", 1)[1].split("\n  ", 1)[0].split("\n\n", 1)[0]


def test_the_readmes_commands_table_names_only_commands_that_exist() -> None:
    for command, sub in readme_table_commands():
        assert command in help_commands(), command
        assert sub is None or re.search(rf"\b{sub}\b", help_of(command)), (command, sub)


def test_every_command_a_person_runs_is_in_the_readme() -> None:
    readme = (ROOT / "README.md").read_text()
    mentioned = {c for c, _ in readme_table_commands()} | set(
        re.findall(r"continuity ([a-z][a-z-]*)", readme)
    )
    by_harness = {"hook", "mcp", "version"}  # run by the harness / the agent, or trivial
    assert help_commands() - by_harness - mentioned == set()


def test_a_closed_pipe_ends_a_command_without_a_traceback(tmp_path: Path) -> None:
    # Given a reader that went away before the command wrote (`continuity --help | head -0`)
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "continuity_client", "--help"],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=30,
        )
    finally:
        os.close(write_end)
    # Then it ends quietly
    assert done.returncode == 0
    assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr


def test_uninstall_removes_the_folders_install_created_and_keeps_the_users(
    tmp_path: Path, client_env: dict[str, str]
) -> None:
    # Given a project with a .gemini folder of the user's, and an empty .codex folder of the user's
    project = tmp_path / "shop"
    (project / ".gemini").mkdir(parents=True)
    (project / ".gemini" / "notes.md").write_text("mine")
    (project / ".codex").mkdir()
    for name in ("claude-code", "gemini", "codex"):
        assert run_cli(["install", name, "--scope", "project"], client_env, project).returncode == 0
    assert (project / ".claude" / "settings.json").exists()
    # When the user uninstalls
    done = run_cli(["uninstall", "--scope", "project"], client_env, project)
    # Then what install created is gone, folders included, and what was the user's stays
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in project.iterdir()) == [".codex", ".gemini"]
    assert [p.name for p in (project / ".gemini").iterdir()] == ["notes.md"]
    assert list((project / ".codex").iterdir()) == []


def test_the_mcp_hint_names_what_the_client_was_installed_from() -> None:
    from_wheel = {"url": f"file://{WHEEL}", "archive_info": {}}
    assert extra_hint("mcp", from_wheel, "/usr").endswith(f"-m pip install '{WHEEL}[mcp]'")
    assert extra_hint("mcp", from_wheel, "/home/u/.local/share/pipx/venvs/continuity-client") == (
        f"pipx install --force '{WHEEL}[mcp]'"
    )
    source = {"url": "file:///work/app/client", "dir_info": {"editable": True}}
    assert extra_hint("mcp", source, "/work/app/.venv").endswith("-m pip install -e '/work/app/client[mcp]'")
    assert extra_hint("mcp", {}, "/usr").endswith("-m pip install 'continuity-client[mcp]'")


def test_login_says_what_the_token_may_do(
    tmp_path: Path, real_env: dict[str, str], real_service: RealService
) -> None:
    # Given a token with both scopes, and one that may only read
    both = real_service.create_token("alice")["token"]
    read_only = real_service.create_token("alice", "read")["token"]
    env = {k: v for k, v in real_env.items() if k not in ("CONTINUITY_URL", "CONTINUITY_TOKEN")}
    said = []
    for token in (both, read_only):
        done = run_cli(["login", "--url", real_service.url, "--token", token], env, tmp_path)
        assert done.returncode == 0, done.stderr
        said.append(done.stdout)
    # Then login names the scopes it checked, never an HTTP status
    assert "may post hooks (scope hooks) and may read what the service holds (scope read)" in said[0]
    assert "lacks the hooks scope" in said[1] and "may read" in said[1]
    assert not any(re.search(r"\(\d{3}\)", text) for text in said)


def doctor_output(env: dict[str, str]) -> tuple[int, str]:
    out = io.StringIO()
    code = doctor.main([], env=env, out=out)
    return code, out.getvalue()


def test_a_hook_whose_stdin_is_not_json_says_so_in_the_log_and_in_doctor(
    service: FakeService, client_env: dict[str, str], home: Path
) -> None:
    # Given a harness that sends a cut JSON document, and one that sends plain text
    for stdin in ('{"session_id": "s1", "prompt": "fix the', "hello"):
        done = run_hook_cli(["user-prompt-submit"], stdin, client_env)
        # Then the hook does not disturb the agent, posts nothing, and the log says what came
        assert done.code == 0 and done.stderr == ""
    assert service.requests == []
    log = log_text(home)
    assert log.count("stdin is not JSON") == 2
    assert "session_id" not in log.split("stdin is not JSON", 1)[0] and "SystemError" not in log
    # And doctor fails naming it
    code, text = doctor_output(client_env)
    assert code == 1
    assert "2 hook(s) in the last 7 days got stdin that is not a JSON object" in text


def test_hooks_without_a_login_are_counted_by_doctor_and_told_once_by_the_next_command(
    tmp_path: Path, client_env: dict[str, str], home: Path
) -> None:
    # Given hooks fired after `continuity logout` (no URL, no token)
    env = {k: v for k, v in client_env.items() if k not in ("CONTINUITY_URL", "CONTINUITY_TOKEN")}
    for _ in range(2):
        run_hook(["user-prompt-submit"], {"session_id": "s1", "cwd": str(tmp_path), "prompt": "x"}, env)
    # Then doctor counts them
    _, text = doctor_output(env)
    assert "2 hook(s) in the last 7 days found no login and were dropped" in text
    # And the next command a person runs says so once
    first, second = (run_cli(["status"], env, tmp_path) for _ in range(2))
    assert "2 hook(s) found no login" in first.stderr and "`continuity login" in first.stderr
    assert "found no login" not in second.stderr


def test_status_shows_pending_prompts_the_last_checkpoint_the_spool_and_whether_hooks_arrive(
    real_env: dict[str, str], tmp_path: Path, home: Path
) -> None:
    # Given a session of 10 prompts, a decision, an explicit checkpoint and one prompt since
    project = tmp_path / "shop"
    project.mkdir()
    transcript = lived(real_env, project, tmp_path, prompts=10)
    say = "We decided to keep amounts in Decimal."
    run_hook(["user-prompt-submit"], hook_body(project, SESSION, transcript, prompt=say), real_env)
    assert run_cli(["checkpoint"], real_env, project).returncode == 0
    run_hook(["user-prompt-submit"], hook_body(project, SESSION, transcript, prompt="now refunds"), real_env)
    # When the user asks for the status
    shown = run_cli(["status"], real_env, project)
    # Then it says what waits for the next checkpoint, that the hooks arrive, and which decisions
    assert shown.returncode == 0, shown.stderr
    out = shown.stdout
    assert "latest explicit at" in out
    assert "prompts since the latest checkpoint: 1 on the service (12 in all)" in out
    # (the fixture transcript's "Use Decimal for amounts" and the prompt's; none in the ledger)
    assert "decisions in the session's rolling digest: 2 (what the recovery block lists" in out
    assert "spooled hooks waiting: none" in out
    assert "this machine's hooks reach the service: yes" in out
    assert "decisions in the session's rolling digest:" in out
    assert "decision ledger: 0 decision(s) (the project's, recorded by agents with session_digest" in out
    # And with a hook stuck in the spool, it says they do not all arrive
    spool.append(str(home), SESSION, {"event": "stop", "key": "k", "at": time.time(), "body": {}}, 10**6)
    out = run_cli(["status"], real_env, project).stdout
    assert "this machine's hooks reach the service: partly, 1 hook(s) waiting in the spool" in out


def test_the_service_tells_its_nudge_point_and_the_client_keeps_it(
    real_env: dict[str, str], tmp_path: Path, home: Path
) -> None:
    # Given the service's defaults (65 % of a 200,000-token window)
    run_hook(["session-start"], {"session_id": "s1", "cwd": str(tmp_path), "source": "startup"}, real_env)
    # Then the client keeps the point the answer told
    assert (home / "context" / "nudge-tokens").read_text() == "130000"
