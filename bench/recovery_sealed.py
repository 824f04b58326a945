"""The sealed recovery set (``bench/sealed/``): real-format Claude Code transcripts played through the
client's *installed* Claude Code hook commands, scored by counts only.

Written apart from the fact extractor (its code was never read while writing the sessions), so its
figures say how recovery does on sessions nobody tuned for. **Sealed**: the report gives counts by
kind and per session, never which facts were missed, never block text, never probes. Once someone
tunes on its misses, it is no longer sealed (docs/BENCHMARKS.md).

Per session, in a temporary HOME and project directory:

1. ``continuity login`` and ``continuity install claude-code`` (user scope, ``--no-mcp``), as a user
   would; the hook commands are read back from the written ``~/.claude/settings.json`` and run
   through ``sh -c`` with Claude Code's stdin JSON, ``CONTINUITY_BACKGROUND=0`` (synchronous);
2. the decoy session (an earlier session of the same project): SessionStart ``startup``, its
   prompts, SessionEnd;
3. the main session: SessionStart ``startup``; per prompt, UserPromptSubmit with the transcript file
   holding the lines before the prompt, then the turn's lines appended (and Stop, had the install
   written one: Claude Code's has none); a ``continuity remember "…"`` typed in Claude Code's bash
   mode (``<bash-input>``) runs the client's ``continuity remember``; every ``PAUSE_EVERY`` prompts a
   bounded wait for the periodic checkpoint, as a user's pause would give;
4. the auto-compaction, in Claude Code's order (below): PreCompact (trigger ``auto``), SessionStart
   ``compact`` (**the block after compaction**), PostCompact with ``compact_summary``, then the
   ``compact_boundary`` and ``isCompactSummary`` lines land in the transcript file;
5. ``/clear``: SessionEnd reason ``clear``, SessionStart ``clear`` under a new session id (**the
   block after /clear**).

Claude Code's order at a compaction (``services/compact/compact.ts``, ``compactConversation``, as
the source dumps show it): ``executePreCompactHooks`` → the summary is streamed → post-compaction
attachments → ``processSessionStartHooks('compact')`` → ``createCompactBoundaryMessage`` and the
``isCompactSummary`` user message → ``executePostCompactHooks({trigger, compactSummary})`` → return;
the REPL then writes the boundary and summary messages to the transcript. So SessionStart(compact)
runs *before* PostCompact, and both before the compaction's lines are in the file.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from bench.recovery_scenarios import found_normalized, normalize
from bench.recovery_suite import (
    CLAUDE_CAP,
    duplicate_file_lines,
    fragment_lines,
    local_stack,
    missing_probes,
    stale_as_current,
    wrong_closures,
)
from bench.sealed._writer import KINDS
from bench.sealed._writer import PROJECT as PLACEHOLDER

SEALED = Path(__file__).resolve().with_name("sealed")
CURRENT = "current"
PAUSE_EVERY = 25
CHECKPOINT_WAIT_S = 4.0
HOOK_TIMEOUT_S = 30
REMEMBER = re.compile(r'^<bash-input>continuity remember "(.*)"</bash-input>$', re.DOTALL)


# ---------------------------------------------------------------------------------------------
# The set
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fact:
    session: str
    id: str
    kind: str
    turn: int
    probes: tuple[str, ...]
    status: str = CURRENT
    stale: str | None = None

    @property
    def current(self) -> bool:
        return self.status == CURRENT


@dataclass
class SealedSession:
    name: str
    stack: str
    project: str
    session_id: str
    decoy_session_id: str
    prompts: int
    main: list[str]  # JSONL lines with the project placeholder
    decoy: list[str]
    facts: list[Fact]
    decoys: list[Fact]


def load(names: Iterable[str] | None = None, folder: Path = SEALED) -> list[SealedSession]:
    wanted = set(names or ())
    out = []
    for path in sorted(folder.glob("*.facts.json")):
        meta = json.loads(path.read_text())
        name = meta["session"]
        if wanted and name not in wanted:
            continue

        def fact(raw: dict[str, Any], name: str = name) -> Fact:
            return Fact(
                name,
                raw["id"],
                raw.get("kind", "decoy"),
                raw["turn"],
                tuple(raw["probes"]),
                raw.get("status", CURRENT),
                raw.get("stale"),
            )

        out.append(
            SealedSession(
                name=name,
                stack=meta["stack"],
                project=meta["project"],
                session_id=meta["session_id"],
                decoy_session_id=meta["decoy_session_id"],
                prompts=meta["prompts"],
                main=(folder / f"{name}.jsonl").read_text().splitlines(),
                decoy=(folder / f"{name}.decoy.jsonl").read_text().splitlines(),
                facts=[fact(f) for f in meta["facts"]],
                decoys=[fact(f) for f in meta["decoy_facts"]],
            )
        )
    return out


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def transcript_text(lines: Sequence[str]) -> str:
    """Every string of a transcript's lines, normalized (what probes are checked against)."""
    return normalize("\n".join(s for line in lines for s in _strings(json.loads(line))))


def validate(session: SealedSession) -> list[str]:
    """Every probe planted where its facts file says, decoy probes only in the decoy, kinds known."""
    problems = []
    main, decoy = transcript_text(session.main), transcript_text(session.decoy)
    for fact in session.facts:
        where = f"{session.name}/{fact.id}"
        if fact.kind not in KINDS:
            problems.append(f"{where}: unknown kind {fact.kind}")
        if not fact.current and not fact.stale:
            problems.append(f"{where}: {fact.status} without a stale probe")
        for probe in (*fact.probes, *([fact.stale] if fact.stale else [])):
            if not found_normalized(main, probe):
                problems.append(f"{where}: probe not in the transcript")
            if fact.current and found_normalized(decoy, probe):
                problems.append(f"{where}: probe also in the decoy session")
    for fact in session.decoys:
        for probe in fact.probes:
            if not found_normalized(decoy, probe) or found_normalized(main, probe):
                problems.append(f"{session.name}/{fact.id}: decoy probe misplaced")
    if not 22 <= session.prompts <= 150:
        problems.append(f"{session.name}: {session.prompts} prompts")
    return problems


# ---------------------------------------------------------------------------------------------
# Scoring (counts only)
# ---------------------------------------------------------------------------------------------


@dataclass
class SessionResult:
    name: str
    stack: str
    prompts: int
    block_compact: str
    block_clear: str
    recalled_compact: dict[str, bool] = field(default_factory=dict)  # fact id -> recalled
    recalled_clear: dict[str, bool] = field(default_factory=dict)
    stale_compact: dict[str, bool] = field(default_factory=dict)
    stale_clear: dict[str, bool] = field(default_factory=dict)
    leaked: dict[str, bool] = field(default_factory=dict)
    kinds: dict[str, str] = field(default_factory=dict)
    answers: list[int] = field(default_factory=list)  # every SessionStart answer's length
    seconds: float = 0.0


def score(
    session: SealedSession, block_compact: str, block_clear: str, answers: Sequence[int]
) -> SessionResult:
    result = SessionResult(session.name, session.stack, session.prompts, block_compact, block_clear)
    result.answers = list(answers)
    clear_text = normalize(block_clear)
    for fact in session.facts:
        result.kinds[fact.id] = fact.kind
        if fact.current:
            result.recalled_compact[fact.id] = not missing_probes(block_compact, fact.probes)
            result.recalled_clear[fact.id] = not missing_probes(block_clear, fact.probes)
        else:
            assert fact.stale
            result.stale_compact[fact.id] = stale_as_current(block_compact, fact.stale)
            result.stale_clear[fact.id] = stale_as_current(block_clear, fact.stale)
    for fact in session.decoys:
        result.leaked[fact.id] = any(found_normalized(clear_text, p) for p in fact.probes)
    return result


def _share(hits: int, total: int) -> float:
    return hits / total if total else 0.0


def kind_counts(results: Sequence[SessionResult]) -> dict[str, tuple[int, int]]:
    """Per kind: (recalled, total) of current facts; ``clear`` facts are judged on the /clear block,
    every other kind on the block after compaction."""
    counts: dict[str, tuple[int, int]] = {}
    for kind in KINDS:
        hits = total = 0
        for r in results:
            source = r.recalled_clear if kind == "clear" else r.recalled_compact
            for fact_id, ok in source.items():
                if r.kinds[fact_id] == kind:
                    total += 1
                    hits += ok
        counts[kind] = (hits, total)
    return counts


def precision(blocks: Iterable[str]) -> dict[str, float]:
    """The three precision counts, summed over ``blocks``."""
    listed = list(blocks)
    return {
        "recovery_duplicate_file_lines": float(sum(duplicate_file_lines(b) for b in listed)),
        "recovery_fragment_lines": float(sum(fragment_lines(b) for b in listed)),
        "recovery_wrong_closures": float(sum(wrong_closures(b) for b in listed)),
    }


def figures(results: Sequence[SessionResult]) -> dict[str, float]:
    compact = [ok for r in results for ok in r.recalled_compact.values()]
    clear = [ok for r in results for ok in r.recalled_clear.values()]
    stale = [hit for r in results for hit in r.stale_compact.values()]
    stale_clear = [hit for r in results for hit in r.stale_clear.values()]
    leaks = [hit for r in results for hit in r.leaked.values()]
    out = {
        "recovery_fact_recall_sealed": _share(sum(compact), len(compact)),
        "recovery_fact_recall_clear_sealed": _share(sum(clear), len(clear)),
        "recovery_stale_rate_sealed": _share(sum(stale), len(stale)),
        "recovery_stale_rate_clear_sealed": _share(sum(stale_clear), len(stale_clear)),
        "recovery_wrong_session_rate_sealed": _share(sum(leaks), len(leaks)),
        "injection_over_cap_sealed": float(sum(n > CLAUDE_CAP for r in results for n in r.answers)),
    }
    for kind, (hits, total) in kind_counts(results).items():
        out[f"recovery_recall_sealed_{kind}"] = _share(hits, total)
    blocks = [b for r in results for b in (r.block_compact, r.block_clear)]
    out.update({f"{name}_sealed": value for name, value in precision(blocks).items()})
    return out


def report(results: Sequence[SessionResult], out: IO[str] | None = None) -> None:
    """Counts only: by kind, then per session. Never which fact, never a probe, never block text."""
    stream = out or sys.stderr
    print("sealed set: counts only (which facts were missed is deliberately not shown)", file=stream)
    print(f"{'kind':<20} {'recalled':>9}", file=stream)
    for kind, (hits, total) in kind_counts(results).items():
        print(f"{kind:<20} {hits:>4}/{total:<4}", file=stream)
    head = (
        f"{'session':<14} {'stack':<36} {'prompts':>7} {'compact':>8} {'clear':>7} {'stale':>6} "
        f"{'leaks':>5} {'chars':>11} {'secs':>5}"
    )
    print(head, file=stream)
    print("-" * len(head), file=stream)
    for r in results:
        print(
            f"{r.name:<14} {r.stack[:36]:<36} {r.prompts:>7} "
            f"{sum(r.recalled_compact.values()):>3}/{len(r.recalled_compact):<4} "
            f"{sum(r.recalled_clear.values()):>3}/{len(r.recalled_clear):<3} "
            f"{sum(r.stale_compact.values()):>2}/{len(r.stale_compact):<3} "
            f"{sum(r.leaked.values())}/{len(r.leaked):<3} "
            f"{len(r.block_compact):>5}/{len(r.block_clear):<5} {r.seconds:>5.1f}",
            file=stream,
        )


# ---------------------------------------------------------------------------------------------
# Claude Code, as far as hooks go
# ---------------------------------------------------------------------------------------------


def _continuity() -> str:
    beside = Path(sys.executable).with_name("continuity")
    return str(beside) if beside.exists() else (shutil.which("continuity") or "continuity")


class Harness:
    """A temporary HOME with the client logged in and its Claude Code hooks installed."""

    def __init__(self, url: str, token: str, base: Path) -> None:
        self.url, self.token = url, token
        self.home = base / "home"
        self.home.mkdir(parents=True)
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("CONTINUITY_", "CLAUDE"))}
        self.env.update({"HOME": str(self.home), "CONTINUITY_BACKGROUND": "0"})
        self.env["PATH"] = f"{Path(_continuity()).parent}{os.pathsep}{self.env.get('PATH', '')}"
        self.cli(["login", "--url", url, "--token", token], self.home)
        self.cli(["install", "claude-code", "--no-mcp"], self.home)
        settings = json.loads((self.home / ".claude" / "settings.json").read_text())
        self.hooks: dict[str, list[tuple[str | None, str]]] = {}
        for event, groups in settings["hooks"].items():
            for group in groups:
                for hook in group.get("hooks", []):
                    self.hooks.setdefault(event, []).append((group.get("matcher"), hook["command"]))
        self.http: Any = None

    def cli(self, args: list[str], cwd: Path) -> str:
        done = subprocess.run(
            [_continuity(), *args], cwd=cwd, env=self.env, capture_output=True, text=True, timeout=60
        )
        if done.returncode != 0:
            raise RuntimeError(f"continuity {args[0]}: {done.returncode} {done.stderr[-500:]}")
        return done.stdout

    def run(self, event: str, payload: dict[str, Any], project: Path, match: str | None = None) -> str:
        """Run every installed command for ``event`` (whose matcher takes ``match``); the last
        ``additionalContext`` printed."""
        context = ""
        env = {**self.env, "CLAUDE_PROJECT_DIR": str(project)}
        for matcher, command in self.hooks.get(event, []):
            if matcher and match is not None and not re.fullmatch(matcher, match):
                continue
            done = subprocess.run(
                ["sh", "-c", command],
                input=json.dumps(payload),
                cwd=project,
                env=env,
                capture_output=True,
                text=True,
                timeout=HOOK_TIMEOUT_S,
            )
            if done.returncode != 0:
                raise RuntimeError(f"{event} hook exited {done.returncode}: {done.stderr[-500:]}")
            if done.stdout.strip():
                output = json.loads(done.stdout)
                context = str((output.get("hookSpecificOutput") or {}).get("additionalContext") or context)
        return context

    def checkpoints(self, session_id: str) -> int:
        return len(self.checkpoint_list(session_id))

    def checkpoint_list(self, session_id: str) -> list[dict[str, Any]]:
        """The service's checkpoints of the session, oldest first (none if it answers otherwise)."""
        import requests

        if self.http is None:
            self.http = requests.Session()
            self.http.headers["Authorization"] = f"Bearer {self.token}"
        quoted = urllib.parse.quote(session_id, safe="")
        answer = self.http.get(f"{self.url}/api/checkpoints/{quoted}", timeout=60)
        return list(answer.json().get("checkpoints", [])) if answer.status_code == 200 else []


def _is_prompt(record: dict[str, Any]) -> bool:
    if record.get("type") != "user" or record.get("isMeta") or record.get("isCompactSummary"):
        return False
    content = (record.get("message") or {}).get("content")
    return isinstance(content, str) and not content.startswith("<")


class ClaudeCode:
    """One project folder as Claude Code lives in it, as far as hooks go: the sessions' transcript
    files where Claude Code keeps them (``~/.claude/projects/<folder, / as ->/<session>.jsonl``),
    the hooks' common fields, the SessionStart answers. Used by ``Player`` and by
    ``bench/real_sessions.py``."""

    def __init__(self, harness: Harness, project: Path) -> None:
        self.h = harness
        self.project = project
        self.project.mkdir(parents=True)
        self.answers: list[int] = []
        self.folder = harness.home / ".claude" / "projects" / str(self.project).replace("/", "-")
        self.folder.mkdir(parents=True)

    def path(self, session_id: str) -> Path:
        return self.folder / f"{session_id}.jsonl"

    def base(self, session_id: str, event: str) -> dict[str, Any]:
        return {
            "session_id": session_id,
            "transcript_path": str(self.path(session_id)),
            "cwd": str(self.project),
            "hook_event_name": event,
        }

    def start(self, session_id: str, source: str) -> str:
        payload = {**self.base(session_id, "SessionStart"), "source": source}
        block = self.h.run("SessionStart", payload, self.project, match=source)
        self.answers.append(len(block))
        return block

    def append(self, session_id: str, lines: Sequence[str]) -> None:
        """Claude Code writes a turn's lines to the file; a bash-mode ``continuity remember`` runs
        the client's command once its lines are written."""
        with self.path(session_id).open("a") as out:
            for line in lines:
                out.write(line + "\n")
                out.flush()
                content = (json.loads(line).get("message") or {}).get("content")
                found = REMEMBER.match(content) if isinstance(content, str) else None
                if found:
                    self.h.cli(["remember", found.group(1)], self.project)

    def wait(self, session_id: str, seen: int) -> int:
        deadline = time.monotonic() + CHECKPOINT_WAIT_S
        count = self.h.checkpoints(session_id)
        while count <= seen and time.monotonic() < deadline:
            time.sleep(0.2)
            count = self.h.checkpoints(session_id)
        return count


class Player(ClaudeCode):
    """Plays one sealed session (decoy first) through the installed hooks."""

    def __init__(self, harness: Harness, session: SealedSession, base: Path, pause: bool = True) -> None:
        super().__init__(harness, base / session.project)
        self.s = session
        self.pause = pause
        escaped = json.dumps(str(self.project))[1:-1]
        self.main = [line.replace(PLACEHOLDER, escaped) for line in session.main]
        self.decoy = [line.replace(PLACEHOLDER, escaped) for line in session.decoy]

    def turns(self, session_id: str, lines: list[str]) -> None:
        """Every prompt: UserPromptSubmit on the file as it stood, then the turn's lines (and Stop)."""
        records = [json.loads(line) for line in lines]
        starts = [i for i, r in enumerate(records) if _is_prompt(r)]
        self.path(session_id).write_text("".join(line + "\n" for line in lines[: starts[0]]))
        seen = self.h.checkpoints(session_id) if self.pause else 0
        for number, (index, end) in enumerate(zip(starts, [*starts[1:], len(lines)], strict=True), 1):
            prompt = records[index]["message"]["content"]
            payload = {
                **self.base(session_id, "UserPromptSubmit"),
                "prompt": prompt,
                "permission_mode": "default",
            }
            self.h.run("UserPromptSubmit", payload, self.project)
            self.append(session_id, lines[index:end])
            if "Stop" in self.h.hooks:
                self.h.run("Stop", {**self.base(session_id, "Stop"), "stop_hook_active": False}, self.project)
            if self.pause and number % PAUSE_EVERY == 0:
                seen = self.wait(session_id, seen)

    def play(self) -> SessionResult:
        started = time.perf_counter()
        s = self.s
        self.start(s.decoy_session_id, "startup")
        self.turns(s.decoy_session_id, self.decoy)
        end = {**self.base(s.decoy_session_id, "SessionEnd"), "reason": "prompt_input_exit"}
        self.h.run("SessionEnd", end, self.project)

        records = [json.loads(line) for line in self.main]
        boundary = next(i for i, r in enumerate(records) if r.get("subtype") == "compact_boundary")
        summary = str(records[boundary + 1]["message"]["content"])
        self.start(s.session_id, "startup")
        self.turns(s.session_id, self.main[:boundary])

        compact = {**self.base(s.session_id, "PreCompact"), "trigger": "auto", "custom_instructions": ""}
        self.h.run("PreCompact", compact, self.project, match="auto")
        block_compact = self.start(s.session_id, "compact")
        post = {**self.base(s.session_id, "PostCompact"), "trigger": "auto", "compact_summary": summary}
        self.h.run("PostCompact", post, self.project, match="auto")
        self.append(s.session_id, self.main[boundary:])

        self.h.run("SessionEnd", {**self.base(s.session_id, "SessionEnd"), "reason": "clear"}, self.project)
        block_clear = self.start(f"{s.session_id[:-4]}c1ea", "clear")

        result = score(s, block_compact, block_clear, self.answers)
        result.seconds = time.perf_counter() - started
        return result


def run_sessions(
    url: str, token: str, sessions: Sequence[SealedSession], pause: bool = True
) -> list[SessionResult]:
    base = Path(tempfile.mkdtemp(prefix="continuity-sealed-"))
    try:
        harness = Harness(url, token, base)
        return [Player(harness, session, base / "projects", pause).play() for session in sessions]
    finally:
        shutil.rmtree(base, ignore_errors=True)


def run_sealed(names: Iterable[str] | None = None) -> list[SessionResult]:
    sessions = load(names)
    problems = [p for session in sessions for p in validate(session)]
    if problems:
        raise ValueError(f"the sealed set is invalid ({len(problems)} problems)")
    with local_stack() as (url, token):
        return run_sessions(url, token, sessions)


def main(argv: list[str] | None = None) -> int:
    started = time.perf_counter()
    results = run_sealed(argv or None)
    report(results, sys.stderr)
    for metric, value in sorted(figures(results).items()):
        print(f"{metric:<44} {value:.3f}")
    print(f"{time.perf_counter() - started:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
