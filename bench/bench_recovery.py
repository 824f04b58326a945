"""Recovery quality: what the recovery block brings back after a compaction and after ``/clear``.

Twelve scripted Claude Code sessions (``bench/scenarios/main.json``: backend, frontend, data,
infra, docs, mobile, ML, security, devtools, embedded; 20 to 180 prompts, real transcript turns
as filler) are played against a local stack of its own over HTTP (``bench/recovery_suite.py``).

- recovery_fact_recall / _clear: share of the current planted facts (constraints, decisions, open
  questions, answers, findings, files, remembered facts, next steps, the last instruction) whose
  probes all appear in the block after compaction / after /clear (goal ≥ 0.95);
- recovery_stale_rate / _clear: share of superseded or answered facts whose old statement appears
  on a block line not marked superseded/answered/resolved/closed (goal ≤ 0.05);
- recovery_block_chars_p95: p95 of the two blocks' lengths over all scenarios;
- injection_over_cap: session-start answers longer than the ``injection_cap_chars`` they were
  given (Claude Code 10,000, Codex 7,500, Gemini CLI 9,000; goal 0);
- recovery_wrong_session_rate: share of the decoy session's facts found after /clear (goal 0);
- recovery_recall_<kind>, recovery_recall_by_<source>: recall after compaction per kind of fact
  and per who stated it, for diagnosis.

A per-scenario table and every missed fact with its probe go to stderr.

The fact extractor was tuned while looking at those twelve, so their figures may flatter it. Five
held-out scenarios (``bench/scenarios/heldout.json``: game netcode, compiler, e-commerce search,
healthcare integration, CI/CD migration; 28 to 165 prompts) are then played on a stack of their own
and scored the same way: recovery_fact_recall_heldout, recovery_fact_recall_clear_heldout and
recovery_stale_rate_heldout, with their own table and misses on stderr.

The extractor was then tuned on the held-out misses too, so a second held-out set
(``bench/scenarios/heldout2.json``: browser extension, scientific simulation, school admin, bike
routing, video transcoding; 29 to 158 prompts) is played last, on a stack of its own, into
recovery_fact_recall_heldout2, recovery_fact_recall_clear_heldout2 and recovery_stale_rate_heldout2,
with its own table and misses on stderr.
"""

from __future__ import annotations

import sys

from bench.recovery_scenarios import HELDOUT, HELDOUT2
from bench.recovery_sealed import figures as sealed_figures
from bench.recovery_sealed import report as sealed_report
from bench.recovery_sealed import run_sealed
from bench.recovery_suite import figures, report, run_suite

HELDOUT_FIGURES = (
    "recovery_fact_recall",
    "recovery_fact_recall_clear",
    "recovery_stale_rate",
    "recovery_duplicate_file_lines",
    "recovery_fragment_lines",
    "recovery_wrong_closures",
)


def run() -> dict[str, float]:
    results = run_suite()
    report(results, sys.stderr)
    out = figures(results)

    heldout = run_suite(scenarios=HELDOUT)
    print("\nheld-out scenarios (never seen while tuning the extractor):", file=sys.stderr)
    report(heldout, sys.stderr)
    scored = figures(heldout)
    out.update({f"{name}_heldout": scored[name] for name in HELDOUT_FIGURES})

    heldout2 = run_suite(scenarios=HELDOUT2)
    print("\nsecond held-out set (written after tuning on both sets above):", file=sys.stderr)
    report(heldout2, sys.stderr)
    scored2 = figures(heldout2)
    out.update({f"{name}_heldout2": scored2[name] for name in HELDOUT_FIGURES})

    sealed = run_sealed()
    print("\nsealed set (bench/sealed/, written apart from the extractor; counts only):", file=sys.stderr)
    sealed_report(sealed, sys.stderr)
    out.update(sealed_figures(sealed))
    return out


if __name__ == "__main__":
    for metric, value in sorted(run().items()):
        print(f"{metric:<36} {value:.3f}")
