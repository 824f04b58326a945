"""The sealed set's player (bench/recovery_sealed.py) on a tiny session of its own format: the
client is logged in and its Claude Code hooks installed in a temporary HOME, the hook commands read
back from the written settings file play the session, and blocks come back after the compaction and
after /clear. A test of the player, not of recovery quality."""

from __future__ import annotations

from pathlib import Path

from bench.recovery_sealed import load, run_sessions, validate
from tests.e2e.local_stack import LocalStackProcess

FIXTURE = Path(__file__).with_name("sealed_fixture")


def test_the_player_drives_a_session_through_the_installed_hooks(local_stack: LocalStackProcess) -> None:
    sessions = load(folder=FIXTURE)
    assert [s.name for s in sessions] == ["tiny"]
    # the fixture is smaller than the set's 22 prompts; every probe is planted where it says
    assert [p for p in validate(sessions[0]) if "prompts" not in p] == []

    (result,) = run_sessions(local_stack.url, local_stack.token, sessions, pause=False)

    assert result.block_compact.strip() and result.block_clear.strip()
    assert len(result.answers) == 4  # decoy startup, startup, compact, clear
    assert result.recalled_compact and result.leaked  # every fact and decoy was scored
