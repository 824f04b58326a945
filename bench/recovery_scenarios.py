"""Scripted coding sessions for the recovery-quality suite (``bench/recovery_suite.py``).

Each scenario is a Claude Code session in one project: facts are *planted* at given prompts (by the
user in a prompt, by the agent in its reply or tool calls, through the ``remember`` hook, or in an
agent digest), some later superseded or answered, and every other turn is *filler*: real Claude
Code turns rendered to readable text from ``../shared/corpus/claude-code/real_projects`` (synthetic
turns when that folder is absent). Before the main session the same project has a short *decoy*
session with facts of its own, which must never show up in the main session's recovery.

A fact has one or more *probes*: short distinctive substrings a faithful recovery block keeps
verbatim. A superseded or answered fact also has a *stale* probe, specific to the old statement and
absent from the statement that replaces it. ``validate`` checks that every probe is found where it
is planted and nowhere else in the session (filler turns that happen to contain one are skipped).

The scenarios are data: ``bench/scenarios/{main,heldout,heldout2}.json``, validated on load
against ``ScenarioSet`` (pydantic: known kinds and authors, plants inside their session, fact ids
unique, a closing fact naming a fact of its session). They were written independently of any fact
extractor: the phrasings are the ones people and agents use, not the ones an extractor looks for.
This module holds the rules: the builders, the filler, validation and the probe matching.
"""

from __future__ import annotations

import json
import random
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from continuity_client.hook.transcript import blocks, render, result_line, tool_line

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "claude-code" / "real_projects"

# Who stated a fact.
USER, AGENT, REMEMBER, DIGEST = "user", "agent", "remember", "digest"
# What kind of fact it is.
KINDS = (
    "constraint",
    "decision",
    "question",
    "answer",
    "finding",
    "file",
    "remember",
    "next_step",
    "instruction",
)
CURRENT, SUPERSEDED, ANSWERED = "current", "superseded", "answered"

FILLER_PROMPT_CHARS = 1500  # a real prompt longer than this (a pasted log) is not used as filler
FILLER_TURN_CHARS = 4000  # a filler turn's reply is cut to about this many characters
PAUSE_EVERY = 20  # the runner waits for the periodic checkpoint after every this-many prompts


# ---------------------------------------------------------------------------------------------
# What a scenario declares
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fact:
    """A statement the recovery block must carry (``probes``), or, once closed, not as current."""

    id: str
    kind: str
    probes: tuple[str, ...]
    stale: str | None = None  # a probe of this (old) statement, for when a later fact closes it
    closes: str | None = None  # this fact supersedes or answers the fact with this id


@dataclass(frozen=True)
class Tool:
    name: str
    input: str
    result: str = "ok"


@dataclass(frozen=True)
class Plant:
    """What happens at one prompt besides filler: the prompt itself, the agent's reply and tool
    calls, a remember hook, an agent digest; and the facts it states."""

    turn: int
    by: str
    facts: tuple[Fact, ...] = ()
    prompt: str | None = None
    reply: str | None = None
    tools: tuple[Tool, ...] = ()
    remember: str | None = None
    digest: dict[str, object] | None = None

    def texts(self) -> list[str]:
        """Everything this plant puts into the session, as text (for probe validation)."""
        found = [self.prompt or "", self.reply or "", self.remember or ""]
        for tool in self.tools:
            found += [tool.input, tool.result]
        found += list(_strings(self.digest))
        return [text for text in found if text]


@dataclass(frozen=True)
class Scenario:
    name: str
    domain: str
    prompts: int
    plants: tuple[Plant, ...]
    decoy_prompts: int
    decoy: tuple[Plant, ...]
    summary: str = ""

    @property
    def cwd(self) -> str:
        return f"/work/{self.name}"


def _strings(value: object) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


# Fact constructors ---------------------------------------------------------------------------


def constraint(id: str, *probes: str, stale: str | None = None, closes: str | None = None) -> Fact:
    return Fact(id, "constraint", probes, stale, closes)


def decision(id: str, *probes: str, stale: str | None = None, closes: str | None = None) -> Fact:
    return Fact(id, "decision", probes, stale, closes)


def question(id: str, *probes: str, stale: str | None = None) -> Fact:
    return Fact(id, "question", probes, stale)


def answer(id: str, *probes: str, closes: str) -> Fact:
    return Fact(id, "answer", probes, closes=closes)


def finding(id: str, *probes: str) -> Fact:
    return Fact(id, "finding", probes)


def path(id: str, file: str) -> Fact:
    return Fact(id, "file", (file,))


def next_step(id: str, *probes: str) -> Fact:
    return Fact(id, "next_step", probes)


# Plant constructors --------------------------------------------------------------------------


def said(
    turn: int, prompt: str, *facts: Fact, reply: str | None = None, tools: tuple[Tool, ...] = ()
) -> Plant:
    """The user states ``facts`` in the prompt of ``turn``."""
    return Plant(turn, USER, facts, prompt=prompt, reply=reply, tools=tools)


def agent(
    turn: int, reply: str | None, *facts: Fact, prompt: str | None = None, tools: tuple[Tool, ...] = ()
) -> Plant:
    """The agent states ``facts`` in its reply (or only through its tool calls) at ``turn``."""
    return Plant(turn, AGENT, facts, prompt=prompt, reply=reply, tools=tools)


def edits(turn: int, *files: tuple[str, str], prompt: str | None = None, reply: str | None = None) -> Plant:
    """Files in play only through the agent's tool calls: ``(fact id, path)`` pairs."""
    tools = tuple(
        Tool("Write" if n % 2 else "Edit", file, _edit_result(file)) for n, (_, file) in enumerate(files)
    )
    return Plant(turn, AGENT, tuple(path(i, f) for i, f in files), prompt=prompt, reply=reply, tools=tools)


def remember(turn: int, id: str, content: str, prompt: str | None = None) -> Plant:
    """A ``remember`` hook during ``turn``: its content must come back verbatim."""
    return Plant(turn, REMEMBER, (Fact(id, "remember", (content,)),), prompt=prompt, remember=content)


def digest(turn: int, body: dict[str, object], *facts: Fact, prompt: str | None = None) -> Plant:
    """The agent's digest (``POST /api/sessions/{key}/digest``) after ``turn``."""
    return Plant(turn, DIGEST, facts, prompt=prompt, digest=body)


def last(turn: int, id: str, prompt: str) -> Plant:
    """The last user prompt before the compaction: it must come back verbatim."""
    return Plant(turn, USER, (Fact(id, "instruction", (prompt,)),), prompt=prompt)


def _edit_result(file: str) -> str:
    return f"The file {file} has been updated."


# ---------------------------------------------------------------------------------------------
# The scenarios: data files, validated on load
# ---------------------------------------------------------------------------------------------

GO_ON = ("go ahead", "ok, do it", "yes please", "sounds good, carry on", "continue", "ok")

# One JSON file per set, under bench/scenarios/: ``main`` (the twelve scenarios the fact
# extractor was tuned on), ``heldout`` and ``heldout2`` (five each, written afterwards and scored
# apart: never tune on their misses; write a new set instead). Each file says what it is in its
# ``about``. The schema is ScenarioSet below: a file that breaks it fails on load, naming the field.
DATA = Path(__file__).with_name("scenarios")
SET_NAMES = ("main", "heldout", "heldout2")
Text = Annotated[str, Field(min_length=1)]


class _Data(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class FactData(_Data):
    id: Text
    kind: str
    probes: tuple[Text, ...] = Field(min_length=1)
    stale: Text | None = None
    closes: Text | None = None

    @field_validator("kind")
    @classmethod
    def _known_kind(cls, kind: str) -> str:
        if kind not in KINDS:
            raise ValueError(f"{kind!r} is not one of {', '.join(KINDS)}")
        return kind


class ToolData(_Data):
    name: Text
    input: str
    result: str = "ok"


class PlantData(_Data):
    turn: int = Field(ge=1)
    by: str
    facts: tuple[FactData, ...] = ()
    prompt: str | None = None
    reply: str | None = None
    tools: tuple[ToolData, ...] = ()
    remember: str | None = None
    digest: dict[str, Any] | None = None

    @field_validator("by")
    @classmethod
    def _known_author(cls, by: str) -> str:
        if by not in (USER, AGENT, REMEMBER, DIGEST):
            raise ValueError(f"{by!r} is not one of {USER}, {AGENT}, {REMEMBER}, {DIGEST}")
        return by

    def plant(self) -> Plant:
        return Plant(
            turn=self.turn,
            by=self.by,
            facts=tuple(Fact(f.id, f.kind, f.probes, f.stale, f.closes) for f in self.facts),
            prompt=self.prompt,
            reply=self.reply,
            tools=tuple(Tool(t.name, t.input, t.result) for t in self.tools),
            remember=self.remember,
            digest=self.digest,
        )


class ScenarioData(_Data):
    name: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    domain: Text
    about: str = ""  # for whoever reads the file; not part of the session
    summary: str = ""
    prompts: int = Field(ge=1)
    plants: tuple[PlantData, ...]
    decoy_prompts: int = Field(ge=1)
    decoy: tuple[PlantData, ...]

    @model_validator(mode="after")
    def _consistent(self) -> ScenarioData:
        for session, prompts, plants in (
            ("main", self.prompts, self.plants),
            ("decoy", self.decoy_prompts, self.decoy),
        ):
            late = [p.turn for p in plants if p.turn > prompts]
            if late:
                raise ValueError(
                    f"{session} session: plants at turns {late} after its last prompt ({prompts})"
                )
            ids = [f.id for p in plants for f in p.facts]
            doubled = sorted({i for i in ids if ids.count(i) > 1})
            if doubled:
                raise ValueError(f"{session} session: fact ids used twice: {doubled}")
            unknown = sorted({f.closes for p in plants for f in p.facts if f.closes and f.closes not in ids})
            if unknown:
                raise ValueError(f"{session} session: closes facts it does not plant: {unknown}")
        return self

    def scenario(self) -> Scenario:
        return Scenario(
            name=self.name,
            domain=self.domain,
            prompts=self.prompts,
            plants=tuple(p.plant() for p in self.plants),
            decoy_prompts=self.decoy_prompts,
            decoy=tuple(p.plant() for p in self.decoy),
            summary=self.summary,
        )


class ScenarioSet(_Data):
    about: Text
    scenarios: tuple[ScenarioData, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _distinct_names(self) -> ScenarioSet:
        names = [s.name for s in self.scenarios]
        if len(set(names)) != len(names):
            raise ValueError(f"scenario names used twice: {sorted({n for n in names if names.count(n) > 1})}")
        return self


def load_set(name: str, directory: Path = DATA) -> tuple[Scenario, ...]:
    """The scenarios of ``bench/scenarios/{name}.json``, validated against ScenarioSet."""
    data = ScenarioSet.model_validate_json((directory / f"{name}.json").read_text(encoding="utf-8"))
    return tuple(s.scenario() for s in data.scenarios)


SCENARIOS: tuple[Scenario, ...] = load_set("main")
HELDOUT: tuple[Scenario, ...] = load_set("heldout")
HELDOUT2: tuple[Scenario, ...] = load_set("heldout2")


# ---------------------------------------------------------------------------------------------
# Filler turns
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FillerTurn:
    prompt: str
    reply: str  # readable blocks after the user block, each ending with a blank line


SKIP_PROMPT_PREFIXES = ("<", "[", "Caveat:")
SKIP_MARKERS = ("[Compact summary]", "--- context compacted")
ARTIFACT_PREFIXES = ("User: <command-", "User: <local-command")


def _prompt_of(record: dict[str, object], text: str) -> str | None:
    """The user's typed prompt in a rendered user record, if it has one (not a tool result, a
    slash command, an IDE notice or an interruption)."""
    if record.get("type") != "user" or not text.startswith("User: "):
        return None
    for part in text[len("User: ") :].split("\n\nUser: "):
        prompt = part.strip()
        if prompt and not prompt.startswith(SKIP_PROMPT_PREFIXES):
            return prompt
    return None


def _read_records(file: Path) -> list[dict[str, object]]:
    records = []
    with file.open(encoding="utf-8", errors="replace") as lines:
        for line in lines:
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict):
                records.append(record)
    return records


_REWIND_MARKER = re.compile(r"^--- rewound: [^\n]*---\n+", re.MULTILINE)


def _turns_of(records: list[dict[str, object]]) -> list[FillerTurn]:
    state: dict[str, object] = {}
    turns: list[FillerTurn] = []
    prompt: str | None = None
    reply: list[str] = []

    def close() -> None:
        if prompt is None:
            return
        text = "".join(reply)
        if len(text) > FILLER_TURN_CHARS:
            kept: list[str] = []
            size = 0
            for part in reply:
                if kept and size + len(part) > FILLER_TURN_CHARS:
                    break
                kept.append(
                    part if len(part) <= FILLER_TURN_CHARS else part[:FILLER_TURN_CHARS].rstrip() + "\n\n"
                )
                size += len(kept[-1])
            text = "".join(kept)
        if len(prompt) <= FILLER_PROMPT_CHARS and not any(m in prompt + text for m in SKIP_MARKERS):
            turns.append(FillerTurn(prompt, text))

    for record in records:
        # A rewind marker says how many of *its own* session's prompts were abandoned: a turn taken
        # out of that session into a scenario carries no such meaning.
        text = _REWIND_MARKER.sub("", render("claude-code", record, state).text)
        if not text:
            continue
        typed = _prompt_of(record, text)
        if typed is not None:
            close()
            prompt, reply = typed, []
        elif prompt is not None and not text.startswith(ARTIFACT_PREFIXES):
            reply.append(text)
    close()
    return turns


@cache
def corpus_turns(root: Path = CORPUS) -> tuple[FillerTurn, ...]:
    """Real turns from the corpus's main transcripts (sub-agent files give nothing); () when absent."""
    if not root.is_dir():
        return ()
    turns: list[FillerTurn] = []
    for file in sorted(root.glob("*/*.jsonl")):
        if not file.name.startswith("agent-"):
            turns += _turns_of(_read_records(file))
    return tuple(turns)


def _bash(command: str, output: str) -> str:
    return blocks(tool_line("Bash", {"command": command}), result_line(output))


SYNTHETIC: tuple[FillerTurn, ...] = (
    FillerTurn("run the tests again", _bash("make test", "collected 214 items ... 214 passed in 38.2s")),
    FillerTurn(
        "what's left on this?",
        blocks("Assistant: Two things: the edge case for empty input and the docs for the new flag."),
    ),
    FillerTurn(
        "show me the diff", _bash("git diff --stat", " 3 files changed, 41 insertions(+), 12 deletions(-)")
    ),
    FillerTurn("looks good", blocks("Assistant: Great, moving on to the next item.")),
    FillerTurn(
        "can you explain what this function does?",
        blocks(
            "Assistant: It walks the list once, groups the entries by their key and returns the groups "
            "sorted by size, largest first. The second loop only exists for the legacy format."
        ),
    ),
    FillerTurn(
        "commit that with a sensible message",
        _bash(
            "git commit -am 'Handle empty input in the parser'",
            "[main 4c1d2e9] Handle empty input in the parser",
        ),
    ),
    FillerTurn(
        "hmm, that test is still failing",
        _bash("make test ARGS=-k parser", "FAILED test_parser.py::test_trailing_comma - AssertionError")
        + blocks("Assistant: The trailing comma case still returns an empty token; fixing the tokenizer."),
    ),
    FillerTurn("lint it", _bash("make lint", "All checks passed!")),
    FillerTurn(
        "is there a simpler way to do this?",
        blocks("Assistant: Yes: the standard library already has this; we can drop the helper entirely."),
    ),
    FillerTurn(
        "rename that variable to something clearer", blocks(tool_line("Edit", {"file_path": "README.md"}))
    ),
    FillerTurn(
        "what does the log say?",
        _bash(
            "tail -n 20 server.log", "INFO started\nINFO listening on :8080\nWARN slow request 1.2s /health"
        ),
    ),
    FillerTurn("ok, next", blocks("Assistant: Next up is the error handling in the loader.")),
)


# ---------------------------------------------------------------------------------------------
# Building the sessions
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlantedFact:
    scenario: str
    id: str
    kind: str
    by: str
    turn: int
    probes: tuple[str, ...]
    stale: str | None
    status: str  # current, superseded or answered
    closed_by: str | None = None
    closed_at: int | None = None
    decoy: bool = False


@dataclass(frozen=True)
class Turn:
    number: int
    prompt: str
    text: str  # this turn in the readable transcript: the user block, then the reply's blocks
    remembers: tuple[str, ...] = ()
    digests: tuple[dict[str, object], ...] = ()


@dataclass(frozen=True)
class Session:
    session_id: str
    turns: tuple[Turn, ...]


@dataclass(frozen=True)
class Script:
    scenario: Scenario
    cwd: str
    main: Session
    decoy: Session
    facts: tuple[PlantedFact, ...]  # the main session's
    decoy_facts: tuple[PlantedFact, ...]
    pauses: frozenset[int] = field(default_factory=frozenset)

    @property
    def current(self) -> list[PlantedFact]:
        return [f for f in self.facts if f.status == CURRENT]

    @property
    def closed(self) -> list[PlantedFact]:
        return [f for f in self.facts if f.status != CURRENT]


def normalize(text: str) -> str:
    """How probes and blocks are compared: NFC, case-folded, whitespace collapsed."""
    return " ".join(unicodedata.normalize("NFC", text).casefold().split())


@cache
def normalized_probe(probe: str) -> str:
    return normalize(probe)


@cache
def probe_pattern(probe: str) -> re.Pattern[str]:
    """A probe matches as a substring, but not inside a longer word at its alphanumeric ends
    ("UTC" is not found in "outcome")."""
    wanted = normalized_probe(probe)
    head = r"(?<!\w)" if wanted[:1].isalnum() or wanted[:1] == "_" else ""
    tail = r"(?!\w)" if wanted[-1:].isalnum() or wanted[-1:] == "_" else ""
    return re.compile(head + re.escape(wanted) + tail)


def found(text: str, probe: str) -> bool:
    """``probe`` in ``text`` (case-insensitive, whitespace collapsed, not inside a longer word)."""
    return found_normalized(normalize(text), probe)


def found_normalized(normalized: str, probe: str) -> bool:
    """``found`` on a text already passed through ``normalize``."""
    # The substring test first: the pattern cannot match without it, and it is many times cheaper
    # (building the scenarios tests every filler turn against every probe).
    return normalized_probe(probe) in normalized and probe_pattern(probe).search(normalized) is not None


def _resolve(scenario: Scenario, plants: tuple[Plant, ...], decoy: bool) -> tuple[PlantedFact, ...]:
    closers = {f.closes: (f.id, p.turn) for p in plants for f in p.facts if f.closes}
    resolved = []
    for plant in plants:
        for fact in plant.facts:
            status, closed_by, closed_at = CURRENT, None, None
            if fact.id in closers:
                closed_by, closed_at = closers[fact.id]
                status = ANSWERED if fact.kind == "question" else SUPERSEDED
            resolved.append(
                PlantedFact(
                    scenario.name,
                    fact.id,
                    fact.kind,
                    plant.by,
                    plant.turn,
                    fact.probes,
                    fact.stale,
                    status,
                    closed_by,
                    closed_at,
                    decoy,
                )
            )
    return tuple(resolved)


def _ack(rng: random.Random) -> str:
    return rng.choice(
        (
            "Got it.",
            "Understood, noted.",
            "Okay, I'll keep that in mind.",
            "Sounds good.",
            "Noted, thanks.",
            "Will do.",
        )
    )


def _plant_reply(plant: Plant, rng: random.Random, session_id: str) -> str:
    parts: list[str] = []
    if plant.reply:
        parts.append(f"Assistant: {plant.reply}")
    elif plant.by == USER:
        parts.append(f"Assistant: {_ack(rng)}")
    for tool in plant.tools:
        parts += [tool_line(tool.name, {"file_path": tool.input}), result_line(tool.result)]
    if plant.remember is not None:
        parts += [tool_line("mcp__continuity__remember", {"content": plant.remember}), result_line("sent")]
    if plant.digest is not None:
        parts += [
            tool_line("mcp__continuity__session_digest", plant.digest),
            result_line(f"checkpoint written for session {session_id}"),
        ]
    return blocks(*parts)


def _session(
    plants: tuple[Plant, ...],
    prompts: int,
    session_id: str,
    filler: list[FillerTurn],
    rng: random.Random,
) -> Session:
    by_turn: dict[int, list[Plant]] = {}
    for plant in plants:
        by_turn.setdefault(plant.turn, []).append(plant)
    turns = []
    for number in range(1, prompts + 1):
        here = by_turn.get(number, [])
        if not here:
            pick = filler[rng.randrange(len(filler))]
            prompt, reply = pick.prompt, pick.reply
        else:
            prompts_here = [p.prompt for p in here if p.prompt]
            prompt = prompts_here[0] if prompts_here else rng.choice(GO_ON)
            reply = "".join(_plant_reply(p, rng, session_id) for p in here)
        turns.append(
            Turn(
                number,
                prompt,
                blocks(f"User: {prompt}") + reply,
                tuple(p.remember for p in here if p.remember is not None),
                tuple(p.digest for p in here if p.digest is not None),
            )
        )
    return Session(session_id, tuple(turns))


def _probes(fact: PlantedFact) -> list[str]:
    return [*fact.probes, *([fact.stale] if fact.stale else [])]


def _usable_filler(scenario: Scenario, pool: tuple[FillerTurn, ...]) -> list[FillerTurn]:
    probes = [
        p
        for plant in (*scenario.plants, *scenario.decoy)
        for f in plant.facts
        for p in (*f.probes, f.stale)
        if p
    ]
    usable = [t for t in pool if not any(found_normalized(_normalized_turn(t), p) for p in probes)]
    return usable or [
        t for t in SYNTHETIC if not any(found_normalized(_normalized_turn(t), p) for p in probes)
    ]


@cache
def _normalized_turn(turn: FillerTurn) -> str:
    return normalize(turn.prompt + "\n" + turn.reply)


def build(scenario: Scenario, tag: str = "", pool: tuple[FillerTurn, ...] | None = None) -> Script:
    """The concrete sessions of ``scenario`` (deterministic); ``tag`` makes its ids and project unique."""
    suffix = f"-{tag}" if tag else ""
    rng = random.Random(f"recovery:{scenario.name}")
    filler_pool = corpus_turns() if pool is None else pool
    filler = _usable_filler(scenario, filler_pool + SYNTHETIC if filler_pool else SYNTHETIC)
    decoy = _session(scenario.decoy, scenario.decoy_prompts, f"{scenario.name}-decoy{suffix}", filler, rng)
    main = _session(scenario.plants, scenario.prompts, f"{scenario.name}-main{suffix}", filler, rng)
    pauses = frozenset(n for n in range(PAUSE_EVERY, scenario.prompts, PAUSE_EVERY))
    return Script(
        scenario,
        scenario.cwd + suffix,
        main,
        decoy,
        _resolve(scenario, scenario.plants, decoy=False),
        _resolve(scenario, scenario.decoy, decoy=True),
        pauses,
    )


def validate(script: Script) -> list[str]:
    """Problems with a built script: a probe not found where it is planted, or found elsewhere in the
    session (then recall or staleness would be measured on the wrong statement)."""
    scenario = script.scenario
    problems: list[str] = []
    plants_of = {f.id: p for p in (*scenario.plants, *scenario.decoy) for f in p.facts}
    segments: list[tuple[Plant | None, str]] = []
    for session, plants in ((script.main, scenario.plants), (script.decoy, scenario.decoy)):
        planted_turns = {p.turn for p in plants}
        filler = {turn.text for turn in session.turns if turn.number not in planted_turns}
        segments += [(None, normalize(text)) for text in filler]
        segments += [(p, normalize(text)) for p in plants for text in p.texts()]
    ids = [f.id for f in (*script.facts, *script.decoy_facts)]
    if len(ids) != len(set(ids)):
        problems.append(f"{scenario.name}: duplicate fact ids")
    last_turn = max(p.turn for p in scenario.plants)
    if last_turn != scenario.prompts or not any(
        f.kind == "instruction" for p in scenario.plants if p.turn == last_turn for f in p.facts
    ):
        problems.append(f"{scenario.name}: the last prompt must be the planted last instruction")
    for fact in (*script.facts, *script.decoy_facts):
        own = plants_of[fact.id]
        if fact.status != CURRENT and not fact.stale:
            problems.append(f"{scenario.name}/{fact.id}: closed without a stale probe")
        for probe in _probes(fact):
            if not any(found(text, probe) for text in own.texts()):
                problems.append(f"{scenario.name}/{fact.id}: probe {probe!r} not in its own statement")
            for plant, text in segments:
                if plant is own or (plant is not None and fact.id in {f.id for f in plant.facts}):
                    continue
                if found_normalized(text, probe):
                    where = f"turn {plant.turn}" if plant else "a filler turn"
                    problems.append(f"{scenario.name}/{fact.id}: probe {probe!r} also in {where}")
                    break
    return problems


def build_all(
    names: Iterable[str] | None = None, tag: str = "", scenarios: Iterable[Scenario] = SCENARIOS
) -> list[Script]:
    """The scripts of ``scenarios`` (the main set by default; ``HELDOUT`` or ``HELDOUT2``
    for a held-out set), all of them or those named."""
    chosen = tuple(scenarios)
    wanted = set(names) if names is not None else None
    unknown = (wanted or set()) - {s.name for s in chosen}
    if unknown:
        raise KeyError(f"unknown scenarios: {sorted(unknown)}")
    return [build(s, tag) for s in chosen if wanted is None or s.name in wanted]
