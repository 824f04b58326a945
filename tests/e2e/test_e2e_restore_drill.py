"""``make restore-drill`` end to end: its own local stack, back up, lose, restore, compare."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]


def test_the_restore_drill_brings_back_every_item_object_and_answer(tmp_path: Path) -> None:
    # When the drill runs (the same command make restore-drill runs)
    done = subprocess.run(
        [sys.executable, "-m", "infra.restore_drill", "--work-dir", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    # Then the loss was real, and after the restore everything compares equal
    assert done.returncode == 0, done.stdout + done.stderr
    assert "lost: the API now answers differently" in done.stdout
    assert "every API answer identical" in done.stdout
    assert "access guard denied" not in (tmp_path / "stack.log").read_text()
