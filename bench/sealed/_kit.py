"""A session under construction: its transcript, its decoy, its facts and its filler turns."""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.sealed._writer import HERE, Facts, Transcript

Filler = Callable[[Transcript], None]


def sid(name: str, salt: str = "") -> str:
    digest = hashlib.sha256(f"sealed:{name}:{salt}".encode()).hexdigest()
    return f"{digest[:8]}-{digest[8:12]}-4{digest[13:16]}-a{digest[17:20]}-{digest[20:32]}"


GENERIC = (
    ("ok next", "Moving on to the next item on the list."),
    ("continue", "Continuing."),
    ("looks fine", "Good. I'll keep going with the remaining steps."),
    ("go on pls", "On it."),
    ("ok", "Alright, next step."),
    ("yes", "Done, continuing."),
    ("nice. what's left?", "A few items remain on the todo list; picking up the next one."),
)


class Session:
    def __init__(self, name: str, stack: str, project: str, seed: int, fillers: list[Filler]) -> None:
        self.name = name
        self.project = project
        self.t = Transcript(sid(name), seed)
        self.decoy = Transcript(sid(name, "decoy"), seed + 1000)
        self.decoy.clock = 0.0
        self.t.clock = 86400.0 * 2
        self.facts = Facts(name, stack)
        self.fillers = itertools.cycle(fillers)
        self.generic = itertools.cycle(GENERIC)

    # the main session ------------------------------------------------------------------------

    def p(self, text: str) -> int:
        self.t.user(text)
        return self.t.prompts

    def fact(self, kind: str, probes: list[str], **extra: Any) -> None:
        self.facts.add(kind, self.t.prompts, probes, **extra)

    def fill(self, count: int) -> None:
        """``count`` ordinary turns: the stack's routine work, and now and then a short nod."""
        for n in range(count):
            if n % 3 == 2:
                prompt, reply = next(self.generic)
                self.t.user(prompt)
                self.t.say(reply)
            else:
                next(self.fillers)(self.t)

    def remember(self, text: str, probes: list[str]) -> None:
        """The user ran ``! continuity remember "…"`` (Claude Code's bash mode): no prompt, no hook;
        the player runs the client's ``remember`` when it meets the line."""
        self.t.bash_mode(
            f'continuity remember "{text}"',
            f"remembered for session {self.t.session_id}: it goes into the session's next checkpoint",
        )
        self.facts.add("remember", self.t.prompts, probes, by="remember")

    # the decoy session -------------------------------------------------------------------------

    def d(self, text: str) -> None:
        self.decoy.user(text)

    def decoy_fact(self, probes: list[str]) -> None:
        self.facts.decoy(self.decoy.prompts, probes)

    # output --------------------------------------------------------------------------------

    def write(self, summary: str) -> None:
        self.t.compact(summary)
        out = HERE
        self.t.dump(out / f"{self.name}.jsonl")
        self.decoy.dump(out / f"{self.name}.decoy.jsonl")
        meta = {
            "session": self.name,
            "stack": self.facts.stack,
            "project": self.project,
            "session_id": self.t.session_id,
            "decoy_session_id": self.decoy.session_id,
            "prompts": self.t.prompts,
            "facts": self.facts.items,
            "decoy_facts": self.facts.decoys,
        }
        (out / f"{self.name}.facts.json").write_text(json.dumps(meta, indent=1, ensure_ascii=False) + "\n")


def path_of(out: Path, name: str) -> Path:
    return out / name


def routine(prompt: str, command: str, output: str, reply: str, description: str = "") -> Filler:
    def turn(t: Transcript) -> None:
        t.user(prompt)
        t.bash(command, output, description)
        t.say(reply)

    return turn


def looked(prompt: str, path: str, body: str, reply: str) -> Filler:
    def turn(t: Transcript) -> None:
        t.user(prompt)
        t.read(path, body)
        t.say(reply)

    return turn
