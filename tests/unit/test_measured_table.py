"""The README's measured table is generated from bench/results.json (``bench/readme_table.py``)."""

from __future__ import annotations

from bench import readme_table
from bench.readme_table import Row


def test_the_readme_measured_table_is_the_one_generated_from_the_results() -> None:
    readme = readme_table.README.read_text(encoding="utf-8")

    assert readme_table.render(readme, readme_table.read_results()) == readme, "run: make measured-table"


def test_a_row_shows_its_figures_against_the_bench_goals_and_names_what_missed() -> None:
    row = Row("requests", ("hook_requests_per_prompt", "hook_requests_per_prompt_with_transcript"))

    text = readme_table.row_text(
        row, {"hook_requests_per_prompt": 1.4, "hook_requests_per_prompt_with_transcript": 2.7}
    )

    le = "\N{LESS-THAN OR EQUAL TO}"
    assert text == f"| requests | 1.40 / 2.70 | {le} 1.5 / {le} 2.5 | **missed**: 2.70 |"


def test_a_figure_the_results_do_not_hold_is_a_dash_and_a_row_without_any_is_not_measured() -> None:
    row = Row("cold start", ("cold_start_ratio", "cold_start_handler_ms"))

    assert readme_table.row_text(row, {"cold_start_ratio": 1.2}).startswith(
        "| cold start | 1.20 / \N{EN DASH} |"
    )
    assert readme_table.row_text(row, {}).endswith("| not measured |")


def test_a_pattern_takes_the_worst_of_every_key_it_matches_so_a_new_kind_joins_its_row() -> None:
    row = Row("hooks lost", ("load_hooks_lost_*",), 0)
    results = {"load_hooks_lost_kill": 0.0, "load_hooks_lost_network": 0.0}

    assert readme_table.row_text(row, results).endswith("| 0 | \N{LESS-THAN OR EQUAL TO} 0 | met |")
    results["load_hooks_lost_disk_full"] = 3.0  # a fault kind added later
    assert readme_table.row_text(row, results).endswith("| **missed**: 3 |")
