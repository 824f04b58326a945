"""The rolling session digest's rules and the recovery block built from it (pure logic, no AWS)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from continuity_core.checkpoints.ranking import CAPS
from continuity_core.checkpoints.rolling import Statement, roll
from continuity_core.extraction.sticky import Role
from continuity_core.models.session_digest import FactKind, FactSource, FactStatus, SessionDigest
from continuity_core.recovery.fit import Section, assemble
from continuity_core.recovery.recovery_block import render_digest

T0 = datetime(2026, 11, 23, 9, 0, tzinfo=UTC)
HEADER = "## Session Recovery Context"
FILLER = [
    "run the unit tests again and show me the failures",
    "ok, now look at the retry helper in the client",
    "what does the log say about the last deploy?",
    "refactor the parser so the error messages include the line number",
]


def user(text: str, n: int) -> Statement:
    return Statement(text, Role.USER, FactSource.PROMPT, n, T0 + timedelta(minutes=n))


def agent(text: str, n: int, tool: bool = False) -> Statement:
    return Statement(text, Role.AGENT, FactSource.AGENT, n, T0 + timedelta(minutes=n), tool=tool)


def rolled_in_batches(statements: list[Statement], batch: int = 10) -> SessionDigest:
    """As the writer does: one roll per checkpoint, each carrying the previous digest forward."""
    digest: SessionDigest | None = None
    for start in range(0, len(statements), batch):
        part = statements[start : start + batch]
        last = part[-1]
        said = [s for s in part if s.role is Role.USER and s.source is FactSource.PROMPT]
        instruction = said[-1] if said else None
        digest = roll(digest, part, now=last.at, prompts=last.prompt, last_instruction=instruction)
    assert digest is not None
    return digest


def block(digest: SessionDigest, budget: int = 6000) -> str:
    return render_digest(digest, HEADER, budget)[0]


def section(text: str, heading: str) -> str:
    """One section of a block, from its heading to the next blank line (empty when it is not there)."""
    at = text.find(f"### {heading}")
    return text[at:].split("\n\n", 1)[0] if at >= 0 else ""


def test_a_constraint_from_prompt_2_survives_many_checkpoints_and_a_long_session() -> None:
    # Given a rule said once at prompt 2, then 500 prompts of other work
    said = [user("Set up the project.", 1), user("Please never touch the migrations folder.", 2)]
    said += [user(f"{FILLER[n % len(FILLER)]} (step {n})", n) for n in range(3, 503)]
    # When the digest rolls at every 10th prompt
    digest = rolled_in_batches(said)
    # Then the rule is still there, with where it came from, and the digest stayed bounded
    text = block(digest)
    assert "- Please never touch the migrations folder. (prompt 2)" in text
    assert all(len(digest.of(kind)) <= cap for kind, cap in CAPS.items())
    assert len(text) <= 6000


def test_a_superseded_decision_is_shown_as_superseded_and_the_new_one_as_current() -> None:
    digest = rolled_in_batches(
        [
            user("Let's go with Redis for the job queue.", 3),
            user("Add retries to the worker.", 4),
            user("Actually, switch the job queue to SQS instead of Redis.", 9),
            user("Now run the worker tests.", 10),
        ]
    )
    text = block(digest)
    (old,) = digest.of(FactKind.DECISION, FactStatus.SUPERSEDED)
    assert old.text == "Let's go with Redis for the job queue." and old.ended_prompt == 9
    # Then the current decision is the new one, saying what it replaced; the old one is no longer current
    current = section(text, "Decisions").splitlines()[1:]
    assert len(current) == 1
    assert current[0].startswith("- Actually, switch the job queue to SQS instead of Redis.")
    assert "Let's go with Redis for the job queue." in current[0]  # what it replaced
    ended = section(text, "No longer current")
    assert "- ~~Let's go with Redis for the job queue.~~ — superseded at prompt 9" in ended


def test_an_answered_question_is_closed_and_its_answer_kept() -> None:
    digest = rolled_in_batches(
        [
            user("Why do the uploads to S3 time out after 30 seconds?", 5),
            user("Look at the client's retry helper meanwhile.", 6),
            agent("It turns out the uploads time out because the proxy closes idle connections.", 7),
        ]
    )
    assert digest.of(FactKind.QUESTION) == []
    (closed,) = digest.of(FactKind.QUESTION, FactStatus.CLOSED)
    assert "proxy closes idle connections" in (closed.ended_by or "")
    text = block(digest)
    ended = section(text, "No longer current")
    assert "- ~~Why do the uploads to S3 time out after 30 seconds?~~ — answered at prompt 7" in ended
    assert "### Open" not in text
    where = section(text, "Where things stand")
    assert "- Found: It turns out the uploads time out because the proxy closes idle connections." in where


def test_a_remembered_fact_and_the_last_instruction_come_back_verbatim() -> None:
    fact = "The staging database is db-stg-3.internal:5432 (read replica: db-stg-4)"
    last = "Now wire the exporter into cli.py\nand keep the flags exactly as they are."
    said = [
        Statement(fact, Role.USER, FactSource.REMEMBER, 3, T0, kind=FactKind.REMEMBERED),
        *[user(f"{FILLER[n % 4]} (step {n})", n) for n in range(4, 30)],
        user(last, 30),
    ]
    text = block(rolled_in_batches(said))
    assert f"- {fact} (remembered)" in section(text, "Rules in force")
    assert section(text, "Next").startswith(
        "### Next\n> Now wire the exporter into cli.py\n> and keep the flags exactly as they are.\n"
        "_The user's last instruction (prompt 30);"
    )


def test_the_same_instruction_said_twice_is_one_fact_seen_twice() -> None:
    digest = rolled_in_batches(
        [user("Always run ruff before committing.", 2), user("always run ruff before committing", 8)]
    )
    (rule,) = digest.of(FactKind.CONSTRAINT)
    assert (rule.seen, rule.prompt, rule.last_prompt) == (2, 2, 8)
    # Then it is one rule in force (the second saying is also quoted under Next, as the last instruction)
    text = block(digest)
    assert section(text, "Rules in force").count("run ruff before committing") == 1
    assert "> always run ruff before committing" in section(text, "Next")


def test_non_ascii_names_and_paths_stay_intact() -> None:
    digest = rolled_in_batches(
        [
            user("Zoë Ångström owns docs/señal_café.md, ask her before changing it.", 2),
            agent("Tool Edit: src/naïve/überprüfung.py", 3, tool=True),
        ]
    )
    text = block(digest)
    assert "Zoë Ångström owns docs/señal_café.md" in text
    assert "`docs/señal_café.md` (mentioned, prompt 2)" in text
    assert "`src/naïve/überprüfung.py` (edited, prompt 3)" in text


def test_files_the_agent_edited_outrank_files_it_only_read() -> None:
    said = [agent(f"Tool Read: src/module_{n}.py", n, tool=True) for n in range(1, 40)]
    said.append(agent("Tool Edit: src/billing/invoice.py", 40, tool=True))
    digest = rolled_in_batches(said)
    files = {f.text: f.detail for f in digest.of(FactKind.FILE)}
    assert files["src/billing/invoice.py"] == "edited"
    assert len(files) == CAPS[FactKind.FILE]


def test_files_outside_the_project_are_not_files_in_play() -> None:
    # Given a project file mentioned, then another checkout's files edited again and again
    root = "/home/dev/shop"
    said = [user("Start with src/cart/totals.py please.", 1)]
    for n in range(2, 41):
        said.append(agent(f"Tool Edit: /Users/someone/other-repo/lib/part_{n % 34}.py", n, tool=True))
    digest: SessionDigest | None = None
    for start in range(0, len(said), 10):
        part = said[start : start + 10]
        digest = roll(digest, part, now=part[-1].at, prompts=part[-1].prompt, roots=[root])
    assert digest is not None
    # When the block is rendered
    text = render_digest(digest, HEADER, 6000, [root])[0]
    # Then the project's own file is listed and no file elsewhere is
    assert "`src/cart/totals.py`" in text
    assert "other-repo" not in text


def test_a_sentence_the_agents_prose_keeps_repeating_does_not_push_out_a_new_finding() -> None:
    # Given the agent's prose repeating a dozen sentences word for word, then one new finding
    said = [
        agent(f"I found that the cache of step_{k} is stale.", n)
        for n in range(1, 36)
        for k in range(12)
        if n % 7 == k % 7
    ]
    said.append(agent("I found that the rounding error comes from float division in the tax helper.", 40))
    # When the digest keeps its findings within their cap
    digest = rolled_in_batches(said, batch=20)
    # Then the new finding is kept
    findings = [f.text for f in digest.of(FactKind.FINDING)]
    assert len(findings) <= CAPS[FactKind.FINDING]
    assert any("rounding error" in f for f in findings)


def test_a_full_block_says_what_it_left_out_and_keeps_the_rules() -> None:
    # Given more than a small budget holds
    said = [user(f"Never change the public API of module_{n}.", n) for n in range(1, 30)]
    said += [user(f"Let's use library_{n} for the exporter_{n} step.", n) for n in range(30, 45)]
    digest = rolled_in_batches(said)
    # When it is rendered for Codex's cap and for a small budget
    text, cut = render_digest(digest, HEADER, 1500)
    # Then it fits, says what it left out, and the rules go last
    assert cut and len(text) <= 1500
    assert "_Left out for space:" in text and "decisions" in text.split("_Left out for space:")[1]
    assert "Never change the public API of module_1." in text


def test_the_whole_injection_fits_the_harness_cap_and_says_when_it_was_cut() -> None:
    long_digest = rolled_in_batches(
        [user(f"Never rename the table_{n} columns, keep them stable.", n) for n in range(1, 41)]
    )
    for cap in (10_000, 7_500, 2_000):
        recovery, cut = render_digest(long_digest, HEADER, min(6000, cap))
        injection = assemble(
            [Section(recovery, reserved_chars=min(6000, cap), cut=cut), Section("x" * 5000)], cap
        )
        assert injection.text is not None and len(injection.text) <= cap
        assert injection.truncated
        assert "[truncated]" in injection.text or "_Left out for space:" in injection.text
