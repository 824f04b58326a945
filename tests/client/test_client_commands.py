"""``login``, ``doctor``, ``flush``, ``local`` and the hook path's lean imports."""

from __future__ import annotations

import io
import json
import stat
import subprocess
import sys
import types
from pathlib import Path

import pytest

from continuity_client import cli
from continuity_client.setup import config, doctor
from tests.client.client_support import eventually, plain, run_hook, spooled
from tests.client.fake_continuity_service import FakeService


def cli_run(args: list[str], env: dict[str, str], stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "continuity_client", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


def without_service_env(env: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if k not in ("CONTINUITY_URL", "CONTINUITY_TOKEN")}


def test_login_writes_a_private_config_file_that_hooks_use(
    service: FakeService, client_env: dict[str, str], home: Path
) -> None:
    env = without_service_env(client_env)
    done = cli_run(["login", "--url", service.url + "/", "--token", "good-token"], env)

    assert done.returncode == 0, done.stderr
    path = home / "config.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text()) == {"url": service.url, "token": "good-token"}
    run_hook(["session-end"], {"session_id": "l-1"}, env)
    assert [plain(r.key) for r in service.requests] == ["l-1:session-end:1"]


def test_login_reads_the_token_from_stdin_when_not_given(client_env: dict[str, str], home: Path) -> None:
    env = without_service_env(client_env)
    done = cli_run(["login", "--url", "https://api.example.com", "--no-check"], env, "s3cret\n")
    assert done.returncode == 0, done.stderr
    assert json.loads((home / "config.json").read_text())["token"] == "s3cret"


def test_environment_overrides_the_config_file(tmp_path: Path) -> None:
    env = {"CONTINUITY_HOME": str(tmp_path)}
    config.write_login(env, "https://file.example.com", "file-token")
    overrides = {"CONTINUITY_URL": "https://env.example.com", "CONTINUITY_HOOK_TIMEOUT_S": "3"}
    settings = config.load({**env, **overrides})
    assert (settings.url, settings.token) == ("https://env.example.com", "file-token")
    assert "CONTINUITY_URL" in settings.sources["url"]
    assert settings.timeout_for("session-start") == 3.0


def test_timeouts_default_short_and_can_be_set_per_event(tmp_path: Path) -> None:
    settings = config.load({"CONTINUITY_HOME": str(tmp_path), "CONTINUITY_HOOK_TIMEOUT_S_SESSION_START": "6"})
    assert settings.timeout_for("user-prompt-submit") == 2.0
    assert settings.timeout_for("pre-compaction") == 4.0
    assert settings.timeout_for("session-start") == 6.0


def doctor_output(env: dict[str, str]) -> tuple[int, str]:
    out = io.StringIO()
    code = doctor.main([], env=env, out=out)
    return code, out.getvalue()


def test_doctor_is_happy_when_everything_is_in_place(
    service: FakeService, client_env: dict[str, str], home: Path
) -> None:
    cli_run(["install", "claude-code"], client_env)
    code, text = doctor_output(client_env)
    assert code == 0, text
    assert "all good" in text
    assert "token accepted" in text
    assert "clock within" in text


def test_doctor_says_what_to_fix(service: FakeService, client_env: dict[str, str], home: Path) -> None:
    # Given a rejected token, no hooks, a spooled hook and a config file others can read
    env = {**client_env, "CONTINUITY_TOKEN": "wrong"}
    service.stop()
    run_hook(["user-prompt-submit"], {"session_id": "d", "prompt": "x"}, env)
    service.restart()
    config.write_login(env, service.url, "wrong")
    (home / "config.json").chmod(0o644)

    code, text = doctor_output(env)

    assert code == 1
    assert "the service refused the token (401)" in text
    assert "continuity install claude-code" in text
    assert "1 hook(s) of 1 session(s) waiting" in text
    assert "chmod 600" in text


def test_doctor_without_configuration_points_to_login(client_env: dict[str, str]) -> None:
    code, text = doctor_output(without_service_env(client_env))
    assert code == 1
    assert "continuity login --url URL --token TOKEN" in text


def test_flush_replays_the_spool_now(service: FakeService, client_env: dict[str, str], home: Path) -> None:
    service.stop()
    run_hook(["user-prompt-submit"], {"session_id": "f", "prompt": "x"}, client_env)
    run_hook(["session-end"], {"session_id": "f"}, client_env)
    service.restart()

    done = cli_run(["flush"], client_env)

    assert done.returncode == 0, done.stdout + done.stderr
    assert "replayed 2 hook(s); 0 left" in done.stdout
    assert [plain(r.key) for r in service.requests] == ["f:user-prompt-submit:1", "f:session-end:2"]
    assert spooled(home) == []


def test_local_dispatches_to_the_local_stack(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[list[str]] = []

    def fake_main(argv: list[str]) -> int:
        calls.append(argv)
        return 0

    module = types.ModuleType("infra.local.main")
    module.main = fake_main  # type: ignore[attr-defined]  # a stand-in module, built here
    monkeypatch.setitem(sys.modules, "infra.local.main", module)

    assert cli.main(["local", "--port", "8787"]) == 0
    assert calls == [["--port", "8787"]]


def test_local_without_the_development_install_says_so(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "infra.local.main", None)  # import fails
    assert cli.main(["local"]) == 1
    assert capsys.readouterr().err.strip() == (
        "continuity local needs the development install: run `make setup` in the repository"
    )


def test_the_hook_path_imports_nothing_heavy(service: FakeService, client_env: dict[str, str]) -> None:
    # Given what a bare interpreter has loaded, and what the hook loads on top
    probe = "import sys; print(' '.join(sorted(sys.modules)))"
    bare = set(subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True).stdout.split())
    script = (
        "import sys; from continuity_client.cli import main; main(['hook', 'user-prompt-submit']);"
        "sys.stderr.write(' '.join(sorted(sys.modules)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        input='{"session_id": "imp", "prompt": "x"}',
        capture_output=True,
        text=True,
        env=client_env,
    )
    loaded = set(done.stderr.split()) - bare

    # Then none of the expensive modules is among them
    heavy = {
        "argparse",
        "urllib.request",
        "http.client",
        "email",
        "ssl",
        "typing",
        "dataclasses",
        "pathlib",
        "logging",
        "sqlite3",
        "subprocess",
        "tempfile",
        "shutil",
        "inspect",
        "contextlib",
        "threading",
        "json",  # its decoder imports re, enum, functools: ~9 ms (hook/fastjson.py)
        "re",
        "socket",  # a prompt handed to the background never posts itself
    }
    assert loaded & heavy == set()
    assert eventually(lambda: [plain(r.key) for r in service.requests]) == ["imp:user-prompt-submit:1"]
