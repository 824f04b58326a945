"""The compaction nudge on real Claude Code sessions: does it come before the harness compacts?

Corpus: ``../shared/corpus/claude-code/real_projects/`` (real ``~/.claude/projects`` sessions from
the claude-code-log project, Claude Code 1.0.24 to 2.1.114; see its README). Without it the module
says so and reports nothing.

What is replayed. Each main transcript (sub-agent files are not sessions of their own) is written
out as it grew. At each real user prompt - a typed prompt: not meta lines, tool results, slash and
local command echoes, ``!`` shell input/output, interruption markers or compact summaries - the
client's own transcript cursor (``continuity_client.hook.transcript_cursor``) reads what was added, as
the hook does, and gives what the hook sends: ``context_tokens`` (the harness's own figure: the
last main-chain assistant usage) and ``transcript_chars``. Those bodies go through the hooks
handler in-process on moto with the default config (a 200,000-token window, the models' window
here, and the nudge at 70 %: 140,000 tokens).

When the harness compacts. Claude Code compacts before a request whose context would pass its
auto-compact point: 155,000 tokens on a 200,000-token window in this corpus (the ``/context``
output recorded in it, Claude Code 2.0.55: "Autocompact buffer: 45.0k tokens"); Claude Code 2.1
compacts later, at about 167,000 (``nudge_fired_before_compaction_167k``). It can compact inside a
turn, at any API call, while the nudge only comes with a user prompt: the nudge counts when the
answer to a prompt before the first call past the point carried it.

Which sessions count, honestly. No session in this corpus compacts, and none even reaches the
nudge threshold: the largest context is 134,276 tokens. So none "reaches a compaction" as
recorded (``nudge_sessions_compacted`` = 0). Instead, every session whose context grows after its
first prompt that reports a figure counts (``nudge_sessions_qualified``), replayed as if it had
started with older context in front of it: every figure raised by the same D tokens, D chosen so
that the compaction point falls at each of ``LEVELS`` levels spread evenly over the range the
session covered after that first figure. The turn-by-turn growth - which decides whether some
prompt lands between 70 % and the compaction point before a turn jumps past it - is the session's
own. A session's score is the share of its levels where the nudge came first; the figure is the
mean over sessions. Not replayed: compactions placed before the first figure (the first turn),
since what the raised session's first prompt would report is not in the file; prompts without a
figure send none. A session that does compact in the file counts as recorded, up to its first
compaction, without raising.

The old estimate (``nudge_fired_before_compaction_estimate``): the same replays with only
``transcript_chars`` (readable characters since the last compaction, ÷ 4 against the window), the
older part raised at the session's own ratio of that estimate to the harness's figure.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "claude-code" / "real_projects"
PROJECT = "/bench/nudge"
COMPACT_AT = 155_000  # Claude Code 2.0.55 in the corpus: 200k window - 45k autocompact buffer
COMPACT_AT_LATE = 167_000  # Claude Code 2.1: ~83.5 % of a 200k window
LEVELS = 20
NUDGE_MARK = "session_digest"
USAGE_KEYS = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
NOT_PROMPTS = (
    "<command-name>",
    "<command-message>",
    "<command-args>",
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
    "Caveat: The messages below were generated",
    "<bash-input>",
    "<bash-stdout>",
    "<bash-stderr>",
    "[Request interrupted",
)


@dataclass(frozen=True)
class Prompt:
    calls_before: int  # main-chain API calls in the file before the prompt
    context_tokens: int | None  # what the hook reports
    transcript_chars: int


@dataclass
class Session:
    name: str
    calls: list[int] = field(default_factory=list)  # the context of each main-chain API call
    prompts: list[Prompt] = field(default_factory=list)
    compacted_after: int | None = None  # prompts before the first compaction in the file

    @property
    def first_figure(self) -> int | None:
        return next((p.context_tokens for p in self.prompts if p.context_tokens is not None), None)

    @property
    def estimate_ratio(self) -> float:
        """The old estimate's share of the harness's figure, at the last prompt with both."""
        last = next((p for p in reversed(self.prompts) if p.context_tokens), None)
        if last is None or not last.context_tokens:
            return 0.0
        return last.transcript_chars / 4 / last.context_tokens

    def qualifies(self) -> bool:
        if self.compacted_after is not None:
            return self.compacted_after > 0
        first = self.first_figure
        return first is not None and bool(self.calls) and max(self.calls) > first


def is_prompt(record: object) -> bool:
    if not isinstance(record, dict) or record.get("type") != "user":
        return False
    if record.get("isMeta") or record.get("isSidechain") or record.get("isCompactSummary"):
        return False
    content = (record.get("message") or {}).get("content")
    if isinstance(content, list):
        if any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
            return False
        content = "\n".join(
            str(b.get("text") or "") for b in content if isinstance(b, dict) and b.get("type") == "text"
        )
    text = content.strip() if isinstance(content, str) else ""
    return bool(text) and not text.startswith(NOT_PROMPTS)


def is_compaction(record: object) -> bool:
    """A compaction line, or the summary that starts the context again (older versions write no line)."""
    if not isinstance(record, dict) or record.get("isSidechain"):
        return False
    return record.get("subtype") == "compact_boundary" or bool(record.get("isCompactSummary"))


def call_context(record: object) -> int | None:
    """The context of an API call: a main-chain assistant entry's input-side usage."""
    if not isinstance(record, dict) or record.get("type") != "assistant" or record.get("isSidechain"):
        return None
    usage = (record.get("message") or {}).get("usage")
    if not isinstance(usage, dict):
        return None
    return sum(v for k in USAGE_KEYS if isinstance(v := usage.get(k), int)) or None


def transcripts() -> list[Path]:
    """The corpus's main session transcripts (sub-agent files left out), non-empty."""
    return sorted(
        path
        for path in CORPUS.glob("*/*.jsonl")
        if not path.name.startswith("agent-") and path.stat().st_size > 0
    )


def read_session(path: Path, work: Path) -> Session:
    """Grow a copy of the transcript line by line; at each prompt, what the client's hook reports."""
    from continuity_client.hook import harness, transcript_cursor

    session = Session(path.parent.name + "/" + path.stem)
    copy = work / f"{path.stem}.jsonl"
    home = str(work / "home")
    with path.open("rb") as source, copy.open("wb") as sink:
        for line in source:
            try:
                record = json.loads(line)
            except ValueError:
                record = None
            if is_prompt(record):
                sink.flush()
                delta = transcript_cursor.next_delta(home, path.stem, str(copy), harness.CLAUDE_CODE)
                if delta is not None:
                    session.prompts.append(
                        Prompt(len(session.calls), delta.context_tokens, delta.chars_since_compact)
                    )
            sink.write(line if line.endswith(b"\n") else line + b"\n")
            if session.compacted_after is None and is_compaction(record):
                session.compacted_after = len(session.prompts)
            context = call_context(record)
            if context is not None:
                session.calls.append(context)
    return session


def placements(session: Session, compact_at: int) -> Iterator[tuple[int, int]]:
    """(raise D, prompts before the compaction) for each level where the compaction is placed."""
    if session.compacted_after is not None:
        yield 0, session.compacted_after
        return
    first = session.first_figure
    assert first is not None
    peak = max(session.calls)
    for k in range(LEVELS):
        level = first + (peak - first) * (k + 0.5) / LEVELS
        crossing = next(i for i, context in enumerate(session.calls) if context >= level)
        yield compact_at - round(level), sum(p.calls_before <= crossing for p in session.prompts)


def nudged_before(
    service: Any, key: str, session: Session, raise_by: int, before: int, figures: bool
) -> bool:
    """Replay the ``before`` prompts that came before the compaction; True once an answer nudges."""
    chars_raise = round(session.estimate_ratio * raise_by * 4)
    for n, prompt in enumerate(session.prompts[:before]):
        body: dict[str, Any] = {
            "session_id": key,
            "cwd": PROJECT,
            "prompt": f"prompt {n}",
            "transcript_chars": max(0, prompt.transcript_chars + chars_raise),
        }
        if figures and prompt.context_tokens is not None:
            body["context_tokens"] = max(0, prompt.context_tokens + raise_by)
        status, answer = service.hook("user-prompt-submit", body)
        assert status == 200, answer
        if NUDGE_MARK in json.dumps(answer):
            return True
    return False


def score(service: Any, session: Session, compact_at: int, figures: bool, tag: str) -> float:
    outcomes = [
        nudged_before(service, f"{session.name}:{tag}:{n}", session, raise_by, before, figures)
        for n, (raise_by, before) in enumerate(placements(session, compact_at))
    ]
    return sum(outcomes) / len(outcomes)


@contextmanager
def settings(**values: str) -> Iterator[None]:
    """The nudge's default config (window and threshold unset), ``values`` set; restored after."""
    names = ("CONTINUITY_CONTEXT_WINDOW_TOKENS", "CONTINUITY_NUDGE_THRESHOLD_PERCENT", *values)
    saved = {name: os.environ.get(name) for name in names}
    for name in names:
        os.environ.pop(name, None)
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def run() -> dict[str, float]:
    if not CORPUS.is_dir():
        print(f"[bench_nudge] skipped: the real transcript corpus is not at {CORPUS}", file=sys.stderr)
        return {}
    from bench.bench_requests import moto_service

    work = Path(tempfile.mkdtemp(prefix="bench-nudge-"))
    try:
        sessions = [read_session(path, work) for path in transcripts()]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    qualified = [s for s in sessions if s.qualifies()]
    if not qualified:
        print("[bench_nudge] no session of the corpus qualifies", file=sys.stderr)
        return {"nudge_sessions_qualified": 0.0}
    # Thousands of replayed prompts a minute, under one token: the rate limit is not what is measured.
    with settings(CONTINUITY_RATE_LIMIT_PER_MINUTE="100000"), moto_service() as (service, _):
        new = [score(service, s, COMPACT_AT, True, "new") for s in qualified]
        late = [score(service, s, COMPACT_AT_LATE, True, "late") for s in qualified]
        old = [score(service, s, COMPACT_AT, False, "old") for s in qualified]
    for session, a, b, c in zip(qualified, new, late, old, strict=True):
        print(f"[bench_nudge] {session.name}: {a:.2f} (167k: {b:.2f}, estimate: {c:.2f})", file=sys.stderr)
    return {
        "nudge_fired_before_compaction": sum(new) / len(new),
        "nudge_fired_before_compaction_167k": sum(late) / len(late),
        "nudge_fired_before_compaction_estimate": sum(old) / len(old),
        "nudge_sessions_qualified": float(len(qualified)),
        "nudge_sessions_compacted": float(sum(s.compacted_after is not None for s in sessions)),
    }


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
