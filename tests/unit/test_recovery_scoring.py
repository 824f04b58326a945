"""The recovery-quality suite's scoring (bench/recovery_suite.py): recall, staleness, leaks, figures.

Pure functions on hand-written blocks; no stack. The last tests check that the shipped scenarios,
the main set and the two held-out sets, plant every probe where they say and nowhere else (what the
scores rely on).
"""

from __future__ import annotations

import io

import pytest

from bench.recovery_scenarios import (
    AGENT,
    ANSWERED,
    CURRENT,
    DIGEST,
    HELDOUT,
    HELDOUT2,
    REMEMBER,
    SCENARIOS,
    SUPERSEDED,
    USER,
    Scenario,
    Script,
    answer,
    build,
    build_all,
    constraint,
    decision,
    found,
    last,
    question,
    remember,
    said,
    validate,
)
from bench.recovery_suite import (
    Answer,
    figures,
    missing_probes,
    p95,
    report,
    score,
    stale_as_current,
)

# --------------------------------------------------------------------------------------------
# Probe matching
# --------------------------------------------------------------------------------------------


def test_a_probe_matches_case_insensitively_with_whitespace_collapsed() -> None:
    block = "- Please NEVER touch the Migrations\n   folder (prompt 2)"

    assert missing_probes(block, ["migrations folder"]) == ()
    assert missing_probes(block, ["never touch", "migrations folder"]) == ()


def test_every_probe_of_a_fact_must_appear() -> None:
    assert missing_probes("Use Redis for the queue", ["Redis", "asynq"]) == ("asynq",)


def test_a_probe_does_not_match_inside_a_longer_word() -> None:
    assert not found("the outcome of the run", "UTC")
    assert found("All timestamps must be UTC.", "UTC")
    assert not found("int_user_days_v2 is new", "int_user_days")
    assert found("see `int_user_days`", "int_user_days")


def test_a_probe_with_punctuation_at_its_ends_matches_next_to_anything() -> None:
    assert found("moved it to the URL (?filters=a,b)", "?filters=")
    assert found("the checkout/ directory", "checkout/")
    assert found("pin ~> 5.60 everywhere", "~> 5.60")


def test_non_ascii_probes_match_whatever_the_unicode_normal_form() -> None:
    decomposed = "docs/sen\u0303al_cafe\u0301.md"  # NFD: n + combining tilde, e + combining acute

    assert found(f"Files: `{decomposed}`", "docs/señal_café.md")
    assert found("Owner: ZOË ÅNGSTRÖM", "Zoë Ångström")
    assert not found("Owner: Zoe Angstrom", "Zoë Ångström")


# --------------------------------------------------------------------------------------------
# Staleness
# --------------------------------------------------------------------------------------------


def test_an_old_statement_without_a_marker_is_stale() -> None:
    block = "### Decisions\n- Let's go with Redis for the job queue (prompt 3)\n- Amazon SQS (prompt 42)"

    assert stale_as_current(block, "Redis for the job queue")


@pytest.mark.parametrize(
    "line",
    [
        "- ~~Redis for the job queue~~ (superseded at prompt 42)",
        "- Redis for the job queue — SUPERSEDED by SQS",
        "- [closed] Redis for the job queue",
        "- Redis for the job queue (resolved)",
        "- Q: Redis for the job queue? Answered at prompt 9",
    ],
)
def test_an_old_statement_on_a_marked_line_is_not_stale(line: str) -> None:
    assert not stale_as_current(f"### No Longer Current\n{line}\n", "Redis for the job queue")


def test_negated_markers_do_not_count() -> None:
    assert stale_as_current("- unanswered: does the provider retry on a 409?", "retry on a 409")
    assert stale_as_current("- unresolved: does the provider retry on a 409?", "retry on a 409")


def test_a_marker_on_another_line_does_not_help() -> None:
    block = "### Superseded\n(none)\n### Decisions\n- Redis for the job queue"

    assert stale_as_current(block, "Redis for the job queue")


def test_one_unmarked_occurrence_is_enough() -> None:
    block = "- ~~Redis for the job queue~~ superseded\n### Recent\n- Let's go with Redis for the job queue"

    assert stale_as_current(block, "Redis for the job queue")


def test_a_statement_wrapped_over_lines_is_judged_on_the_lines_it_spans() -> None:
    wrapped = "- Let's go with Redis for\n  the job queue"

    assert stale_as_current(wrapped, "Redis for the job queue")
    assert not stale_as_current(wrapped + " (superseded)", "Redis for the job queue")
    assert stale_as_current("unrelated (closed)\n" + wrapped, "Redis for the job queue")


def test_an_absent_statement_is_not_stale() -> None:
    assert not stale_as_current("", "Redis")
    assert not stale_as_current("- Amazon SQS for the job queue", "Redis for the job queue")


# --------------------------------------------------------------------------------------------
# Scoring a script and the figures
# --------------------------------------------------------------------------------------------

TINY = Scenario(
    name="tiny",
    domain="backend",
    prompts=6,
    plants=(
        said(1, "Please never touch the migrations folder.", constraint("c-mig", "migrations folder")),
        said(2, "Let's go with Redis for the job queue.", decision("d-redis", "Redis", stale="with Redis")),
        said(
            3,
            "Open question: does the provider retry on a 409?",
            question("q-409", "retry on a 409", stale="on a 409"),
        ),
        remember(4, "r-legs", "Every journal entry has exactly two legs."),
        said(
            5,
            "Switch the queue to Amazon SQS instead. And the provider answered: only 5xx are retried.",
            decision("d-sqs", "Amazon SQS", closes="d-redis"),
            answer("a-409", "only 5xx are retried", closes="q-409"),
        ),
        last(6, "i-last", "Deploy the consumer to staging and stop."),
    ),
    decoy_prompts=2,
    decoy=(
        said(1, "Keep the CSV export under 10k rows per file.", constraint("x-rows", "10k rows per file")),
    ),
)


def tiny_script() -> Script:
    return build(TINY, pool=())  # synthetic filler only


def test_closed_facts_are_derived_from_what_closes_them() -> None:
    status = {f.id: (f.status, f.closed_by, f.closed_at) for f in tiny_script().facts}

    assert status["d-redis"] == (SUPERSEDED, "d-sqs", 5)
    assert status["q-409"] == (ANSWERED, "a-409", 5)
    assert status["c-mig"][0] == status["d-sqs"][0] == status["i-last"][0] == CURRENT


def test_the_transcript_carries_each_turn_as_readable_blocks() -> None:
    script = tiny_script()

    assert script.main.turns[0].text.startswith("User: Please never touch the migrations folder.\n\n")
    assert script.main.turns[3].remembers == ("Every journal entry has exactly two legs.",)
    assert all(turn.text.endswith("\n\n") for turn in script.main.turns)


def test_score_counts_recall_staleness_and_leaks_per_fact() -> None:
    script = tiny_script()
    compact = "\n".join(
        [
            "## Session Recovery Context",
            "- Please never touch the migrations folder.",
            "- Amazon SQS for the job queue",
            "- ~~Let's go with Redis~~ (superseded)",
            "- Does the provider retry on a 409?",
            "> Deploy the consumer to staging and stop.",
        ]
    )
    clear = compact + "\n- Keep the CSV export under 10k rows per file."

    result = score(script, compact, clear, [Answer("after compaction", "claude-code", 10_000, len(compact))])
    by_id = {r.fact.id: r for r in result.facts}

    assert by_id["c-mig"].recalled_compact and by_id["i-last"].recalled_clear
    assert by_id["r-legs"].missing_compact == ("Every journal entry has exactly two legs.",)
    assert by_id["a-409"].missing_clear == ("only 5xx are retried",)
    assert not by_id["d-redis"].stale_compact
    assert by_id["q-409"].stale_compact and by_id["q-409"].stale_clear
    assert [d.leaked for d in result.decoys] == [("10k rows per file",)]


def test_figures_pool_every_fact_of_every_scenario() -> None:
    script = tiny_script()
    everything = "\n".join(p for f in script.facts if f.status == CURRENT for p in f.probes)
    perfect = score(script, everything, everything, [Answer("start", "codex", 7_500, 100)])
    poor = score(
        script, "", "- Keep the CSV export under 10k rows per file.", [Answer("start", "codex", 7_500, 7_501)]
    )

    got = figures([perfect, poor])

    assert got["recovery_fact_recall"] == got["recovery_fact_recall_clear"] == 0.5
    assert got["recovery_recall_remember"] == got["recovery_recall_instruction"] == 0.5
    assert got["recovery_recall_by_user"] == 0.5
    assert got["recovery_stale_rate"] == 0.0
    assert got["recovery_wrong_session_rate"] == 0.5
    assert got["injection_over_cap"] == 1.0
    assert got["recovery_block_chars_p95"] == len(everything)
    assert "recovery_recall_question" not in got  # every question of TINY is answered


def test_figures_of_nothing_are_zero() -> None:
    assert figures([])["recovery_fact_recall"] == 0.0


def test_p95_is_the_nearest_rank() -> None:
    assert p95([]) == 0.0
    assert p95([5]) == 5.0
    assert p95(list(range(1, 101))) == 95.0
    assert p95(list(range(1, 21))) == 19.0


def test_the_report_names_each_missed_fact_and_its_probe() -> None:
    out = io.StringIO()

    report([score(tiny_script(), "", "")], out)

    text = out.getvalue()
    assert "tiny" in text and "tiny/c-mig (constraint, user @1): 'migrations folder'" in text
    assert "missed [compact+clear]" in text


# --------------------------------------------------------------------------------------------
# The scenarios themselves
# --------------------------------------------------------------------------------------------


def test_validate_finds_a_probe_planted_in_the_wrong_place() -> None:
    broken = Scenario(
        name="broken",
        domain="backend",
        prompts=3,
        plants=(
            said(1, "Never touch the migrations folder.", constraint("c-mig", "migrations folder")),
            said(2, "Use Redis.", decision("d-redis", "Redis", stale="Redis")),
            last(3, "i-last", "Leave the migrations folder alone and ship it."),
        ),
        decoy_prompts=1,
        decoy=(said(1, "Use the blue adapter.", decision("x-blue", "green adapter")),),
    )

    problems = "\n".join(validate(build(broken, pool=())))

    assert "c-mig: probe 'migrations folder' also in turn 3" in problems
    assert "x-blue: probe 'green adapter' not in its own statement" in problems


@pytest.fixture(scope="module")
def main_scripts() -> list[Script]:
    """The main set as ``build_all()`` builds it by default: built once here (about a second)."""
    return build_all()


def test_the_shipped_scenarios_are_valid_and_varied(main_scripts: list[Script]) -> None:
    scripts = main_scripts
    problems = [problem for script in scripts for problem in validate(script)]
    prompts = [script.scenario.prompts for script in scripts]

    assert problems == []
    assert len(scripts) >= 12
    assert all(20 <= n <= 200 for n in prompts) and sum(n >= 150 for n in prompts) >= 2
    assert {"backend", "frontend", "data", "infra", "docs"} <= {s.scenario.domain for s in scripts}
    assert all(script.closed and script.decoy_facts for script in scripts)


SETS = {"main": SCENARIOS, "heldout": HELDOUT, "heldout2": HELDOUT2}


@pytest.mark.parametrize("held_out", ["heldout", "heldout2"])
def test_the_heldout_scenarios_are_valid_new_and_varied(held_out: str, main_scripts: list[Script]) -> None:
    chosen = SETS[held_out]
    others = [s for name, scenarios in SETS.items() if name != held_out for s in scenarios]
    scripts = build_all(scenarios=chosen)
    problems = [problem for script in scripts for problem in validate(script)]
    prompts = sorted(script.scenario.prompts for script in scripts)
    facts = [f for script in scripts for f in script.facts]

    assert problems == []
    assert len(scripts) == 5
    assert sum(25 <= n <= 40 for n in prompts) == 2 and sum(60 <= n <= 90 for n in prompts) == 2
    assert prompts[-1] >= 150
    assert {s.name for s in chosen}.isdisjoint(s.name for s in others)
    assert {s.domain for s in chosen}.isdisjoint(s.domain for s in others)
    assert [s.scenario for s in main_scripts] == list(SCENARIOS)  # the default set stays the main one
    assert all(script.closed and script.decoy_facts for script in scripts)
    assert {"constraint", "decision", "question", "answer", "file", "remember", "instruction"} <= {
        f.kind for f in facts
    }
    assert {USER, AGENT, REMEMBER, DIGEST} <= {f.by for f in facts}
    by = {(f.scenario, f.id): f.by for f in facts}
    closers: dict[str, set[str]] = {f.status: set() for f in facts}
    for f in facts:
        if f.closed_by:
            closers[f.status].add(by[f.scenario, f.closed_by])
    assert closers[SUPERSEDED] >= {USER, AGENT} and closers[ANSWERED] >= {USER, AGENT}
    assert any(not f.probes[0].isascii() for f in facts if f.kind == "file")


# --------------------------------------------------------------------------------------------
# Precision of a block's lines: duplicate files, fragments, wrong closures
# --------------------------------------------------------------------------------------------

PRECISION_BLOCK = """## Session Recovery Context
### Files in Play
- `src/app.py` (edited at prompt 3)
- `./src/app.py` (read)
- `src/` (directory)
- `src/app_test.py` (created)
### Files Deleted
- `src/app.py` (deleted at prompt 9)
### Decisions
- Use Decimal for amounts, not floats (prompt 2)
- did that fix it (prompt 5)
- **no need to decide now** (agent, prompt 7, said 2 times)
- `src/app.py` stays (prompt 8)
### Open Questions and Blockers
- I never remember
- wait 800 ms between retries?
"""


def test_duplicate_file_lines_counts_exact_repeats_of_a_path_across_the_files_sections() -> None:
    from bench.recovery_suite import duplicate_file_lines

    # ./src/app.py repeats src/app.py, and so does the deleted entry; the directory is not counted,
    # nor is the path named again outside the Files sections.
    assert duplicate_file_lines(PRECISION_BLOCK) == 2
    assert duplicate_file_lines("### Files\n- `a.py`\n- `b.py`\n### Decisions\n- `a.py`") == 0
    assert duplicate_file_lines("") == 0


def test_fragment_lines_counts_bullets_without_a_content_term() -> None:
    from bench.recovery_suite import fragment_lines

    # "did that fix it", "no need to decide now", "I never remember"; a path or a number with its
    # unit is content, and Files sections are not judged.
    assert fragment_lines(PRECISION_BLOCK) == 3
    assert fragment_lines("- ok (prompt 4)\n- yes\n- 15m lease renewed every 30s") == 2
    assert fragment_lines("- `--format` (prompt 1)\n- camelCase name\n- 2 of them") == 1


def test_content_terms_are_identifiers_numbers_with_units_and_words_outside_the_stopwords() -> None:
    from bench.recovery_suite import bullet_text, content_terms

    assert content_terms("did that fix it") == set()
    assert content_terms("see internal/settle/worker.go") == {"internal/settle/worker.go"}
    assert content_terms("wait 800 ms") == {"800 ms", "wait"}
    assert content_terms("the cutoffs") == content_terms("cutoff")
    assert bullet_text("- ~~Redis~~ for **queues** (agent, prompt 3, said 2 times)") == "Redis for queues"


def test_wrong_closures_counts_answers_sharing_no_content_term_with_their_question() -> None:
    from bench.recovery_suite import wrong_closures

    block = (
        "### Answered\n"
        "- ~~which timezone are the cutoffs in?~~ — answered at prompt 9 by: finance says the cutoff is "
        "23:00 Amsterdam (prompt 9)\n"
        "- ~~which region runs the replica?~~ — answered at prompt 12 by: ok do it\n"
        "- ~~is the `settle_jobs` table needed?~~ — resolved at prompt 14 by: yes, `settle_jobs` stays\n"
        "- ~~max node count~~ — answered at prompt 20 by: Jonas said 96 vCPU\n"
    )

    assert wrong_closures(block) == 2
    assert wrong_closures("- plain line\n- ~~struck~~ (superseded)") == 0


# --------------------------------------------------------------------------------------------
# The sealed set: valid as planted (counts only; no fact is named here)
# --------------------------------------------------------------------------------------------


def test_the_sealed_set_plants_every_probe_where_its_facts_file_says() -> None:
    from bench.recovery_sealed import KINDS as SEALED_KINDS
    from bench.recovery_sealed import load
    from bench.recovery_sealed import validate as validate_sealed

    sessions = load()
    problems = [p for s in sessions for p in validate_sealed(s)]
    current = [f for s in sessions for f in s.facts if f.current]

    assert problems == []
    assert len(sessions) >= 12 and len({s.stack for s in sessions}) >= 10
    assert len(current) >= 100
    assert all(sum(f.kind == kind for f in current) >= 6 for kind in SEALED_KINDS)
    assert all(s.decoys for s in sessions)
