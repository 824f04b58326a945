"""Real sessions: twelve real Claude Code transcripts replayed through the client's *installed* Claude
Code hooks, and the recovery blocks scored against facts written by reading the transcripts.

The set lives outside the project (``<repo>/../shared/real_sessions``, or ``$CONTINUITY_REAL_SESSIONS``):
``transcripts/<id>.jsonl``, ``facts/<id>.json`` and ``score.py``, with a README that defines the replay.
Nothing of it is copied here; ``score.py`` is run as it is (``score.py BLOCKS_DIR FACTS_DIR --json``).
It is a development set: unlike ``bench/sealed/``, the report names the missed facts, and the blocks
are saved (``build/real_sessions/<id>.block.md``) to be read.

The replay (the README's protocol), per session, on one local stack and one temporary HOME where
``continuity login`` and ``continuity install claude-code --no-mcp`` ran (``recovery_sealed.Harness``:
the hook commands are read back from ``~/.claude/settings.json`` and run through ``sh -c`` with
``CONTINUITY_BACKGROUND=0``):

1. a project folder of its own whose path has a space in it (``<tmp>/My Projects/<id> app``); the
   transcript's own ``cwd`` is rewritten to it in every line (the JSON-escaped path, wherever it
   occurs in a string: the ``cwd`` field, tool inputs, tool outputs);
2. SessionStart ``startup`` for the transcript's ``sessionId``;
3. the lines appended one by one to ``~/.claude/projects/<folder, / as ->/<sessionId>.jsonl``; after
   each typed prompt (``prompt_text``), UserPromptSubmit with it;
4. after the last line: the client's spool empty (``$HOME/.continuity/spool``) and the session's
   checkpoints settled (unchanged for ``SETTLE_QUIET_S``, at most ``SETTLE_MAX_S``);
5. PreCompact (trigger ``auto``), the checkpoints settle again (a real compaction takes the model
   tens of seconds), a compact boundary and a generic compact summary appended (one that says
   nothing of the session), then SessionStart ``compact``: its ``additionalContext`` is the block.

A transcript that holds a real compaction (``compact_boundary``) is replayed up to its first boundary
only; PreCompact takes the boundary's trigger, the real boundary and summary lines are appended, then
PostCompact (if the install wrote one) with that summary as ``compact_summary``, then SessionStart
``compact``: the README's order (Claude Code itself runs SessionStart before PostCompact).

``python -m bench.real_sessions [ids...] [--out DIR]`` replays (all sessions, or those named) and
scores; ``--score-only DIR`` rescores saved blocks. ``bench/bench_real_sessions.py`` is the bench.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import IO, Any

from bench.recovery_sealed import ClaudeCode, Harness
from bench.recovery_suite import local_stack

REPO = Path(__file__).resolve().parents[1]
SET_ENV = "CONTINUITY_REAL_SESSIONS"
OUT = REPO / "build" / "real_sessions"
SETTLE_QUIET_S = 2.0
SETTLE_MAX_S = 40.0
SPOOL_MAX_S = 60.0
POLL_S = 0.25
SCORE_TIMEOUT_S = 300

# What a user line holds when nobody typed it as a prompt: a built-in slash command and its output,
# bash mode (``!``) and its output, a background task's report, an interruption.
NOT_TYPED = (
    "<command-name>",
    "<command-message>",
    "<command-args>",
    "<local-command",
    "<bash-input>",
    "<bash-stdout>",
    "<bash-stderr>",
    "<task-notification>",
    "[Request interrupted by user",
)
# IDE context Claude Code puts beside the typed words, as a text block of its own.
IDE_CONTEXT = re.compile(r"<(ide_[a-z_]+)>.*</\1>", re.DOTALL)

GENERIC_SUMMARY = (
    "This session is being continued from a previous conversation that ran out of context. "
    "The summary below covers the earlier portion of the conversation.\n\n"
    "Summary:\nThe earlier portion of the conversation was summarized; no details of it are "
    "repeated here.\n\n"
    "If you need specific details from before compaction (like exact code snippets, error messages, "
    "or content you generated), read the full transcript at: {transcript}\n"
    "Please continue the conversation from where we left off without asking the user any further "
    "questions. Continue with the last task that you were asked to work on."
)


# ---------------------------------------------------------------------------------------------
# The set
# ---------------------------------------------------------------------------------------------


def set_folder() -> Path:
    """Where the set is: ``$CONTINUITY_REAL_SESSIONS``, else ``<repo>/../shared/real_sessions``."""
    return Path(os.environ.get(SET_ENV) or REPO.parent / "shared" / "real_sessions")


def absent(folder: Path | None = None) -> str | None:
    """Why the set cannot be used (None when it can)."""
    folder = folder or set_folder()
    if not folder.is_dir():
        return f"{folder} not found (the real-session set; ${SET_ENV} names another place)"
    for needed in ("transcripts", "facts", "score.py"):
        if not (folder / needed).exists():
            return f"{folder / needed} not found (is {folder} the real-session set?)"
    if not ids(folder):
        return f"no transcripts in {folder / 'transcripts'}"
    return None


def ids(folder: Path | None = None) -> list[str]:
    return sorted(p.stem for p in ((folder or set_folder()) / "transcripts").glob("*.jsonl"))


@dataclass(frozen=True)
class Transcript:
    id: str
    session_id: str
    cwd: str
    lines: list[str]


def load(session: str, folder: Path | None = None) -> Transcript:
    lines = ((folder or set_folder()) / "transcripts" / f"{session}.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines if line.strip()]
    cwds = Counter(r["cwd"] for r in records if isinstance(r.get("cwd"), str))
    sessions = Counter(r["sessionId"] for r in records if isinstance(r.get("sessionId"), str))
    return Transcript(
        session, sessions.most_common(1)[0][0], cwds.most_common(1)[0][0], [x for x in lines if x.strip()]
    )


def rewrite_cwd(line: str, old: str, new: str) -> str:
    """The line with the path ``old`` replaced by ``new`` wherever it occurs in a JSON string (the
    ``cwd`` field, tool inputs and outputs): its escaped forms are replaced in the text, so the rest
    of the line keeps its bytes; the result is checked to be one JSON value still."""
    out = line
    for ascii_only in (True, False):
        was = json.dumps(old, ensure_ascii=ascii_only)[1:-1]
        if was in out:
            out = out.replace(was, json.dumps(new, ensure_ascii=ascii_only)[1:-1])
    if out != line:
        json.loads(out)
    return out


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [
        b["text"]
        for b in content
        if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
    ]


def prompt_text(record: Mapping[str, Any]) -> str | None:
    """The prompt of a typed-prompt line, else None: a ``user`` line that is not meta, not a
    sidechain, not a compact summary, not a tool result, not a built-in slash command (nor its
    output), not bash mode, not a background task's report, not an interruption. A list content's
    text blocks are the prompt, less IDE context blocks (``<ide_selection>`` …) beside them."""
    if record.get("type") != "user" or record.get("isMeta") or record.get("isSidechain"):
        return None
    if record.get("isCompactSummary"):
        return None
    content = (record.get("message") or {}).get("content")
    if isinstance(content, list) and any(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in content
    ):
        return None
    texts = [t for t in _texts(content) if not IDE_CONTEXT.fullmatch(t.strip())]
    text = "\n\n".join(texts)
    if not text.strip() or text.lstrip().startswith(NOT_TYPED):
        return None
    return text


def compaction_at(records: Sequence[Mapping[str, Any]]) -> tuple[int, int] | None:
    """(first ``compact_boundary`` line, its compact summary line), if the transcript holds one."""
    for i, record in enumerate(records):
        if record.get("type") == "system" and record.get("subtype") == "compact_boundary":
            for j in range(i + 1, len(records)):
                if records[j].get("isCompactSummary"):
                    return i, j
            raise ValueError(f"line {i + 1}: a compact boundary without a compact summary after it")
    return None


# ---------------------------------------------------------------------------------------------
# The replay
# ---------------------------------------------------------------------------------------------


@dataclass
class Replayed:
    id: str
    block: str = ""
    prompts: int = 0
    lines: int = 0
    real_compaction: bool = False
    checkpoints: int = 0
    seconds: float = 0.0
    error: str = ""


def _timestamp_after(records: Sequence[Mapping[str, Any]], seconds: float) -> str:
    for record in reversed(records):
        stamp = record.get("timestamp")
        if isinstance(stamp, str):
            try:
                when = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
            except ValueError:
                continue
            later = when + timedelta(seconds=seconds)
            return later.strftime("%Y-%m-%dT%H:%M:%S.") + f"{later.microsecond // 1000:03d}Z"
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")


class Replay(ClaudeCode):
    """One real session replayed in its own project folder (README, "How a block is made")."""

    def __init__(self, harness: Harness, transcript: Transcript, projects: Path) -> None:
        super().__init__(harness, projects / f"{transcript.id} app")
        self.t = transcript
        self.sid = transcript.session_id
        self.lines = [rewrite_cwd(line, transcript.cwd, str(self.project)) for line in transcript.lines]
        self.records = [json.loads(line) for line in self.lines]

    def hook(self, event: str, match: str | None = None, **fields: Any) -> str:
        return self.h.run(event, {**self.base(self.sid, event), **fields}, self.project, match=match)

    def play(self) -> Replayed:
        started = time.perf_counter()
        out = Replayed(self.t.id)
        real = compaction_at(self.records)
        end = real[0] if real else len(self.lines)
        out.real_compaction = real is not None
        self.start(self.sid, "startup")
        written = 0
        for i in range(end):
            prompt = prompt_text(self.records[i])
            if prompt is None:
                continue
            self.append(self.sid, self.lines[written : i + 1])
            written = i + 1
            mode = self.records[i].get("permissionMode") or "default"
            self.hook("UserPromptSubmit", prompt=prompt, permission_mode=mode)
            out.prompts += 1
        self.append(self.sid, self.lines[written:end])
        out.lines = end
        self.settle()

        trigger = "auto"
        if real:
            metadata = self.records[real[0]].get("compactMetadata") or {}
            trigger = str(metadata.get("trigger") or "auto")
        self.hook("PreCompact", match=trigger, trigger=trigger, custom_instructions="")
        self.settle()
        if real:
            self.append(self.sid, self.lines[real[0] : real[1] + 1])
            summary = "\n\n".join(_texts((self.records[real[1]].get("message") or {}).get("content")))
            if "PostCompact" in self.h.hooks:
                self.hook("PostCompact", match=trigger, trigger=trigger, compact_summary=summary)
        else:
            self.append(self.sid, self.generic_compaction(self.records[:end]))
        out.block = self.start(self.sid, "compact")
        out.checkpoints = self.h.checkpoints(self.sid)
        out.seconds = time.perf_counter() - started
        return out

    def generic_compaction(self, before: Sequence[Mapping[str, Any]]) -> list[str]:
        """A compact boundary and a compact summary as Claude Code writes them (modelled on
        dev-11's), the summary saying nothing of the session."""
        last: Mapping[str, Any] = next((r for r in reversed(before) if r.get("uuid")), {})
        common = {
            "isSidechain": False,
            "userType": "external",
            "cwd": str(self.project),
            "sessionId": self.sid,
            "version": last.get("version", "2.1.39"),
            "gitBranch": last.get("gitBranch", ""),
        }
        boundary_id, summary_id = str(uuid.uuid4()), str(uuid.uuid4())
        stamp = _timestamp_after(before, 30.0)
        size = sum(len(json.dumps(r)) for r in before)
        boundary = {
            "parentUuid": None,
            "logicalParentUuid": last.get("uuid"),
            **common,
            "type": "system",
            "subtype": "compact_boundary",
            "content": "Conversation compacted",
            "isMeta": False,
            "timestamp": stamp,
            "uuid": boundary_id,
            "level": "info",
            "compactMetadata": {"trigger": "auto", "preTokens": size // 4},
        }
        summary = {
            "parentUuid": boundary_id,
            **common,
            "type": "user",
            "message": {
                "role": "user",
                "content": GENERIC_SUMMARY.format(transcript=self.path(self.sid)),
            },
            "isVisibleInTranscriptOnly": True,
            "isCompactSummary": True,
            "uuid": summary_id,
            "timestamp": stamp,
        }
        return [json.dumps(boundary), json.dumps(summary)]

    def settle(self) -> None:
        """The client's spool empty, then the session's checkpoints unchanged for SETTLE_QUIET_S
        (at most SETTLE_MAX_S)."""
        from continuity_client.hook.spool import pending_files
        from continuity_client.setup.config import home_dir

        home = home_dir(self.h.env)
        deadline = time.monotonic() + SPOOL_MAX_S
        while pending_files(home):
            if time.monotonic() > deadline:
                raise RuntimeError(f"the client's spool still holds {pending_files(home)}")
            time.sleep(POLL_S)
        started = quiet_since = time.monotonic()
        seen = self.fingerprint()
        while time.monotonic() - quiet_since < SETTLE_QUIET_S and time.monotonic() - started < SETTLE_MAX_S:
            time.sleep(POLL_S)
            now = self.fingerprint()
            if now != seen:
                seen, quiet_since = now, time.monotonic()

    def fingerprint(self) -> str:
        listed = self.h.checkpoint_list(self.sid)
        return hashlib.sha256(json.dumps(listed, sort_keys=True).encode()).hexdigest()


def replay(
    sessions: Sequence[str] | None = None, out: Path = OUT, folder: Path | None = None
) -> list[Replayed]:
    """Replay the sessions (all by default) on a fresh local stack; blocks to ``out/<id>.block.md``.
    A session whose replay fails is reported with its error and left without a block (it scores 0)."""
    folder = folder or set_folder()
    chosen = list(sessions or ids(folder))
    out.mkdir(parents=True, exist_ok=True)
    results = []
    base = Path(tempfile.mkdtemp(prefix="continuity-real-"))
    try:
        with local_stack() as (url, token):
            harness = Harness(url, token, base)
            for session in chosen:
                target = out / f"{session}.block.md"
                target.unlink(missing_ok=True)
                started = time.perf_counter()
                try:
                    result = Replay(harness, load(session, folder), base / "My Projects").play()
                except (RuntimeError, ValueError, subprocess.TimeoutExpired) as failed:
                    result = Replayed(session, error=str(failed)[:300])
                    result.seconds = time.perf_counter() - started
                    print(f"{session}: replay failed: {result.error}", file=sys.stderr)
                else:
                    target.write_text(result.block)
                results.append(result)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return results


# ---------------------------------------------------------------------------------------------
# Scoring (score.py beside the set, run as it is)
# ---------------------------------------------------------------------------------------------


def score(blocks: Path, sessions: Sequence[str] | None = None, folder: Path | None = None) -> dict[str, Any]:
    """score.py's rows for ``sessions`` (all by default), as its ``--json`` gives them."""
    folder = folder or set_folder()
    done = subprocess.run(
        [sys.executable, str(folder / "score.py"), str(blocks), str(folder / "facts"), "--json"],
        capture_output=True,
        text=True,
        timeout=SCORE_TIMEOUT_S,
    )
    if done.returncode != 0:
        raise RuntimeError(f"score.py exited {done.returncode}: {done.stderr[-500:]}")
    rows: dict[str, Any] = json.loads(done.stdout)["sessions"]
    for session, row in rows.items():
        # After a real compaction the agent reads the block beside the harness's own summary: the
        # must facts the block misses but that summary carries.
        facts = json.loads((folder / "facts" / f"{session}.json").read_text())["facts"]
        held = {f["id"] for f in facts if f.get("in_cc_summary") is True}
        row["missing_but_in_summary"] = [i for i in row["missing"] if i in held]
    if sessions:
        unknown = [s for s in sessions if s not in rows]
        if unknown:
            raise ValueError(f"no facts for {' '.join(unknown)}")
        rows = {s: rows[s] for s in sessions}
    return rows


def _must(row: Mapping[str, Any]) -> int:
    return len(row["present"]) + len(row["missing"])


def figures(rows: Mapping[str, Mapping[str, Any]]) -> dict[str, float]:
    """Totals over ``rows`` (score.py's own formulas) and the recall of each session."""
    present = sum(len(r["present"]) for r in rows.values())
    must = sum(_must(r) for r in rows.values())
    lines = sum(r["lines"] for r in rows.values())
    out = {
        "real_sessions_recall": present / must if must else 0.0,
        # What the successor has: the block, and after a real compaction the summary beside it.
        "real_sessions_recall_beside_summary": (
            (present + sum(len(r.get("missing_but_in_summary", ())) for r in rows.values())) / must
            if must
            else 0.0
        ),
        "real_sessions_stale_current": float(sum(len(r["stale_shown_as_current"]) for r in rows.values())),
        "real_sessions_unsupported_share": (
            sum(r["unsupported_lines"] for r in rows.values()) / lines if lines else 0.0
        ),
        "real_sessions_block_chars_max": float(max((r["chars"] for r in rows.values()), default=0)),
        "real_sessions_brought_back": float(sum(len(r["brought_back"]) for r in rows.values())),
        "real_sessions_brought_back_of": float(sum(len(r["summary_dropped"]) for r in rows.values())),
    }
    for session, r in rows.items():
        key = re.sub(r"\W", "_", session)
        out[f"real_sessions_recall_{key}"] = len(r["present"]) / _must(r) if _must(r) else 0.0
    return out


def report(
    rows: Mapping[str, Mapping[str, Any]],
    replayed: Sequence[Replayed] = (),
    out: IO[str] | None = None,
) -> None:
    """One row per session, then the totals; the missed facts and the stale ones shown as current."""
    stream = out or sys.stderr
    by_id = {r.id: r for r in replayed}
    head = (
        f"{'session':<8} {'prompts':>7} {'recall':>12} {'stale':>5} {'unsupported':>13} "
        f"{'chars':>6} {'back':>6} {'secs':>6}  missing"
    )
    print(head, file=stream)
    print("-" * len(head), file=stream)
    for session, r in rows.items():
        played = by_id.get(session)
        must = _must(r)
        share = len(r["present"]) / must if must else 0.0
        back = f"{len(r['brought_back'])}/{len(r['summary_dropped'])}" if r["summary_dropped"] else "-"
        missing = " ".join(r["missing"]) or "-"
        if r["stale_shown_as_current"]:
            missing += f"; stale as current {' '.join(r['stale_shown_as_current'])}"
        if played and played.error:
            missing += f"; FAILED: {played.error[:120]}"
        unsupported = r["unsupported_lines"] / r["lines"] if r["lines"] else 0.0
        prompts = str(played.prompts) if played else "-"
        seconds = f"{played.seconds:.1f}" if played else "-"
        print(
            f"{session:<8} {prompts:>7} {len(r['present']):>3}/{must:<3} {share:>4.2f} "
            f"{len(r['stale_shown_as_current']):>5} {r['unsupported_lines']:>3}/{r['lines']:<3} "
            f"{unsupported:>4.2f} {r['chars']:>6} {back:>6} {seconds:>6}  {missing}",
            file=stream,
        )
    f = figures(rows)
    total_back = f"{f['real_sessions_brought_back']:.0f}/{f['real_sessions_brought_back_of']:.0f}"
    total_prompts = str(sum(r.prompts for r in replayed)) if replayed else "-"
    total_seconds = f"{sum(r.seconds for r in replayed):.1f}" if replayed else "-"
    print(
        f"{'total':<8} {total_prompts:>7} {f['real_sessions_recall']:>12.2f} "
        f"{f['real_sessions_stale_current']:>5.0f} {f['real_sessions_unsupported_share']:>13.2f} "
        f"{f['real_sessions_block_chars_max']:>6.0f} {total_back:>6} {total_seconds:>6}  "
        "(recall and unsupported: shares of the totals; chars: the largest block)",
        file=stream,
    )


def bench(sessions: Sequence[str] | None = None, out: Path = OUT) -> dict[str, float]:
    """Replay, score, report to stderr; the figures."""
    replayed = replay(sessions, out)
    rows = score(out, [r.id for r in replayed])
    report(rows, replayed)
    print(f"blocks in {out}", file=sys.stderr)
    return figures(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.real_sessions", description=__doc__.split("\n")[0])
    parser.add_argument("ids", nargs="*", help="sessions to replay (default: all), e.g. dev-05")
    parser.add_argument("--out", type=Path, default=OUT, help=f"where blocks go (default {OUT})")
    parser.add_argument(
        "--score-only", type=Path, metavar="DIR", help="rescore the blocks in DIR; replay nothing"
    )
    args = parser.parse_args(argv)
    reason = absent()
    if reason:
        print(f"real sessions: skipped: {reason}", file=sys.stderr)
        return 2
    unknown = [s for s in args.ids if s not in ids()]
    if unknown:
        parser.error(f"unknown sessions {' '.join(unknown)} (known: {' '.join(ids())})")
    started = time.perf_counter()
    if args.score_only:
        rows = score(args.score_only, args.ids or None)
        report(rows)
        result = figures(rows)
    else:
        result = bench(args.ids or None, args.out)
    for metric, value in sorted(result.items()):
        print(f"{metric:<36} {value:.3f}")
    print(f"{time.perf_counter() - started:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
