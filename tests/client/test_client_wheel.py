"""``make client`` builds the client's wheel, and a user installs it without the repository: the wheel
holds the client alone, and its ``continuity`` entry point runs from a fresh environment."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from continuity_client import __version__

REPOSITORY = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run(
        ["make", "-s", "client", f"CLIENT_DIST={out}"],
        cwd=REPOSITORY,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    [built] = out.glob("continuity_client-*.whl")
    return built


def test_the_wheel_holds_the_client_and_nothing_of_the_service(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()

    assert wheel.name == f"continuity_client-{__version__}-py3-none-any.whl"
    assert "continuity_client/cli.py" in names and "continuity_client/agent/forget.py" in names
    assert all(name.startswith(("continuity_client/", "continuity_client-")) for name in names)
    entry_points = next(name for name in names if name.endswith("entry_points.txt"))
    assert "continuity = continuity_client.cli:main" in zipfile.ZipFile(wheel).read(entry_points).decode()


def test_the_installed_entry_point_runs_from_a_fresh_environment(wheel: Path, tmp_path: Path) -> None:
    # Given a new virtual environment with nothing but the wheel (as `pipx install <wheel>` makes)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    install = [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-index"]
    subprocess.run([*install, "--no-deps", str(wheel)], check=True, timeout=300)

    # When the user runs the command it installed
    version = subprocess.run([str(venv / "bin" / "continuity"), "version"], capture_output=True, text=True)
    usage = subprocess.run([str(venv / "bin" / "continuity"), "--help"], capture_output=True, text=True)

    # Then it is this client, with every command
    assert version.returncode == 0 and version.stdout.strip() == f"continuity-client {__version__}"
    for command in ("remember", "search", "sessions", "transcript", "ledger", "preview", "forget", "logout"):
        assert f"  {command}" in usage.stdout
