"""The README's measured table, generated from ``bench/results.json``: ``python -m bench.readme_table``.

``ROWS`` declares what the README shows, in the reader's words: each row names its figures (keys
of results.json, or a ``*`` pattern standing for the worst of every key it matches, so a new fault
kind of the load bench joins its row by itself) and how many decimals they take. The goals and
whether each is met come from ``bench/run.py``'s ``GOALS``, the bars ``make bench`` prints. A
figure results.json does not hold shows as a dash: the table reads whatever keys exist. The table sits
between two markers in README.md; ``--check`` changes nothing and exits 1 when the README's copy is
not the generated one (a test does the same). ``make bench`` rewrites it after every run.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from bench.run import GOALS, LOAD_GOALS, RESULTS
from infra.generated import replace_section

README = Path(__file__).resolve().parents[1] / "README.md"
START = "<!-- measured-table: generated from bench/results.json by `python -m bench.readme_table` -->"
END = "<!-- /measured-table -->"
HEADER = "| what | figures | goal | |\n|---|---|---|---|\n"
MISSING = "\N{EN DASH}"
SYMBOLS = {"<=": "\N{LESS-THAN OR EQUAL TO}", ">=": "\N{GREATER-THAN OR EQUAL TO}"}


@dataclass(frozen=True)
class Row:
    what: str
    figures: tuple[str, ...]  # keys of results.json; "prefix_*": the largest of the matching keys
    decimals: int = 2


ROWS: tuple[Row, ...] = (
    Row(
        "AWS requests per prompt: the hook / with a live transcript",
        ("hook_requests_per_prompt", "hook_requests_per_prompt_with_transcript"),
    ),
    Row(
        "AWS requests per session start, 10 / 10,000 checkpoints stored",
        ("recovery_requests_10", "recovery_requests_10000"),
        0,
    ),
    Row("Lambda cold start ÷ a bare `import boto3`", ("cold_start_ratio",)),
    Row("the client's hook to its first request ÷ a bare `python -c pass`", ("client_first_request_ratio",)),
    Row(
        "transcript characters sent ÷ new / stored ÷ sent (compressed)",
        ("transcript_bytes_ratio", "transcript_bytes_stored_ratio"),
    ),
    Row(
        "USD per 100,000 prompts / without live transcripts",
        ("cost_per_100k_prompts_usd", "cost_per_100k_prompts_without_transcripts_usd"),
        3,
    ),
    Row(
        "recovery on real Claude Code sessions (../shared/real_sessions): must-know facts present / beside "
        "the harness's summary / stale shown as current / lines carrying no fact",
        (
            "real_sessions_recall",
            "real_sessions_recall_beside_summary",
            "real_sessions_stale_current",
            "real_sessions_unsupported_share",
        ),
        3,
    ),
    Row(
        "the same: the largest block (chars) / facts the harness's summary dropped, brought back (of 4)",
        ("real_sessions_block_chars_max", "real_sessions_brought_back"),
        0,
    ),
    Row(
        "recovery on the main suite: fact recall / after `/clear` / stale facts",
        ("recovery_fact_recall", "recovery_fact_recall_clear", "recovery_stale_rate"),
        3,
    ),
    Row(
        "the same on held-out set 1",
        ("recovery_fact_recall_heldout", "recovery_fact_recall_clear_heldout", "recovery_stale_rate_heldout"),
        3,
    ),
    Row(
        "the same on held-out set 2",
        (
            "recovery_fact_recall_heldout2",
            "recovery_fact_recall_clear_heldout2",
            "recovery_stale_rate_heldout2",
        ),
        3,
    ),
    Row(
        "the same on the sealed set (real-format sessions through the installed hooks)",
        ("recovery_fact_recall_sealed", "recovery_fact_recall_clear_sealed", "recovery_stale_rate_sealed"),
        3,
    ),
    Row(
        "wrong closures: main / held-out 1 / held-out 2 / sealed",
        (
            "recovery_wrong_closures",
            "recovery_wrong_closures_heldout",
            "recovery_wrong_closures_heldout2",
            "recovery_wrong_closures_sealed",
        ),
        0,
    ),
    Row(
        "injections over the harness's cap / recoveries from a wrong session",
        ("injection_over_cap", "recovery_wrong_session_rate"),
        0,
    ),
    Row(
        "hand-off to the next session: facts found, both / Codex / Claude Code receiving; given twice",
        ("handoff_recall", "handoff_recall_codex", "handoff_recall_claude_code", "handoff_redelivered"),
        3,
    ),
    Row("compaction nudge before Claude Code compacts (real sessions)", ("nudge_fired_before_compaction",)),
    Row(
        "a second clone (another path, the same remote) recovers the project's work / another branch is"
        " handed it",
        ("cross_machine_recovery_rate", "cross_branch_handed_rate"),
    ),
    Row(
        "tenants at once: records in a wrong tenant / valid hooks refused / records lost or doubled",
        ("isolation_wrong_tenant_records", "isolation_valid_hooks_401", "isolation_records_lost_or_doubled"),
        0,
    ),
    Row(
        "load and faults, the worst fault kind: hooks lost / checkpoints doubled / transcript bytes lost"
        " / ms past the client's deadline",
        (
            "load_hooks_lost_*",
            "load_checkpoints_duplicated_*",
            "load_transcript_bytes_lost_*",
            "load_client_over_timeout_ms_*",
        ),
        0,
    ),
    Row(
        "ms a real Claude Code prompt gains from our hooks: local stack / a service 200 ms away",
        ("hook_added_ms_per_prompt", "hook_added_ms_per_prompt_slow_service"),
        1,
    ),
    Row("ms from spawning `continuity mcp` to its `initialize` answer", ("mcp_start_ms",), 0),
    Row(
        "redaction: MB/s (whole text / per record), recall, false positives",
        (
            "redaction_mb_per_s",
            "redaction_record_mb_per_s",
            "redaction_recall",
            "redaction_false_positive_rate",
        ),
    ),
    Row(
        "pruner reads per item retired (deleted or left to TTL), 1k / 100k stored",
        ("pruner_read_per_deleted_1k", "pruner_read_per_deleted_100k"),
    ),
    Row(
        "search ms, the service's own: 10 / 50 / 200 sessions / 200 of 2,000",
        ("search_own_ms_10", "search_own_ms_50", "search_own_ms_200", "search_own_ms_200_of_2000"),
        0,
    ),
    Row(
        "dashboard on the local stack: ms to the sessions page (500 stored) / the projects page (200)"
        " / cold search of 200",
        (
            "dashboard_sessions_first_render_ms_500",
            "dashboard_projects_first_render_ms_200",
            "search_cold_ms_200_local",
        ),
        0,
    ),
    Row(
        "dashboard API requests per page: sessions / a session / projects",
        (
            "dashboard_requests_sessions_page",
            "dashboard_requests_session_page",
            "dashboard_requests_projects_page",
        ),
        0,
    ),
)


def goal(key: str) -> tuple[str, float] | None:
    """The bar ``make bench`` holds a figure to: by its key, or for the load bench by its prefix."""
    key = key.removesuffix("_*")
    return GOALS.get(key) or LOAD_GOALS.get(key) or LOAD_GOALS.get(key.rsplit("_", 1)[0])


def value(results: Mapping[str, float], key: str) -> float | None:
    if "*" in key:
        found = [figure for name, figure in results.items() if fnmatch.fnmatchcase(name, key)]
        return max(found) if found else None
    return results.get(key)


def met(op: str, target: float, figure: float) -> bool:
    return figure <= target if op == "<=" else figure >= target


def row_text(row: Row, results: Mapping[str, float]) -> str:
    figures = [value(results, key) for key in row.figures]
    texts = [MISSING if f is None else f"{f:,.{row.decimals}f}" for f in figures]
    bars = [goal(key) for key in row.figures]
    said: list[str] = []
    for bar in bars:
        text = f"{SYMBOLS[bar[0]]} {bar[1]:,g}" if bar else MISSING
        if not said or said[-1] != text:
            said.append(text)
    judged = [(bar, f, t) for bar, f, t in zip(bars, figures, texts, strict=True) if bar and f is not None]
    missed = [t for bar, f, t in judged if not met(*bar, f)]
    if not any(bars):
        goals, verdict = "", ""
    elif not judged:
        goals, verdict = " / ".join(said), "not measured"
    else:
        goals, verdict = " / ".join(said), f"**missed**: {', '.join(missed)}" if missed else "met"
    cells = (row.what, " / ".join(texts), goals, verdict)
    return "|" + "|".join(f" {cell} " if cell else " " for cell in cells) + "|"


def table(results: Mapping[str, float]) -> str:
    return HEADER + "\n".join(row_text(row, results) for row in ROWS) + "\n"


def read_results(path: Path = RESULTS) -> dict[str, float]:
    return dict(json.loads(path.read_text(encoding="utf-8")))


def render(readme: str, results: Mapping[str, float]) -> str:
    """``readme`` with the text between the markers replaced by the generated table."""
    return replace_section(readme, START, END, table(results))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.readme_table", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when README.md's table differs")
    args = parser.parse_args(argv)
    current = README.read_text(encoding="utf-8")
    wanted = render(current, read_results())
    if args.check:
        if wanted != current:
            print("README.md's measured table is not the generated one: run python -m bench.readme_table")
            return 1
        return 0
    if wanted != current:
        README.write_text(wanted, encoding="utf-8")
        print(f"written the measured table in {README}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
