"""Recovery that holds on sessions nobody tuned it to (issue 20): each behaviour on a small session,
through the rolling digest and the block a harness would inject (pure logic, no AWS)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from continuity_core.checkpoints.rolling import Statement, roll
from continuity_core.extraction.pasted import own_words
from continuity_core.extraction.salience import (
    BACKGROUND_PATH,
    background,
    has_content,
    is_tentative,
    salience,
)
from continuity_core.extraction.sticky import Role
from continuity_core.models.session_digest import FactKind, FactSource, FactStatus, SessionDigest
from continuity_core.recovery.briefing import briefing
from continuity_core.recovery.briefing_lines import WHERE
from continuity_core.recovery.recovery_block import render_digest

T0 = datetime(2026, 11, 27, 9, 0, tzinfo=UTC)
ROOT = "/home/ana/shop"


def user(text: str, n: int) -> Statement:
    return Statement(text, Role.USER, FactSource.PROMPT, n, T0 + timedelta(minutes=n))


def said_by_agent(text: str, n: int) -> Statement:
    return Statement(text, Role.AGENT, FactSource.AGENT, n, T0 + timedelta(minutes=n), final=True)


def tool(line: str, n: int) -> Statement:
    return Statement(line, Role.AGENT, FactSource.AGENT, n, T0 + timedelta(minutes=n), tool=True)


def result(command: str, output: str, n: int) -> Statement:
    return Statement(output, Role.AGENT, FactSource.AGENT, n, T0 + timedelta(minutes=n), command=command)


def plan(text: str, n: int) -> Statement:
    return Statement(text, Role.AGENT, FactSource.AGENT, n, T0 + timedelta(minutes=n), plan=True)


def rolled(statements: list[Statement]) -> SessionDigest:
    last = statements[-1]
    return roll(None, statements, now=last.at, prompts=last.prompt, roots=[ROOT])


def block(digest: SessionDigest) -> str:
    return render_digest(digest, "## Session Recovery Context", 8000, [ROOT])[0]


def section(text: str, heading: str) -> str:
    """One section of a block, from its heading (``### Open``, or its start) to the next blank line."""
    at = text.find(f"### {heading}")
    return text[at:].split("\n\n", 1)[0] if at >= 0 else ""


def test_the_background_model_loads_from_its_data_file() -> None:
    # Given the shipped data file
    assert BACKGROUND_PATH.is_file()
    model = background()
    # Then everyday coding talk is common and a project's own words are rare
    assert model.rarity("test") < 0.3
    assert model.rarity("remember") < 0.3
    assert model.rarity("snooze") > 0.8


def test_a_constraint_in_a_list_item_survives_without_a_cue() -> None:
    # Given a user listing their requirements plainly, no rule words
    digest = rolled(
        [
            user(
                "ok here is the deal for the refunds page:\n- amounts stay in cents in the ledger\n"
                "- the old /r/{id} links keep working for the mobile app\n- euro only for now",
                1,
            ),
            user("go", 2),
        ]
    )
    rules = section(block(digest), "Rules in force")
    # Then every item is among the rules in force, verbatim
    assert "amounts stay in cents in the ledger" in rules
    assert "the old /r/{id} links keep working for the mobile app" in rules


def test_a_long_paragraph_in_non_native_english_keeps_its_specific_sentence() -> None:
    paragraph = (
        "so we are having this service since long time and the team is small. the important is that "
        "the export job must finish before 06:00 CET because the accountants open the files at this "
        "hour. also please the code should be simple, we are not many people. thanks for help"
    )
    text = block(rolled([user(paragraph, 1), user("start with the exporter", 2)]))
    assert "the export job must finish before 06:00 CET" in text


def test_pasted_logs_and_json_never_become_rules() -> None:
    # Given a prompt that pastes a git error and HTTP headers around the user's own sentence
    prompt = (
        "push fails again:\n"
        "error: failed to push some refs to 'git@github.com:acme/shop.git'\n"
        "hint: Updates were rejected because the remote contains work that you do not have locally.\n"
        "Cache-Control: no-store, must-revalidate\n"
        "Content-Type: application/json\n"
        "we must never force push to main"
    )
    digest = rolled([user(prompt, 1), user("ok", 2)])
    rules = [f.text for f in digest.of(FactKind.CONSTRAINT)]
    # Then the user's own rule is a rule, and nothing pasted is one
    assert rules == ["we must never force push to main"]
    assert "must-revalidate" not in block(digest)
    assert "must-revalidate" not in own_words(prompt)


def test_a_proposal_accepted_with_a_short_reply_becomes_a_decision() -> None:
    digest = rolled(
        [
            user("where should snoozed tabs live?", 1),
            said_by_agent(
                "Two options. A: chrome.storage.local under one `snoozed:v1` key. "
                "B: IndexedDB through idb-keyval. I'd go with A.",
                1,
            ),
            user("👍", 2),
        ]
    )
    decisions = digest.of(FactKind.DECISION)
    assert any("chrome.storage.local" in d.text and d.accepted_prompt == 2 for d in decisions)
    assert "accepted at prompt 2" in block(digest)


def test_ok_to_a_menu_without_a_recommendation_decides_nothing() -> None:
    digest = rolled(
        [
            user("how should people serve the page locally?", 1),
            said_by_agent(
                "Option 1: Python's `http.server` (usually pre-installed). Option 2: `npx serve` (no install "
                "if you have Node). Option 3: the VS Code Live Server extension.",
                1,
            ),
            user("ok", 2),
        ]
    )
    assert digest.of(FactKind.DECISION) == []


def test_ok_to_a_menu_takes_the_option_the_agent_recommended() -> None:
    digest = rolled(
        [
            user("which dev server?", 1),
            said_by_agent(
                "Option 1: Vite (fast, modern HMR). Option 2: `serve` (dead simple). My recommendation is "
                "option 1, it leaves room to grow.",
                1,
            ),
            user("go ahead", 2),
        ]
    )
    assert [d.text for d in digest.of(FactKind.DECISION)] == ["Option 1: Vite (fast, modern HMR)."]


def test_a_reply_that_says_no_accepts_nothing() -> None:
    digest = rolled([said_by_agent("I'd move the cache to Redis. Should I go ahead?", 1), user("no wait", 2)])
    assert digest.of(FactKind.DECISION) == []


def test_a_reversal_without_cue_words_supersedes_the_older_choice() -> None:
    # Given a choice, and later the same subject with another value, no "actually"/"instead"
    digest = rolled(
        [
            user("lets bundle the extension with esbuild, webpack config is too heavy", 3),
            user("hmm the extension bundle goes through vite now, esbuild plugins were missing", 9),
        ]
    )
    ended = [f for f in digest.facts if f.status is FactStatus.SUPERSEDED]
    assert [f.text for f in ended] == ["lets bundle the extension with esbuild, webpack config is too heavy"]
    assert "superseded at prompt 9" in block(digest)


def test_the_agents_report_that_it_set_the_old_way_aside_supersedes_the_users_choice() -> None:
    # Given the user's choice, then the agent reporting it switched and the old path is gone
    digest = rolled(
        [
            user("timetable import: lets just parse the CSV that Pronote exports every night", 18),
            said_by_agent(
                "Pronote's nightly CSV drops the room column for merged classes. Their XML export has it, "
                "so I switched the command to read the XML; the CSV path is gone.",
                31,
            ),
        ]
    )
    ended = [f.text for f in digest.facts if f.status is FactStatus.SUPERSEDED]
    assert ended == ["timetable import: lets just parse the CSV that Pronote exports every night"]


def test_a_problem_the_agent_reports_does_not_replace_the_users_choice() -> None:
    # Given the user's choice and a report on the same subject that sets nothing aside
    digest = rolled(
        [
            user("timetable import: lets just parse the CSV that Pronote exports every night", 18),
            said_by_agent("Pronote's nightly CSV drops the room column when two classes are merged.", 31),
        ]
    )
    assert not [f for f in digest.facts if f.status is FactStatus.SUPERSEDED]


def test_an_everyday_word_between_does_not_stop_a_dismissal() -> None:
    digest = rolled(
        [
            user("let's use redis for the session cache", 2),
            user("no separate redis after all, sessions stay in postgres", 9),
        ]
    )
    assert [f.text for f in digest.facts if f.status is FactStatus.SUPERSEDED] == [
        "let's use redis for the session cache"
    ]


def test_a_change_of_value_on_a_shared_subject_supersedes_the_plain_choice() -> None:
    # Given a plain choice (no decision cue) and, later, the same subject put elsewhere "instead"
    digest = rolled(
        [
            user("keep the billing ledger in SQLite for now, simplest thing", 6),
            user("the VMs are rebuilt nightly, so put the ledger in Postgres instead, table ledger_rows", 20),
        ]
    )
    ended = [f.text for f in digest.facts if f.status is FactStatus.SUPERSEDED]
    assert ended == ["keep the billing ledger in SQLite for now, simplest thing"]


def test_the_agent_switching_to_a_sibling_identifier_supersedes_the_choice() -> None:
    digest = rolled(
        [
            user("for product titles let's use the `standard_tokenizer` with the synonym list", 3),
            said_by_agent(
                "Titles with model numbers split badly, so I'm switching the title analyzer to "
                "`icu_tokenizer` with the same synonym list; recall@10 went from 0.71 to 0.78.",
                9,
            ),
        ]
    )
    ended = [f.text for f in digest.facts if f.status is FactStatus.SUPERSEDED]
    assert ended == ["for product titles let's use the `standard_tokenizer` with the synonym list"]


def test_a_refinement_that_says_never_of_an_everyday_verb_replaces_nothing() -> None:
    # Given the user's choice, then the agent's decision on how to use it ("never run" sets no value aside)
    digest = rolled(
        [
            user("switch the job queue to Amazon SQS instead of Redis; ops won't run another service", 42),
            said_by_agent(
                "I decided to use a FIFO queue with one message group per customer, so charges for one "
                "customer never run concurrently.",
                50,
            ),
        ]
    )
    current = [f.text for f in digest.facts if f.status is FactStatus.ACTIVE and "SQS" in f.text]
    assert current, "the SQS choice still stands"


def test_scratch_that_takes_back_the_last_choice_that_named_something() -> None:
    # Given a choice, a contentless remark that reads as one, then "scratch that" sharing no word
    digest = rolled(
        [
            user("Let's go with CSS Modules for the new components.", 19),
            user("OK, we're going to make a little experiment here.", 20),
            user("Scratch that, we're standardising on Tailwind after all: the design team ships it.", 33),
        ]
    )
    ended = [f.text for f in digest.facts if f.status is FactStatus.SUPERSEDED]
    assert ended == ["Let's go with CSS Modules for the new components."]


def test_a_new_amount_of_the_same_quantity_supersedes_the_old_one() -> None:
    digest = rolled(
        [
            user("HPC budget: 2000 core-hours this month, dont waste them", 2),
            user("good news, the allocation got bumped to 5000 core-hours", 20),
        ]
    )
    ended = [f.text for f in digest.facts if f.status is FactStatus.SUPERSEDED]
    assert ended == ["HPC budget: 2000 core-hours this month, dont waste them"]


def test_a_generic_reply_closes_no_question() -> None:
    # Given an open question and a generic "fixed" that shares none of its terms
    digest = rolled(
        [
            user("why do the invoice PDFs lose the school logo on the second page?", 4),
            user("Updated it; passes now.", 6),
        ]
    )
    questions = digest.of(FactKind.QUESTION)
    assert [q.text for q in questions] == ["why do the invoice PDFs lose the school logo on the second page?"]


def test_a_guess_the_agent_goes_on_to_check_closes_no_question() -> None:
    digest = rolled(
        [
            user("why does the deployed tokenizer page load without its stylesheet?", 4),
            said_by_agent(
                "The issue is that Next.js might be treating the tokenizer stylesheet path as a route. "
                "Let me check the rewrites in `next.config.js`:",
                5,
            ),
        ]
    )
    assert [q.text for q in digest.of(FactKind.QUESTION)] == [
        "why does the deployed tokenizer page load without its stylesheet?"
    ]


def test_a_question_is_closed_only_by_a_reply_that_visibly_shares_a_word() -> None:
    # Given a question naming a URL and a later statement naming another URL of the same host: the
    # two share letters ("https", "github") only inside their addresses, nothing a reader would link
    digest = rolled(
        [
            user("should the submodule point at https://github.com/ana/tokenizer or the ssh remote?", 4),
            user("the docs link is https://github.com/ana/site/blob/main/public/tokenizer.html, all good", 6),
        ]
    )
    assert [q.status for q in digest.facts if q.kind is FactKind.QUESTION] == [FactStatus.ACTIVE]


def test_an_identifier_links_as_a_whole_word() -> None:
    # "stg_events" in the question and "events" in a reply: to a reader, two different words
    digest = rolled(
        [
            user("why are there duplicate rows in stg_events after the backfill?", 4),
            user("events from the mobile SDK were re-sent twice by its retry loop", 6),
        ]
    )
    assert [f.status for f in digest.facts if f.kind is FactKind.QUESTION] != [FactStatus.CLOSED]


def test_a_request_put_as_a_question_and_a_contentless_question_are_not_open_questions() -> None:
    digest = rolled(
        [
            user("Also, would you mind fixing the type issues in the parser?", 3),
            user("did that fix it?", 5),
            user("why does the parser drop trailing commas in `tokens.csv`?", 7),
        ]
    )
    open_questions = section(block(digest), "Open\n")
    assert "trailing commas" in open_questions
    assert "type issues" not in open_questions
    assert "did that fix it" not in open_questions


def test_a_reply_about_a_named_topic_closes_no_question_on_another() -> None:
    digest = rolled(
        [
            user("do partners pay the re-transcode fee when they replace a mezzanine master?", 20),
            user("re HDR: our biggest partner delivers HLG now, so flagging isnt enough", 30),
        ]
    )
    assert [f.status for f in digest.facts if f.kind is FactKind.QUESTION] == [FactStatus.ACTIVE]


def test_an_answer_on_the_questions_subject_closes_it() -> None:
    digest = rolled(
        [
            user("is the country column alpha-2 or alpha-3?", 4),
            user("got it: the country column is alpha-2 except the legacy android app", 9),
        ]
    )
    assert digest.of(FactKind.QUESTION) == []
    ended = section(block(digest), "No longer current")
    assert "~~is the country column alpha-2 or alpha-3?~~ — answered at prompt 9" in ended


def test_a_terse_reply_on_the_agents_question_closes_it() -> None:
    # Given the agent's question and, prompts later, a reply too short to be a fact on its own
    digest = rolled(
        [
            user("add the grade history view", 47),
            said_by_agent(
                "Should the history view be visible to the homeroom teacher too, or just to Direction?",
                48,
            ),
            user("re history: direction only. teachers see their own changes in the normal form anyway", 58),
        ]
    )
    assert digest.of(FactKind.QUESTION) == []
    ended = section(block(digest), "No longer current")
    assert "~~Should the history view be visible" in ended and "— answered at prompt 58" in ended


def test_the_users_later_word_on_their_question_is_shown_beside_it() -> None:
    # Given the user's question and their later sentence sharing one of its terms, not enough to close
    digest = rolled(
        [
            user("Should the time picker default to the last 6 hours or the last 24 hours?", 9),
            user("PM says default to a full day and remember the last choice per user.", 14),
        ]
    )
    text = block(digest)
    # Then the question is no longer open, and the later word stands beside it as its answer
    assert "### Open" not in text
    ended = section(text, "No longer current")
    assert "~~Should the time picker default to the last 6 hours" in ended
    assert "— answered (prompt 14): PM says default to a full day and remember the last choice" in ended


def test_failing_tests_from_runner_output_stay_until_a_passing_run() -> None:
    failing_run = (
        "=================================== FAILURES ===================================\n"
        "___ test_refund_rounding ___\n"
        "E   assert 3 == 2\n"
        "=========================== short test summary info ============================\n"
        "FAILED tests/api/test_refunds.py::test_refund_rounding - assert 3 == 2\n"
        "========================= 1 failed, 12 passed in 0.41s ========================="
    )
    digest = rolled([user("run the api tests", 1), result("Tool Bash: pytest -q tests/api", failing_run, 1)])
    assert "still failing: tests/api/test_refunds.py::test_refund_rounding" in section(
        block(digest), "Checks"
    )
    passing = "========================= 13 passed in 0.40s ========================="
    later = roll(
        digest, [result("Tool Bash: pytest -q tests/api", passing, 3)], now=T0, prompts=3, roots=[ROOT]
    )
    assert later.failing == []
    assert "failing:" not in block(later)


def test_failing_tests_of_one_file_share_one_line() -> None:
    failing_run = (
        "FAILED tests/api/test_refunds.py::TestRefunds::test_rounding - assert 3 == 2\n"
        "FAILED tests/api/test_refunds.py::TestRefunds::test_partial - KeyError: 'amount'\n"
        "FAILED tests/api/test_orders.py::test_totals - assert 0 == 1\n"
        "========================= 3 failed, 12 passed in 0.41s ========================="
    )
    digest = rolled([user("run the api tests", 1), result("Tool Bash: pytest -q tests/api", failing_run, 1)])
    failing = [line for line in block(digest).splitlines() if line.startswith("- still failing:")]
    assert failing == [
        "- still failing: tests/api/test_refunds.py::TestRefunds::{test_rounding, test_partial}"
        " (pytest, since prompt 1)",
        "- still failing: tests/api/test_orders.py::test_totals (pytest, since prompt 1)",
    ]


def test_the_finding_that_answered_a_question_outlives_later_findings() -> None:
    # Given an early question answered by the agent's finding, then more later findings, each as
    # specific, than the digest keeps
    statements = [
        user("why are there duplicate rows in stg_events?", 1),
        said_by_agent(
            "I found that the duplicate rows come from the mobile SDK resending whole batches after a 502, "
            "so the stg_events dedup key has to include `client_batch_id`.",
            2,
        ),
    ]
    for n in range(3, 43):
        statements.append(
            said_by_agent(
                f"I found that `etl/job_{n}.py` writes snappy parquet shards to `s3://lake-{n}/raw_{n}/` "
                f"with `max_rows={n}000`, so the `orders_{n}` compaction has to run after `load_{n}`.",
                n,
            )
        )
    # and more questions answered since than the digest keeps closed
    for n in range(43, 67, 2):
        statements += [
            user(f"which region hosts `cluster_{n}`?", n),
            user(f"`cluster_{n}` region is eu-west-{n}, confirmed by ops", n + 1),
        ]
    text = block(rolled(statements))
    assert "why are there duplicate rows" not in text  # the question itself is long gone
    assert "`client_batch_id`" in text


def test_a_guess_is_told_from_a_finding_by_its_grammar() -> None:
    assert is_tentative("The CDN might be caching the old bundle.")
    assert is_tentative("Let me check the rewrites in `next.config.js`:")
    assert not is_tentative("The worker could not reach Redis: the security group blocks 6379.")


def test_a_guess_ranks_below_what_the_agent_found() -> None:
    digest = rolled(
        [
            user("the tokenizer page 404s on the deployed site", 1),
            said_by_agent(
                "The issue is that `public/tokenizer/index.html` is never served for `/tokenizer/`: Next.js "
                "serves `index.html` only at the site root.",
                2,
            ),
            said_by_agent(
                "The issue is that the CDN might be caching the old `tokenizer.js` bundle. Let me check the "
                "`vercel.json` headers:",
                3,
            ),
        ]
    )
    # Then the guess (the last report's) is no finding, and where things stand ranks the finding
    # first: when the block has room for one of the two, it is the finding, not the guess checked later
    text = block(digest)
    findings = [line for line in text.splitlines() if line.startswith("- Found:")]
    assert len(findings) == 1 and "only at the site root" in findings[0]
    (where,) = [s for s in briefing(digest, [ROOT]) if s.name == WHERE]
    ranked = [next(i for i, line in enumerate(where.lines) if part in line) for part in ("site root", "CDN")]
    assert ranked[0] < ranked[1]


def test_the_agents_last_report_is_not_repeated_as_findings() -> None:
    digest = rolled(
        [
            user("look into the routing p95", 1),
            said_by_agent("The p95 is 1.8 s because every request re-reads `edges.sql` from disk.", 2),
        ]
    )
    text = block(digest)
    assert text.count("re-reads `edges.sql` from disk") == 1
    where = section(text, "Where things stand")
    assert "- The p95 is 1.8 s because every request re-reads `edges.sql` from disk." in where
    assert "Found:" not in text


def test_where_things_stand_shows_the_task_list_and_the_commits() -> None:
    digest = rolled(
        [
            user("do the refunds work", 1),
            plan("- [x] Write the refund tests\n- [>] Fix rounding\n- [ ] Update the docs", 1),
            result(
                "Tool Bash: git commit -m 'Round refunds half-even'",
                "[main 1a2b3c4] Round refunds half-even",
                1,
            ),
        ]
    )
    where = section(block(digest), "Where things stand")
    assert where.startswith("### Where things stand (task list: 1 of 3 done)\n")
    assert "- Done: Write the refund tests" in where
    assert "- In progress: Fix rounding" in where
    assert "- To do: Update the docs" in where
    assert "- Commits: `1a2b3c4 Round refunds half-even`" in where


def test_one_line_per_file_and_no_deleted_or_outside_files() -> None:
    digest = rolled(
        [
            user(
                "look at src/cart/totals.py and the docs/ folder, and /usr/local/go/src/net/http/server.go", 1
            ),
            tool("Tool Read: /home/ana/shop/src/cart/totals.py", 1),
            tool("Tool Edit: src/cart/totals.py", 2),
            tool("Tool Write: src/cart/old_totals.py", 2),
            tool("Tool Bash: git rm src/cart/old_totals.py", 3),
        ]
    )
    text = block(digest)
    lines = [line for line in text.splitlines() if "`src/cart/totals.py`" in line]
    assert len(lines) == 1
    assert "edited" in lines[0] and "read" in lines[0]
    files = section(text, "Files")
    assert files
    assert "old_totals.py" not in files
    assert "/usr/local/go" not in files
    assert "docs/" not in files


def test_the_compaction_summary_check_leaves_out_what_the_summary_holds() -> None:
    digest = rolled(
        [
            user("the ledger amounts stay in integer cents, never floats", 1),
            user("the webhook secret rotates every 90 days via the vault agent", 2),
            Statement(
                "Summary: the user said ledger amounts stay in integer cents and never floats.",
                Role.SUMMARY,
                FactSource.COMPACTION_SUMMARY,
                3,
                T0,
            ),
        ]
    )
    # When the agent holds that summary (a start right after the compaction)
    text = render_digest(digest, "## Session Recovery Context", 8000, [ROOT], beside_summary=True)[0]
    # Then the block is the compaction-loss check: what the summary dropped stays, what it holds is
    # left out
    assert "_Compaction-loss check: the harness's summary (prompt 3) already holds" in text
    assert "webhook secret rotates every 90 days" in section(text, "Rules in force")
    assert "integer cents" not in text
    # And without the summary beside it (after /clear, in another session) the whole briefing
    whole = block(digest)
    assert "Compaction-loss check" not in whole and "integer cents" in section(whole, "Rules in force")


def test_fragments_without_content_are_not_facts() -> None:
    assert not has_content("did that fix it?")
    assert not has_content("I never remember")
    assert not has_content("no need to decide now")
    assert has_content("the popup must open in under 100ms")
    assert salience("the popup must open in under 100ms").score > salience("ok sounds good").score


def test_a_pasted_log_with_timestamps_on_their_own_lines_is_left_out() -> None:
    # Given a build log pasted as Vercel shows it: a timestamp line, then the message line
    prompt = (
        "still failing, see:\n\n01:12:38.208\n Detected Next.js version: 13.0.2\n01:12:38.300\n"
        " Please make sure you have the correct access rights\n01:12:38.374\n"
        ' Error: Command "yarn run build" exited with 1\n\nand keep the old /r/{id} links working'
    )
    words = own_words(prompt)
    # Then the messages between the timestamps are the log's, and the user's own sentences stay
    assert "access rights" not in words
    assert "Detected Next.js" not in words
    assert "keep the old /r/{id} links working" in words


def test_a_pasted_pytest_report_with_blank_lines_inside_is_left_out() -> None:
    # Given a pytest failure pasted as it prints (from a corpus session): separators, indented source
    # with blank lines between its parts, the failing line, its explanation and its location
    prompt = (
        "A couple of tests are unhappy now:\n\n"
        "_______________ test_row_expansion_functionality _______________\n\n"
        "    def test_row_expansion_functionality():\n"
        "        browser = SessionBrowser(project_path)\n"
        "    \n"
        '        browser.selected_session_id = "test-session-123"\n'
        "    \n"
        "        # Should contain session ID\n"
        '>       assert "Session ID:" in content\n'
        "E       AssertionError: assert 'Session ID:' in ''\n\n"
        "test/test_tui_expansion.py:74: AssertionError\n"
        "FAILED test/test_tui_expansion.py::test_row_expansion_functionality - AssertionError: assert\n\n"
        "keep the expanded row under 20 lines"
    )
    words = own_words(prompt)
    # Then no line of the report is the user's, and the user's own sentences stay
    assert "selected_session_id" not in words
    assert "Session ID" not in words
    assert "test_tui_expansion" not in words
    assert "A couple of tests are unhappy now:" in words
    assert "keep the expanded row under 20 lines" in words


def test_the_agent_describing_what_happens_instead_sets_nothing_aside() -> None:
    # Given the user's task naming their files (a corpus session), and the agent's diagnosis later
    digest = rolled(
        [
            user(
                "I have @public/tokenizer.css and @public/tokenizer.html running on my website, but "
                "the deep link in the website's repo is a bit awkward for collaborators.",
                1,
            ),
            said_by_agent(
                "The issue is that the browser sees the URL as `/tokenizer` without a trailing slash, so "
                "`./tokenizer.css` resolves to `/tokenizer.css` instead of `/tokenizer/tokenizer.css`.",
                10,
            ),
        ]
    )
    # Then "X instead of Y" in a report describes behaviour; the user's words stay current
    assert not [f for f in digest.facts if f.status is FactStatus.SUPERSEDED]


def test_pasted_shell_sessions_field_lists_and_bare_links_are_left_out() -> None:
    # Given a prompt with a terminal session pasted into it (as in a corpus session)
    prompt = (
        "Can you please change the default command to look up the PR for the current branch?\n"
        "➜ platform-frontend git:(fixes-for-pr-268) GH_PAGER= gh pr view --json url\n"
        'Unknown JSON field: "url"\n'
        "additions, assignees, author, autoMergeRequest, baseRefName, baseRefOid, body, changedFiles\n"
        "~/Projects/my-project$ gh pr view 21 --web\n"
        "~/Projects/my-project$\n"
        "https://github.com/acme/shop/pull/21\n"
        "If there isn't a PR found we should say so and print the help as we do now."
    )
    words = own_words(prompt)
    # Then the terminal's lines are not the user's words; the sentences around them are
    for pasted in ("GH_PAGER", "autoMergeRequest", "gh pr view 21", "my-project$", "pull/21"):
        assert pasted not in words
    assert "look up the PR for the current branch?" in words
    assert "we should say so and print the help" in words


def test_a_change_that_names_what_it_sets_aside_replaces_only_a_choice_about_that() -> None:
    # Given where the keys are stored, and later the agent choosing where the check runs
    digest = rolled(
        [
            user("Change of plan: store the idempotency keys in a Postgres table, idempotency_keys.", 38),
            said_by_agent(
                "I decided to do the idempotency check in a FastAPI dependency, `require_idempotency_key`, "
                "rather than in middleware, so the health checks stay exempt.",
                41,
            ),
            user("switch the job queue to Amazon SQS instead of Redis", 44),
        ]
    )
    # Then the storage choice stays current: what was set aside (middleware) is not what it chose
    assert not [f for f in digest.facts if f.status is FactStatus.SUPERSEDED]
    shown = block(digest)
    assert "idempotency_keys" in shown and "~~" not in shown
