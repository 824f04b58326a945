"""Load and faults: a fleet of agents against the local stack, one fault kind at a time, and what was lost.

``tests/e2e/fleet.py`` runs the agents (most posting HTTP directly, some through the real client
CLI with its spool) and compares what they sent with what the service holds. Per fault kind
(``none``, ``kill``, ``sqs``, ``aws``, ``writer``, ``network``), the keys end in ``_<kind>``:

- load_hooks_acknowledged: hooks answered 2xx (direct) or run to exit 0 (CLI: delivered or spooled);
- load_hooks_lost: acknowledged or spooled, and not stored (a prompt, remember or digest whose tag
  is in none of its session's checkpoints; a sub-agent's transcript missing); goal 0;
- load_checkpoints_duplicated: a prompt covered by two checkpoints, a digest stored twice; goal 0;
- load_transcript_bytes_lost: UTF-8 bytes sent and not stored as sent; goal 0;
- load_p95_hook_ms: direct agents, first attempt to acknowledgement (retries included);
- load_errors_5xx: 5xx answers the direct agents saw;
- load_client_worst_hook_ms / load_client_over_timeout_ms: the slowest ``continuity hook`` run
  (process start included), and how far past its event's own deadline it ran (goal <= 0).

The size: ``BENCH_LOAD_AGENTS`` (default 20), ``BENCH_LOAD_PROMPTS`` per agent (default 60),
``BENCH_LOAD_CLI_AGENTS`` (default 3), ``BENCH_LOAD_FAULTS`` (comma-separated kinds, default all).
The issue's 50 agents x 200 prompts takes far longer than 10 minutes per kind on a 2-core machine
shared with other work; see docs/BENCHMARKS.md. Run alone with ``python -m bench.bench_load``.
"""

from __future__ import annotations

import json
import os
import sys

from tests.e2e.fleet import FAULTS, Fleet, Outcome, run_fleet

METRICS = (
    "load_hooks_acknowledged",
    "load_hooks_lost",
    "load_checkpoints_duplicated",
    "load_transcript_bytes_lost",
    "load_p95_hook_ms",
    "load_errors_5xx",
    "load_client_worst_hook_ms",
    "load_client_over_timeout_ms",
)
DETAIL_LINES = 12


def fleet_from_environment() -> Fleet:
    agents = int(os.environ.get("BENCH_LOAD_AGENTS", "20"))
    return Fleet(
        agents=agents,
        prompts=int(os.environ.get("BENCH_LOAD_PROMPTS", "60")),
        sessions=2,
        cli_agents=min(agents, int(os.environ.get("BENCH_LOAD_CLI_AGENTS", "3"))),
    )


def table(outcomes: list[Outcome]) -> str:
    """Fault kinds as rows, the figures as columns (names without ``load_``)."""
    names = [m.removeprefix("load_") for m in METRICS]
    widths = [max(len(n), 9) for n in names]
    lines = [
        "  ".join(["fault    ", *(n.rjust(w) for n, w in zip(names, widths, strict=True))]),
    ]
    for outcome in outcomes:
        figures = outcome.figures()
        cells = [
            f"{figures[f'{m}_{outcome.fault}']:.0f}".rjust(w) for m, w in zip(METRICS, widths, strict=True)
        ]
        lines.append("  ".join([outcome.fault.ljust(9), *cells]))
    return "\n".join(lines)


def run() -> dict[str, float]:
    fleet = fleet_from_environment()
    kinds = [k.strip() for k in os.environ.get("BENCH_LOAD_FAULTS", ",".join(FAULTS)).split(",") if k.strip()]
    outcomes, figures = [], {}
    for kind in kinds:
        outcome = run_fleet(kind, fleet)
        outcomes.append(outcome)
        figures.update(outcome.figures())
        print(
            f"[load {kind}] {fleet.agents} agents ({fleet.cli_agents} CLI) x {fleet.prompts} prompts: "
            f"{outcome.seconds:.0f} s, {outcome.faults_injected} faults logged by the stack",
            file=sys.stderr,
        )
        for line in [*outcome.notes, *outcome.details][:DETAIL_LINES]:
            print(f"  {line}", file=sys.stderr)
        more = len(outcome.notes) + len(outcome.details) - DETAIL_LINES
        if more > 0:
            print(f"  … {more} more", file=sys.stderr)
    print(f"\nload and faults ({fleet.agents} agents x {fleet.prompts} prompts)\n{table(outcomes)}\n")
    return figures


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
