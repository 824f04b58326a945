"""Reversals said without cue words: what a later message sets aside or takes up, and what the agent
uninstalls, supersede an earlier choice; an addition or an agreement does not (pure logic, no AWS)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from continuity_core.checkpoints.rolling import Statement, roll
from continuity_core.extraction.reversal import names, removed_packages, set_aside, taken_up
from continuity_core.extraction.sticky import Role
from continuity_core.models.session_digest import FactSource, FactStatus, SessionDigest
from continuity_core.recovery.recovery_block import render_digest

T0 = datetime(2026, 11, 23, 9, 0, tzinfo=UTC)


def user(text: str, n: int) -> Statement:
    return Statement(text, Role.USER, FactSource.PROMPT, n, T0 + timedelta(minutes=n))


def shell(command: str, n: int) -> Statement:
    return Statement(f"Tool Bash: {command}", Role.AGENT, FactSource.AGENT, n, T0, tool=True)


def rolled(*statements: Statement) -> SessionDigest:
    return roll(None, list(statements), now=T0, prompts=max(s.prompt or 0 for s in statements))


def status_of(digest: SessionDigest, words: str) -> FactStatus:
    (fact,) = [f for f in digest.facts if words in f.text]
    return fact.status


def test_an_abbreviation_said_to_be_out_supersedes_the_choice_it_stands_for() -> None:
    # Given the user chose MongoDB, then, much later, says "mongo is out" and names another store
    digest = rolled(
        user("for the event store lets use MongoDB on the cluster we already run for logs", 4),
        user("ok mongo is out then. lets go with Postgres jsonb, one less thing to operate", 20),
    )
    # Then the MongoDB choice is superseded, and the block marks it so
    assert status_of(digest, "MongoDB") is FactStatus.SUPERSEDED
    block = render_digest(digest, "## Recovery", 6000)[0]
    (line,) = [line for line in block.splitlines() if "MongoDB" in line]
    assert "superseded at prompt 20" in line


def test_scrapping_what_an_earlier_message_named_by_its_file_supersedes_that_message_s_choice() -> None:
    # Given a short message choosing fabric with one deploy.py, then "drop the hand-written deploy"
    digest = rolled(
        user("lets deploy with fabric. one small deploy.py, nothing fancy", 3),
        user(
            "the deploy script keeps breaking on the new hosts. "
            "drop the hand-written deploy and move to Ansible",
            15,
        ),
    )
    # Then the fabric choice (the message's only decision) and its deploy.py remark are superseded
    assert status_of(digest, "deploy with fabric") is FactStatus.SUPERSEDED
    assert status_of(digest, "one small deploy.py") is FactStatus.SUPERSEDED
    assert status_of(digest, "move to Ansible") is FactStatus.ACTIVE


def test_taking_up_what_an_earlier_message_skipped_supersedes_the_skip() -> None:
    digest = rolled(
        user("skip thumbnails for v1. originals only, tag big uploads with needs_resize and move on", 8),
        user(
            "re thumbnails: mobile users complain about data, so tagging isnt enough. "
            "add a proper thumbnails pipeline with libvips",
            30,
        ),
    )
    assert status_of(digest, "skip thumbnails") is FactStatus.SUPERSEDED


def test_adding_to_a_choice_does_not_supersede_it() -> None:
    digest = rolled(
        user("use Redis for the session cache", 3),
        user("add a TTL of 60 s to the Redis session cache and log misses", 9),
    )
    assert status_of(digest, "use Redis for the session cache") is FactStatus.ACTIVE


def test_setting_aside_again_what_an_earlier_choice_set_aside_agrees_with_it() -> None:
    digest = rolled(
        user("no webpack, bundle with esbuild", 3),
        user("still no webpack please, keep the esbuild config tiny", 9),
    )
    assert status_of(digest, "bundle with esbuild") is FactStatus.ACTIVE


def test_an_everyday_word_does_not_stand_for_a_longer_name() -> None:
    # "work" starts workflow_dispatch, but a plain word is no abbreviation
    digest = rolled(
        user("make it workflow_dispatch with the release-approvers environment", 3),
        user("I don't want it to only work for me, add a cross-platform install script", 9),
    )
    assert status_of(digest, "workflow_dispatch") is FactStatus.ACTIVE


def test_a_package_the_agent_uninstalls_supersedes_the_choice_that_named_it() -> None:
    digest = rolled(
        user("use moment for the date formatting in the reports", 3),
        shell("npm uninstall moment && npm install dayjs", 7),
    )
    assert status_of(digest, "use moment") is FactStatus.SUPERSEDED


def test_a_package_removed_and_installed_again_is_an_upgrade_not_a_reversal() -> None:
    digest = rolled(
        user("use moment for the date formatting in the reports", 3),
        shell("npm remove moment && npm i moment@2.30.1", 7),
    )
    assert status_of(digest, "use moment") is FactStatus.ACTIVE


def test_what_a_sentence_sets_aside_and_takes_up_is_read_clause_by_clause() -> None:
    assert set_aside("no webpack, esbuild is fine") == {"webpack"}
    assert set_aside("ok pg is out then") == {"pg"}
    assert set_aside("is redis out?") == set()  # a question sets nothing aside
    assert "hdr10" in taken_up("add a proper HDR10 rung on top")
    assert names("pg", {"pgrouting"}, set()) and names("build", set(), {"build"})
    assert not names("work", {"workflow_dispatch"}, set())


def test_uninstall_commands_of_the_common_package_managers() -> None:
    assert removed_packages("pip uninstall -y requests==2.31") == {"requests"}
    assert removed_packages("cd api && poetry remove celery") == {"celery"}
    assert removed_packages("yarn remove @acme/logger eslint-plugin-x") == {"logger", "eslint-plugin-x"}
    assert removed_packages("cargo remove serde_yaml") == {"serde_yaml"}
    assert removed_packages("git status && npm test") == set()


def agent_report(text: str, n: int) -> Statement:
    return Statement(text, Role.AGENT, FactSource.AGENT, n, T0 + timedelta(minutes=n), final=True)


def test_the_agent_reporting_it_replaced_the_chosen_value_supersedes_the_choice() -> None:
    digest = rolled(
        user("for the PDF reports lets render with wkhtmltopdf, it is already on the build image", 4),
        agent_report(
            "The page breaks were wrong in every table. I swapped the renderer's wkhtmltopdf call for "
            "WeasyPrint; the tables now split cleanly.",
            12,
        ),
    )
    assert status_of(digest, "render with wkhtmltopdf") is FactStatus.SUPERSEDED


def test_the_agent_replacing_something_the_choice_does_not_name_leaves_it_current() -> None:
    digest = rolled(
        user("for the PDF reports lets render with wkhtmltopdf, it is already on the build image", 4),
        agent_report("I replaced the old retry helper with tenacity in the report uploader.", 12),
    )
    assert status_of(digest, "render with wkhtmltopdf") is FactStatus.ACTIVE


def test_an_arrow_from_the_chosen_value_to_another_supersedes_the_choice() -> None:
    digest = rolled(
        user("for the base image lets use node:18-alpine, it matches prod", 3),
        agent_report("Bumped the Dockerfile: node:18-alpine -> node:20-alpine, the build passes.", 12),
    )
    assert status_of(digest, "node:18-alpine, it matches") is FactStatus.SUPERSEDED


def test_an_arrow_between_measurements_or_to_a_result_supersedes_nothing() -> None:
    digest = rolled(
        user("lets serve the docs with mkdocs, material theme", 3),
        user("keep the p95 target at 300 ms for city routes", 4),
        agent_report("p95 went 1.8 s -> 240 ms with the new engine.", 12),
        agent_report("Docs build: mkdocs → zero warnings; the material theme renders the API pages.", 13),
    )
    assert status_of(digest, "serve the docs with mkdocs") is FactStatus.ACTIVE
    assert status_of(digest, "keep the p95 target") is FactStatus.ACTIVE


def test_a_reversal_leaves_the_other_choices_of_the_earlier_message_current() -> None:
    # Given one message with two choices, then a later one setting the second aside
    digest = rolled(
        user(
            "lets use sqlite for the session cache. and lets go with parquet for the nightly export files", 3
        ),
        user("ok parquet is out then, finance cant open it. lets move the export to xlsx", 15),
    )
    # Then only the choice it speaks of is superseded
    assert status_of(digest, "parquet for the nightly export") is FactStatus.SUPERSEDED
    assert status_of(digest, "sqlite for the session cache") is FactStatus.ACTIVE
