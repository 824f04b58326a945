"""A project folder whose path has a space in it (``~/Documents/My Projects/shop app``, common on
macOS), end to end: the client logged in and its Claude Code hooks installed in a temporary HOME
(``bench/recovery_sealed.Harness``), a session played through those hook commands against the local
stack, and the block that comes back after a compaction and after /clear lists the files the agent
read, edited and wrote, by their paths in the project, exactly as it does for a folder without a
space (issue 32)."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bench.recovery_sealed import ClaudeCode, Harness
from tests.e2e.local_stack import LocalStackProcess

pytestmark = pytest.mark.e2e

FILES = "### Files"


class Session(ClaudeCode):
    """A short Claude Code session in ``project``: the agent reads a file, edits another and writes
    a test, each by its absolute path, as Claude Code's tools are called."""

    def __init__(self, harness: Harness, project: Path) -> None:
        super().__init__(harness, project)
        self.id = str(uuid.uuid4())
        self.last: str | None = None

    def line(self, kind: str, content: object, **extra: Any) -> str:
        record_id = str(uuid.uuid4())
        record = {
            "parentUuid": self.last,
            "isSidechain": False,
            "userType": "external",
            "cwd": str(self.project),
            "sessionId": self.id,
            "version": "2.1.39",
            "type": kind,
            "message": {"role": kind, "content": content},
            "uuid": record_id,
            "timestamp": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            **extra,
        }
        self.last = record_id
        return json.dumps(record)

    def tool(self, call: str, name: str, arguments: dict[str, Any], result: str) -> list[str]:
        return [
            self.line("assistant", [{"type": "tool_use", "id": call, "name": name, "input": arguments}]),
            self.line("user", [{"type": "tool_result", "tool_use_id": call, "content": result}]),
        ]

    def turn(self, prompt: str, lines: list[str]) -> None:
        """The prompt's hook on the transcript as it stood, then the turn's lines (and Stop)."""
        payload = {**self.base(self.id, "UserPromptSubmit"), "prompt": prompt, "permission_mode": "default"}
        self.h.run("UserPromptSubmit", payload, self.project)
        self.append(self.id, [self.line("user", prompt), *lines])
        if "Stop" in self.h.hooks:
            self.h.run("Stop", {**self.base(self.id, "Stop"), "stop_hook_active": False}, self.project)

    def play(self) -> tuple[str, str]:
        """The session, then the blocks after a compaction and after /clear."""
        root = self.project
        self.start(self.id, "startup")
        self.turn(
            "the cart totals are off by a cent, fix the rounding",
            [
                *self.tool("t1", "Read", {"file_path": f"{root}/src/cart.py"}, "def total(lines): ..."),
                *self.tool(
                    "t2",
                    "Edit",
                    {
                        "file_path": f"{root}/src/checkout/totals.py",
                        "old_string": "round(x, 2)",
                        "new_string": "x.quantize(CENT, ROUND_HALF_UP)",
                    },
                    f"The file {root}/src/checkout/totals.py has been updated successfully.",
                ),
                self.line("assistant", [{"type": "text", "text": "The totals round half-up now."}]),
            ],
        )
        self.turn(
            "add a test for the rounding",
            [
                *self.tool(
                    "t3",
                    "Write",
                    {"file_path": f"{root}/tests/test_totals.py", "content": "def test_half_up(): ..."},
                    f"File created successfully at: {root}/tests/test_totals.py",
                ),
                self.line("assistant", [{"type": "text", "text": "Added `tests/test_totals.py`."}]),
            ],
        )
        seen = self.h.checkpoints(self.id)
        compact = {**self.base(self.id, "PreCompact"), "trigger": "auto", "custom_instructions": ""}
        self.h.run("PreCompact", compact, self.project, match="auto")
        self.wait(self.id, seen)
        after_compaction = self.start(self.id, "compact")
        end = {**self.base(self.id, "SessionEnd"), "reason": "clear"}
        self.h.run("SessionEnd", end, self.project)
        after_clear = self.start(str(uuid.uuid4()), "clear")
        return after_compaction, after_clear


def files_section(block: str) -> list[str]:
    for part in block.split("\n\n"):
        head, _, body = part.partition("\n")
        if head.startswith(FILES):
            return body.split("\n")
    return []


EXPECTED = {
    "`src/checkout/totals.py` (edited",
    "`tests/test_totals.py` (written",
    "`src/cart.py` (read",
}


def test_the_block_lists_the_files_of_a_project_whose_path_has_a_space(
    local_stack: LocalStackProcess, tmp_path: Path
) -> None:
    # Given Claude Code's hooks installed, and the same session in a folder with spaces in its path
    # and in one without
    harness = Harness(local_stack.url, local_stack.token, tmp_path)
    spaced = Session(harness, tmp_path / "My Projects" / "shop app").play()
    plain = Session(harness, tmp_path / "projects" / "shop_app").play()

    # When the blocks come back after the compaction and after /clear
    # Then each lists the files read, edited and written, by their paths in the project
    for block in (*spaced, *plain):
        listed = files_section(block)
        assert {line.split(", prompt")[0][2:] for line in listed} >= EXPECTED, block
        assert not any("My Projects" in line or "shop app" in line for line in listed)
    # and the folder with a space gives the very same lines as the folder without
    assert [files_section(block) for block in spaced] == [files_section(block) for block in plain]
