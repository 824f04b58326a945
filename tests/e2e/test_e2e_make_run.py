"""`make run` as a person runs it from a terminal: few lines before `ready`, a clean Ctrl-C.

Run with the virtualenv running the tests (the repository's `.venv` under `make test`); skipped
when that one is not up to date for `make`, so the test never starts a pip install.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.e2e.local_stack import free_port

ROOT = Path(__file__).resolve().parents[2]
MOST_LINES_BEFORE_READY = 15


def test_make_run_says_little_before_ready_and_stops_cleanly_on_ctrl_c(tmp_path: Path) -> None:
    venv = f"VENV={sys.prefix}"
    if subprocess.run(["make", "-q", venv, f"{sys.prefix}/.installed"], cwd=ROOT).returncode != 0:
        pytest.skip(
            f"{sys.prefix} is not set up for `make` (.installed missing or older than pyproject.toml)"
        )
    # Given `make run` in a terminal of its own (its own process group, as a shell's job)
    command = [
        "make",
        "--no-print-directory",
        "run",
        venv,
        f"PORT={free_port()}",
        f"DATA={tmp_path / 'data'}",
    ]
    process = subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True
    )
    assert process.stdout is not None
    lines: list[str] = []
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        lines.append(line.rstrip("\n"))
        if line.strip() == "ready":
            break
    try:
        # Then it said at most 15 lines before `ready`
        assert lines and lines[-1] == "ready", "\n".join(lines)
        assert len(lines) - 1 <= MOST_LINES_BEFORE_READY, "\n".join(lines)
        # When the person presses Ctrl-C (the terminal signals the whole group)
        os.killpg(process.pid, signal.SIGINT)
        rest, _ = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    # Then it stops without a traceback and without make's error line
    assert "Traceback" not in rest and "BrokenPipeError" not in rest, rest
    assert "***" not in rest, rest
