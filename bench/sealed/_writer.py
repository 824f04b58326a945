"""Writes the sealed sessions' files (``python -m bench.sealed._build``): Claude Code 2.1.x JSONL
transcripts with the line shapes of real ones, and a facts file per session.

The transcripts hold ``{{PROJECT}}`` where Claude Code would write the project's absolute path; the
player (``bench/recovery_sealed.py``) puts its temporary project directory there.
"""

from __future__ import annotations

import json
import random
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
PROJECT = "{{PROJECT}}"
VERSION = "2.1.42"
MODEL = "claude-opus-4-5-20251101"
KINDS = (
    "constraint_direct",
    "constraint_indirect",
    "decision_accepted",
    "decision_reversal",
    "question_open",
    "answer",
    "failing_test",
    "file",
    "remember",
    "last_instruction",
    "clear",
)


def _uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


@dataclass
class Transcript:
    """One session's JSONL lines, built turn by turn."""

    session_id: str
    seed: int
    branch: str = "main"
    lines: list[dict[str, Any]] = field(default_factory=list)
    prompts: int = 0
    clock: float = 0.0
    parent: str | None = None

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self.lines.append(
            {"type": "permission-mode", "permissionMode": "default", "sessionId": self.session_id}
        )

    def _stamp(self, step: float = 4.0) -> str:
        self.clock += step + self.rng.random() * step
        seconds = int(self.clock)
        day, hour, minute = 12 + seconds // 86400, (seconds // 3600) % 24, (seconds // 60) % 60
        return f"2026-11-{day:02d}T{hour:02d}:{minute:02d}:{seconds % 60:02d}.{self.rng.randrange(1000):03d}Z"

    def _base(self, kind: str) -> dict[str, Any]:
        line_id = _uuid(self.rng)
        line = {
            "parentUuid": self.parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": PROJECT,
            "sessionId": self.session_id,
            "version": VERSION,
            "gitBranch": self.branch,
            "type": kind,
            "uuid": line_id,
            "timestamp": self._stamp(),
        }
        self.parent = line_id
        return line

    def user(self, text: str) -> None:
        """A prompt the user typed."""
        self.prompts += 1
        snapshot_id = _uuid(self.rng)
        self.lines.append(
            {
                "type": "file-history-snapshot",
                "messageId": snapshot_id,
                "snapshot": {"messageId": snapshot_id, "trackedFileBackups": {}, "timestamp": self._stamp(1)},
                "isSnapshotUpdate": False,
            }
        )
        line = self._base("user")
        line["message"] = {"role": "user", "content": text}
        line["thinkingMetadata"] = {"level": "none", "disabled": False, "triggers": []}
        line["todos"] = []
        line["permissionMode"] = "default"
        self.lines.append(line)

    def bash_mode(self, command: str, stdout: str) -> None:
        """A ``!`` command the user ran in Claude Code's bash mode (no prompt, no hook)."""
        line = self._base("user")
        line["message"] = {"role": "user", "content": f"<bash-input>{command}</bash-input>"}
        self.lines.append(line)
        out = self._base("user")
        out["message"] = {
            "role": "user",
            "content": f"<bash-stdout>{stdout}</bash-stdout><bash-stderr></bash-stderr>",
        }
        self.lines.append(out)

    def _assistant(self, block: dict[str, Any], message_id: str, stop: str | None) -> None:
        line = self._base("assistant")
        line["requestId"] = "req_" + message_id[4:]
        line["message"] = {
            "model": MODEL,
            "id": message_id,
            "type": "message",
            "role": "assistant",
            "content": [block],
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {
                "input_tokens": 4 + self.rng.randrange(8),
                "cache_creation_input_tokens": self.rng.randrange(3000),
                "cache_read_input_tokens": 12000 + 900 * len(self.lines),
                "output_tokens": 20 + self.rng.randrange(400),
                "service_tier": "standard",
            },
        }
        self.lines.append(line)

    def _message_id(self) -> str:
        return "msg_01" + "".join(
            self.rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz123456789") for _ in range(22)
        )

    def say(self, text: str) -> None:
        self._assistant({"type": "text", "text": text}, self._message_id(), "end_turn")

    def tool(
        self,
        name: str,
        tool_input: dict[str, Any],
        result: str | list[dict[str, Any]],
        error: bool = False,
        note: str | None = None,
    ) -> None:
        """An assistant tool call (optionally after a sentence) and the user line with its result."""
        message_id = self._message_id()
        if note:
            self._assistant({"type": "text", "text": note}, message_id, None)
        tool_id = "toolu_01" + "".join(
            self.rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijk0123456789") for _ in range(22)
        )
        self._assistant(
            {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}, message_id, "tool_use"
        )
        line = self._base("user")
        block: dict[str, Any] = {"tool_use_id": tool_id, "type": "tool_result", "content": result}
        if error:
            block["is_error"] = True
        line["message"] = {"role": "user", "content": [block]}
        if name == "Bash":
            text = result if isinstance(result, str) else ""
            line["toolUseResult"] = {
                "stdout": "" if error else text,
                "stderr": text if error else "",
                "interrupted": False,
                "isImage": False,
            }
        elif name == "TodoWrite":
            line["toolUseResult"] = {"oldTodos": [], "newTodos": tool_input["todos"]}
        self.lines.append(line)

    # Shorthands for the common tools -------------------------------------------------------

    def bash(
        self, command: str, output: str, description: str = "", error: bool = False, note: str | None = None
    ) -> None:
        tool_input = {"command": command, "description": description or command.split()[0]}
        self.tool("Bash", tool_input, output, error=error, note=note)

    def read(self, path: str, body: str, note: str | None = None) -> None:
        numbered = "\n".join(f"{n:>6}→{line}" for n, line in enumerate(body.splitlines(), 1))
        self.tool("Read", {"file_path": f"{PROJECT}/{path}"}, numbered, note=note)

    def edit(self, path: str, old: str, new: str, note: str | None = None) -> None:
        result = (
            f"The file {PROJECT}/{path} has been updated. Here's the result of running `cat -n` on a "
            f"snippet of the edited file:\n"
            + "\n".join(f"{n:>6}→{line}" for n, line in enumerate(new.splitlines(), 40))
        )
        self.tool(
            "Edit",
            {"file_path": f"{PROJECT}/{path}", "old_string": old, "new_string": new},
            result,
            note=note,
        )

    def write(self, path: str, body: str, note: str | None = None) -> None:
        self.tool(
            "Write",
            {"file_path": f"{PROJECT}/{path}", "content": body},
            f"File created successfully at: {PROJECT}/{path}",
            note=note,
        )

    def grep(self, pattern: str, files: list[str], note: str | None = None) -> None:
        result = f"Found {len(files)} files\n" + "\n".join(f"{PROJECT}/{f}" for f in files)
        self.tool(
            "Grep",
            {"pattern": pattern, "path": PROJECT, "output_mode": "files_with_matches"},
            result,
            note=note,
        )

    def todo(self, items: list[tuple[str, str]]) -> None:
        todos = [
            {"content": text, "status": status, "activeForm": text[:1].upper() + text[1:]}
            for text, status in items
        ]
        self.tool(
            "TodoWrite",
            {"todos": todos},
            "Todos have been modified successfully. Ensure that you continue to use the todo list to track "
            "your progress. Please proceed with the current tasks if applicable",
        )

    def task(self, description: str, prompt: str, report: str) -> None:
        self.tool(
            "Task",
            {"description": description, "prompt": prompt, "subagent_type": "general-purpose"},
            [{"type": "text", "text": report}],
        )

    def compact(self, summary: str) -> None:
        """Claude Code's lines of an auto-compaction: the boundary, then the summary as a user line."""
        line = self._base("system")
        line.update(
            {
                "subtype": "compact_boundary",
                "content": "Conversation compacted",
                "isMeta": False,
                "level": "info",
                "compactMetadata": {"trigger": "auto", "preTokens": 161_000 + self.rng.randrange(4000)},
            }
        )
        line["parentUuid"] = None
        line["logicalParentUuid"] = self.lines[-1].get("uuid")
        self.lines.append(line)
        summary_line = self._base("user")
        summary_line["isCompactSummary"] = True
        summary_line["isVisibleInTranscriptOnly"] = True
        summary_line["message"] = {
            "role": "user",
            "content": "This session is being continued from a previous conversation that ran out of "
            "context. The summary below covers the earlier portion of the conversation.\n\n" + summary,
        }
        self.lines.append(summary_line)

    def dump(self, path: Path) -> None:
        path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in self.lines))


@dataclass
class Facts:
    name: str
    stack: str
    items: list[dict[str, Any]] = field(default_factory=list)
    decoys: list[dict[str, Any]] = field(default_factory=list)

    def add(
        self,
        kind: str,
        turn: int,
        probes: list[str],
        status: str = "current",
        stale: str | None = None,
        by: str = "user",
    ) -> None:
        assert kind in KINDS, kind
        fact: dict[str, Any] = {
            "id": f"{kind}-{sum(f['kind'] == kind for f in self.items) + 1}",
            "kind": kind,
            "by": by,
            "turn": turn,
            "probes": probes,
            "status": status,
        }
        if stale:
            fact["stale"] = stale
        self.items.append(fact)

    def decoy(self, turn: int, probes: list[str]) -> None:
        self.decoys.append({"id": f"decoy-{len(self.decoys) + 1}", "turn": turn, "probes": probes})
