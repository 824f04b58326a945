"""The five harness CLIs as data for the one suite (test_harnesses.py): how each is driven through
a scripted session, and what differs between them (tool names, deadlines, what each can do headless).

Each ``drive`` logs a machine in, installs our hooks (or plugin), scripts the model and runs the
prompts; it yields a ``Run`` the tests read from outside: what reached the service, what the CLI
sent to the model.
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.harness import clis
from tests.harness.claude_code import ClaudeSession, environment, transcript_file
from tests.harness.codex import AUTO_COMPACT_TOKENS, Codex
from tests.harness.gemini import Gemini
from tests.harness.machine import Machine, Turn
from tests.harness.mock_model import Exchange, MockModel, Reply
from tests.harness.openclaw import OpenClaw, session_key
from tests.harness.opencode import CONTEXT_LIMIT, OpenCode
from tests.harness.script import CONSTRAINT, DIGEST, SUBAGENT_TASK
from tests.harness.service import rendered

# A step of a scripted session that is not a prompt: the user runs `continuity checkpoint`.
CHECKPOINT = "$ continuity checkpoint"
AGENT_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


@dataclass
class Run:
    """A finished scripted session of one CLI."""

    machine: Machine
    model: MockModel
    cli: Any  # the CLI's driver: ClaudeSession, Codex, Gemini, OpenCode or OpenClaw
    sessions: list[str]  # the service's session ids, the one worked in first
    exit_codes: list[int]  # each headless turn's (Claude Code: its one interactive process)
    stderr: str
    turns: list[Turn] = field(default_factory=list)  # the headless turns (none for Claude Code)
    seconds: float = 0.0
    turn_seconds: dict[str, float] = field(default_factory=dict)

    @property
    def session(self) -> str:
        return self.sessions[0]

    def request(self, marker: str) -> Exchange:
        return self.model.prompted(marker)

    def after_compaction(self) -> Exchange:
        """The first request of the agent's loop after the CLI's summary request (it has no tools)."""
        requests = self.model.requests()
        grow = requests.index(self.model.prompted("GROW"))
        summary = next(i for i in range(grow + 1, len(requests)) if not requests[i].is_main_turn)
        return next(e for e in requests[summary + 1 :] if e.is_main_turn)


Drive = Callable[[Path, Path, str, str, list[str]], AbstractContextManager[Run]]


@dataclass(frozen=True)
class Harness:
    name: str  # as `continuity install` names it; the test id
    cli: clis.Cli
    drive: Drive
    work: list[str]  # the scripted session every shared test reads
    turns: int  # the exit codes `work` leaves
    sessions: int | None = None  # how many sessions `work` makes, where the CLI decides it
    hooks_reach: frozenset[str] = frozenset()  # triggers the worked-in session gets
    mcp_tool: str = ""  # an MCP tool's name as the model sees it ({} is the tool)
    deferred_tools: bool = False  # the tools' names reach the model in text, not as tools
    first_request: str = ""  # a marker of the first request (the tools advertised)
    own_transcript: Callable[[Run, str], str] | None = None  # the CLI's own record, rendered
    compacted: Callable[[Run], Exchange] | None = None  # the request after a compaction
    away: list[str] = field(default_factory=list)  # the session run with the service stopped
    away_limit_s: float = 0.0
    away_spooled: frozenset[str] = frozenset()


@contextmanager
def claude_code(
    binary: Path, base: Path, url: str, token: str, prompts: list[str], **env: str
) -> Iterator[Run]:
    machine = Machine(base)
    machine.login(url, token)
    machine.install("claude-code")
    with MockModel() as model:
        # Claude Code defers MCP tools: the model loads one with ToolSearch, then calls it.
        model.on("CALL_DIGEST", Reply.tool("ToolSearch", {"query": "select:mcp__continuity__session_digest"}))
        model.on(lambda e: "mcp__continuity__session_digest" in e.tools, Reply.tool("session_digest", DIGEST))
        subagent = {"description": "survey", "prompt": SUBAGENT_TASK}
        model.on("CALL_AGENT", Reply.tool("Agent", {**subagent, "subagent_type": "general-purpose"}))
        model.on("GROW", Reply("Read everything.", input_tokens=195_000))
        started = time.monotonic()
        session = ClaudeSession(binary, machine, environment(machine, model.url, **env))
        turn_seconds = {}
        try:
            for prompt in prompts:
                begun = time.monotonic()
                session.send(prompt)
                turn_seconds[prompt] = time.monotonic() - begun
        finally:
            code = session.close()
        seconds = time.monotonic() - started
        yield Run(
            machine, model, session, session.session_ids(), [code], session.stderr(),
            seconds=seconds, turn_seconds=turn_seconds,
        )  # fmt: skip


def _wait_for_spawned(exchange: Exchange) -> Reply:
    """The parent waits for the sub-agent it spawned (else ``codex exec`` ends before it runs)."""
    return Reply.tool("multi_agent_v1__wait_agent", {"targets": AGENT_ID.findall(exchange.tool_result)[-1:]})


@contextmanager
def codex(binary: Path, base: Path, url: str, token: str, prompts: list[str]) -> Iterator[Run]:
    machine = Machine(base)
    machine.login(url, token)
    machine.install("codex")
    with MockModel() as model:
        model.on("CALL_DIGEST", Reply.tool("mcp__continuity__session_digest", DIGEST))
        model.on("CALL_AGENT", Reply.tool("multi_agent_v1__spawn_agent", {"message": SUBAGENT_TASK}))
        model.on(lambda e: "spawn" in e.tool_result or "agent_id" in e.tool_result, _wait_for_spawned)
        full = AUTO_COMPACT_TOKENS + 50_000
        model.on("GROW", Reply.tool("list_mcp_resources", {}, text="Reading.", input_tokens=full))
        cli = Codex(binary, machine, model.url)
        thread = cli.exec(prompts[0]).first("thread_id")
        for prompt in prompts[1:]:
            cli.exec(prompt, thread)
        yield _headless(machine, model, cli, cli.turns, [thread])


@contextmanager
def gemini(binary: Path, base: Path, url: str, token: str, prompts: list[str]) -> Iterator[Run]:
    machine = Machine(base)
    machine.login(url, token)
    with MockModel() as model:
        model.on("CALL_DIGEST", Reply.tool("mcp_continuity_session_digest", DIGEST))
        cli = Gemini(binary, machine, model.url)
        machine.install("gemini")
        for index, prompt in enumerate(prompts):
            cli.prompt(prompt, resume=index > 0)
        sessions = list(dict.fromkeys(turn.first("session_id") for turn in cli.turns))
        yield _headless(machine, model, cli, cli.turns, sessions)


@contextmanager
def opencode(binary: Path, base: Path, url: str, token: str, prompts: list[str]) -> Iterator[Run]:
    machine = Machine(base)
    machine.login(url, token)
    with MockModel() as model:
        model.on("CALL_DIGEST", Reply.tool("continuity_session_digest", DIGEST))
        task = {"description": "survey", "prompt": SUBAGENT_TASK, "subagent_type": "general"}
        model.on("CALL_AGENT", Reply.tool("task", task))
        model.on("GROW", Reply.tool("glob", {"pattern": "*"}, input_tokens=CONTEXT_LIMIT + 10_000))
        cli = OpenCode(str(binary), machine, model.url)
        machine.install("opencode")
        session = cli.run(prompts[0]).first("sessionID")
        for prompt in prompts[1:]:
            cli.run(prompt, session)
        yield _headless(machine, model, cli, cli.turns, [session])


@contextmanager
def openclaw(binary: Path, base: Path, url: str, token: str, prompts: list[str]) -> Iterator[Run]:
    """One ``openclaw agent --local`` process a turn: each loads the plugin afresh, as a restarted
    Gateway would."""
    machine = Machine(base)
    machine.login(url, token)
    with MockModel() as model:
        cli = OpenClaw(binary, machine, model.url)
        machine.install("openclaw")
        session_id = str(uuid.uuid4())
        for prompt in prompts:
            if prompt == CHECKPOINT:
                machine.continuity("checkpoint")
            else:
                cli.run(prompt, session_id)
        yield _headless(machine, model, cli, cli.turns, [session_key(session_id)])


def _headless(machine: Machine, model: MockModel, cli: Any, turns: list[Turn], sessions: list[str]) -> Run:
    stderr = turns[-1].stderr if turns else ""
    return Run(machine, model, cli, sessions, [turn.exit_code for turn in turns], stderr, turns)


GROW = f"{CONSTRAINT} GROW: read every reader."
SAVE = "CALL_DIGEST: save where we are."
OPENCLAW_AFTER = "AFTER_RESTART: carry on with the reader."

CLAUDE_CODE = Harness(
    "claude-code",
    clis.CLAUDE_CODE,
    claude_code,
    # works, saves a digest, starts a sub-agent, compacts, then clears
    work=[
        CONSTRAINT,
        SAVE,
        "CALL_AGENT: survey the readers.",
        "/compact",
        "AFTER_COMPACT: where were we?",
        "/clear",
        "AFTER_CLEAR: where were we?",
    ],
    turns=1,
    sessions=2,  # /clear starts a second session
    hooks_reach=frozenset({"pre_compaction", "clear"}),
    mcp_tool="mcp__continuity__{}",
    deferred_tools=True,
    first_request="We must never edit",
    own_transcript=lambda run, session: rendered("claude-code", transcript_file(run.machine, session)),
    compacted=lambda run: run.request("AFTER_COMPACT"),
)
CODEX = Harness(
    "codex",
    clis.CODEX,
    codex,
    # fills its context and compacts mid-turn, saves a digest, then spawns a sub-agent
    work=[GROW, SAVE, "CALL_AGENT: go."],
    turns=3,
    hooks_reach=frozenset({"pre_compaction"}),
    mcp_tool="mcp__continuity__{}",
    first_request="GROW",
    own_transcript=lambda run, session: rendered("codex", run.cli.rollout(session)),
    # Codex compacts before its next request; its summary request has no tools
    compacted=lambda run: run.model.after(lambda e: not e.is_main_turn),
    away=[GROW, SAVE, "AFTER: go on."],
    away_limit_s=15,
    away_spooled=frozenset({"session-start", "user-prompt-submit", "pre-compaction"}),
)
GEMINI = Harness(
    "gemini",
    clis.GEMINI,
    gemini,
    # three headless prompts, the later two resuming the first; the second saves a digest
    work=[CONSTRAINT, SAVE, "AFTER: where were we?"],
    turns=3,
    sessions=1,
    hooks_reach=frozenset({"agent"}),
    mcp_tool="mcp_continuity_{}",
    first_request="We must never edit",
    own_transcript=lambda run, session: "".join(rendered("gemini", p) for p in run.cli.chat_files(session)),
    away=[CONSTRAINT, SAVE],
    away_limit_s=20,
    away_spooled=frozenset({"session-start", "user-prompt-submit", "session-end"}),
)
OPENCODE = Harness(
    "opencode",
    clis.OPENCODE,
    opencode,
    # fills its context and compacts, saves a digest, then starts a sub-agent
    work=[GROW, SAVE, "CALL_AGENT: go."],
    turns=3,
    hooks_reach=frozenset({"pre_compaction"}),
    mcp_tool="continuity_{}",
    first_request="GROW",
    compacted=Run.after_compaction,
    away=[CONSTRAINT, "AFTER: go on."],
    away_limit_s=30,
    away_spooled=frozenset({"session-start", "user-prompt-submit"}),
)
OPENCLAW = Harness(
    "openclaw",
    clis.OPENCLAW,
    openclaw,
    # a turn that states a constraint, a checkpoint of it, then a turn in a new process
    work=[CONSTRAINT, CHECKPOINT, OPENCLAW_AFTER],
    turns=2,
    away=[CONSTRAINT],
    away_limit_s=120,
    away_spooled=frozenset({"session-start", "user-prompt-submit"}),
)
HARNESSES = {h.name: h for h in (CLAUDE_CODE, CODEX, GEMINI, OPENCODE, OPENCLAW)}
