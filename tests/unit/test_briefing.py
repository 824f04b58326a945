"""The recovery block as a briefing (issue 32), driven through the real pipeline: the readable
transcript a client sends (``client/continuity_client/hook/transcript.py``), ``digest_inputs`` and
``roll`` as the checkpoint writer calls them, then the block as each source renders it.

Pure logic: no AWS, no sockets, no sleeping."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from continuity_client.hook import harness as client_harness
from continuity_client.hook import transcript as client_transcript
from continuity_core.checkpoints.rolling import roll
from continuity_core.checkpoints.rolling_inputs import digest_inputs
from continuity_core.extraction.terms import snippet
from continuity_core.models.checkpoint import Checkpoint
from continuity_core.models.checkpoint_trigger import CheckpointTrigger
from continuity_core.models.handoff import Handoff
from continuity_core.models.session_digest import SessionDigest
from continuity_core.models.state import SNIPPET_CHARS, SessionState
from continuity_core.recovery.briefing_lines import LINE_CHARS, ORDER
from continuity_core.recovery.handoff import render_handoff
from continuity_core.recovery.recovery import Recovery, RecoverySource, render_recovery
from continuity_core.recovery.recovery_block import (
    AFTER_SUMMARY_CHARS,
    BRIEFING_CHARS,
    FIRST_THREE,
    render_digest,
)
from continuity_core.recovery.tiers import LEVEL_LIMITS, level_one

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
ROOT = "/home/ana/shop"
HEADER = "## Session Recovery Context"


# -- the pipeline ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Turn:
    """One prompt and what followed it, in the client's readable transcript format."""

    prompt: str
    after: tuple[str, ...] = ()  # blocks: "Assistant: …", "Tool Bash: …", "Result: …", "Plan:\n- [x] …"

    def text(self) -> str:
        return readable(f"User: {self.prompt}", *self.after)


def readable(*blocks: str) -> str:
    """Blocks as the client writes them: each ended by a blank line."""
    return "".join(block.strip("\n") + "\n\n" for block in blocks)


def state_at(prompts: list[str], total: int, now: datetime) -> SessionState:
    """The session state a checkpoint reads: the prompts pending since the last one, as snippets."""
    return SessionState(
        session_key="s-1",
        harness=client_harness.CLAUDE_CODE,
        project=ROOT,
        project_normalized=ROOT,
        started_at=T0,
        last_activity_at=now,
        total_prompts=total,
        pending_snippets=[snippet(p, SNIPPET_CHARS) or "" for p in prompts],
    )


def checkpoint_digest(
    previous: SessionDigest | None, prompts: list[str], total: int, transcript: str, now: datetime
) -> SessionDigest:
    """One checkpoint's roll, as ``CheckpointWriter._rolled`` does it."""
    inputs = digest_inputs(
        state_at(prompts, total, now), transcript, previous.recent_prompts if previous else [], now
    )
    return roll(
        previous,
        inputs.statements,
        now=now,
        prompts=total,
        last_instruction=inputs.last_instruction,
        recent=inputs.recent,
        roots=[ROOT],
    )


def digest_of(turns: list[Turn], every: int = 5, tail: str = "") -> SessionDigest:
    """The session's digest after a checkpoint every ``every`` prompts (and one at the end);
    ``tail``: transcript the last checkpoint reads after the last turn (a compaction)."""
    digest: SessionDigest | None = None
    for start in range(0, len(turns), every):
        part = turns[start : start + every]
        total = start + len(part)
        text = "".join(t.text() for t in part)
        if total == len(turns):
            text += tail
        now = T0 + timedelta(minutes=total)
        digest = checkpoint_digest(digest, [t.prompt for t in part], total, text, now)
    assert digest is not None
    return digest


def claude_code_digest(records: list[dict[str, Any]], prompts: list[str]) -> SessionDigest:
    """A Claude Code transcript rendered by the client, read by the service at one checkpoint."""
    text = client_transcript.render_all(client_harness.CLAUDE_CODE, records)
    now = T0 + timedelta(minutes=len(prompts))
    return checkpoint_digest(None, prompts, len(prompts), text, now)


def block(digest: SessionDigest, budget: int = 20_000) -> str:
    return render_digest(digest, HEADER, budget, [ROOT])[0]


def headings(text: str) -> list[str]:
    """The briefing's section names in the order shown (a heading's parenthesised note aside)."""
    names = []
    for found in re.finditer(r"(?m)^### (.+)$", text):
        title = found.group(1)
        names.append(next((name for name in ORDER if title.startswith(name)), title))
    return names


def section(text: str, name: str) -> list[str]:
    """The lines under the heading ``name`` (its own note aside), up to the next blank line."""
    for part in text.split("\n\n"):
        head, _, body = part.partition("\n")
        if head.startswith(f"### {name}"):
            return body.split("\n") if body else []
    return []


def sections(text: str, names: tuple[str, ...]) -> list[tuple[str, list[str]]]:
    """(heading, lines) of each of ``names`` the text shows, headings whole."""
    found = []
    for part in text.split("\n\n"):
        head, _, body = part.partition("\n")
        if any(head.startswith(f"### {name}") for name in names):
            found.append((head, body.split("\n")))
    return found


# -- Next: the user's last instruction -------------------------------------------------------------

PYTEST_FAILURE = """\
============================= test session starts ==============================
platform linux -- Python 3.12.3, pytest-8.3.2, pluggy-1.5.0
rootdir: /home/ana/shop
collected 42 items

tests/test_cart.py ....F..F..................................            [100%]

=================================== FAILURES ===================================
______________________________ test_row_expansion ______________________________

    def test_row_expansion():
        rows = expand(cart_rows(), open_ids={"c1"})
>       assert len(rows) == 3
E       assert 2 == 3
E        +  where 2 = len([Row(id='c1'), Row(id='c2')])

tests/test_cart.py:41: AssertionError
____________________________ test_totals_rounding _____________________________

    def test_totals_rounding():
        cart = Cart(lines=[Line(price=Decimal("0.333"), qty=3)])
>       assert cart.total() == Decimal("1.00")
E       AssertionError: assert Decimal('0.999') == Decimal('1.00')
E        +  where Decimal('0.999') = <bound method Cart.total of Cart(...)>()

tests/test_cart.py:58: AssertionError
=========================== short test summary info ============================
FAILED tests/test_cart.py::test_row_expansion - assert 2 == 3
FAILED tests/test_cart.py::test_totals_rounding - AssertionError: assert Decimal('0.999') == Decimal('1.00')
========================= 2 failed, 40 passed in 0.84s ========================="""


@pytest.mark.parametrize(
    "between",
    [
        pytest.param("\n\n", id="a blank line between"),
        pytest.param("\\\n\\\n", id="right above it, as Claude Code keeps a backslash-newline"),
    ],
)
def test_pasted_pytest_output_is_summarised_in_the_quoted_instruction_and_the_users_sentence_kept(
    between: str,
) -> None:
    # Given a prompt that is one sentence of the user's and 40 lines of pasted pytest output
    own = "A couple of cart tests are unhappy since the rounding change, please fix them:"
    assert len(PYTEST_FAILURE.splitlines()) >= 30
    turns = [Turn("add rounding to the cart totals", ("Assistant: Added rounding to `Cart.total`.",))]
    turns.append(Turn(f"{own}{between}{PYTEST_FAILURE}"))

    # When the briefing is rendered
    quoted = section(block(digest_of(turns)), "Next")

    # Then the user's sentence is quoted as written and the paste is one line saying what it was
    assert quoted[0].startswith(f"> {own}")
    (note,) = [q for q in quoted if q.startswith("> (+ ")]
    assert re.fullmatch(
        r"> \(\+ \d+ lines of pytest output: .*failing: test_row_expansion, test_totals_rounding\)", note
    )
    assert "2 failed, 40 passed" in note
    # and no line of the paste is quoted
    pasted = [line.strip() for line in PYTEST_FAILURE.splitlines() if line.strip()]
    assert [q for q in quoted if q[2:].strip() in pasted] == []


# -- Where things stand and Checks --------------------------------------------------------------------

REPORT = """\
Done! Both fixes are in:

1. The refund total now rounds half-up in `refunds/totals.py`, so 0.985 becomes 0.99.
2. The webhook retries three times with exponential backoff before it marks a payment failed.

- Added `test_refund_rounding` for the half-up case
- Removed the unused `legacy_rate()` helper

The migration for the new `refund_reason` column is not written yet.
Let me know if you want me to open a PR."""


def test_an_agent_report_is_split_into_claims_under_where_things_stand() -> None:
    # Given an agent's final report mixing numbered items, bullets, prose and pleasantries
    turns = [Turn("fix the refund rounding and the webhook retries", (f"Assistant: {REPORT}",))]

    # When the briefing is rendered
    where = section(block(digest_of(turns)), "Where things stand")

    # Then each item and each sentence is a claim of its own line, and the fluff is gone
    assert where == [
        "- The refund total now rounds half-up in `refunds/totals.py`, so 0.985 becomes 0.99.",
        "- The webhook retries three times with exponential backoff before it marks a payment failed.",
        "- Added `test_refund_rounding` for the half-up case",
        "- Removed the unused `legacy_rate()` helper",
        "- The migration for the new `refund_reason` column is not written yet.",
    ]
    assert not any("Let me know" in line or "Done!" in line or "fixes are in" in line for line in where)


def test_a_ticked_task_list_and_a_later_test_run_show_as_where_things_stand_and_checks() -> None:
    # Given the agent's task list, three of four ticked, and a later run of the tests: 80 passed
    turns = [
        Turn(
            "add discount codes to the checkout",
            (
                "Plan:\n- [x] Add the DiscountCode model\n- [>] Apply codes in the checkout total\n"
                "- [ ] Write tests for expired codes\n- [ ] Update the API docs",
                "Tool Edit: /home/ana/shop/src/checkout/discounts.py",
                "Result: The file /home/ana/shop/src/checkout/discounts.py has been updated successfully.",
                "Plan:\n- [x] Add the DiscountCode model\n- [x] Apply codes in the checkout total\n"
                "- [x] Write tests for expired codes\n- [ ] Update the API docs",
                "Tool Bash: uv run pytest",
                "Result: " + "." * 72 + " [ 90%]\n........ [100%]\n80 passed in 2.41s",
                "Assistant: Discount codes apply at checkout and expire on time.",
            ),
        )
    ]

    # When the briefing is rendered
    text = block(digest_of(turns))

    # Then the list's latest state is where things stand, and the run is the check's verdict
    where = section(text, "Where things stand")
    assert "### Where things stand (task list: 3 of 4 done)" in text
    assert "- To do: Update the API docs" in where
    # (the newest finished tasks: beside a report that says what was done, two of them)
    assert {"- Done: Apply codes in the checkout total", "- Done: Write tests for expired codes"} <= set(
        where
    )
    assert not any(line.startswith("- In progress:") for line in where)
    assert section(text, "Checks") == ["- passed: `uv run pytest` — 80 passed in 2.41s (prompt 1)"]


# -- Rules in force ------------------------------------------------------------------------------------


def test_a_hook_that_runs_on_every_edit_is_a_rule_in_force() -> None:
    # Given Claude Code's hook outcome after an edit (the client renders it as a Hook block)
    turns = [
        Turn(
            "rename the cart helper to basket",
            (
                "Tool Edit: /home/ana/shop/src/cart/helper.py",
                "Result: The file /home/ana/shop/src/cart/helper.py has been updated successfully.",
                "Hook (PostToolUse:Edit): uv run ruff format",
                "Result: completed successfully: 1 file reformatted, 23 files left unchanged",
                "Assistant: Renamed the helper to `basket`.",
            ),
        )
    ]

    # When the briefing is rendered
    rules = section(block(digest_of(turns)), "Rules in force")

    # Then the project's hook is one of the rules in force
    assert "- The project's PostToolUse:Edit hook runs `uv run ruff format`" in rules


CLAUDE_MD = """\
     1\u2192# Shop
     2\u2192
     3\u2192## Commands
     4\u2192
     5\u2192- Always run `make test` before committing
     6\u2192- `make lint` checks the style
     7\u2192"""


def test_a_rule_of_a_claude_md_the_agent_read_is_a_rule_in_force() -> None:
    # Given the agent reading the project's CLAUDE.md (as Claude Code's Read tool numbers its lines)
    turns = [
        Turn(
            "add a README section on the checkout flow",
            (
                "Tool Read: /home/ana/shop/CLAUDE.md",
                f"Result: {CLAUDE_MD}",
                "Assistant: I added a Checkout section to the README.",
            ),
        )
    ]

    # When the briefing is rendered
    rules = section(block(digest_of(turns)), "Rules in force")

    # Then its rule is in force, said where it comes from; its other lines are not rules
    assert "- Always run `make test` before committing (CLAUDE.md)" in rules
    assert not any("checks the style" in line for line in rules)


def test_a_standing_preference_is_not_closed_by_a_later_prompt_that_does_not_reverse_it() -> None:
    # Given a preference on how to filter, and a later prompt adding to the same feature
    preference = (
        "for the timeline filtering I'd rather use the vis group.visible flag, "
        "less work than rebuilding the dataset"
    )
    turns = [
        Turn(preference, ("Assistant: The filter now toggles `group.visible` for each group.",)),
        Turn(
            "the timeline filtering should also hide empty groups, with the showNested option of vis",
            ("Assistant: Empty groups are hidden now.",),
        ),
    ]

    # When the briefing is rendered
    text = block(digest_of(turns))

    # Then the preference is still in force, not struck through as answered or replaced
    assert any(preference in line for line in section(text, "Rules in force"))
    assert not any("group.visible" in line for line in section(text, "No longer current"))


# -- what no longer holds -----------------------------------------------------------------------------


def _claude(kind: str, uuid: str, parent: str | None, content: object) -> dict[str, Any]:
    return {
        "type": kind,
        "uuid": uuid,
        "parentUuid": parent,
        "isSidechain": False,
        "sessionId": "s-1",
        "message": {"role": kind, "content": content},
    }


def test_a_rewound_branch_is_not_current() -> None:
    # Given a Claude Code session whose user rewound to before their second prompt and asked otherwise
    abandoned = "from now on keep every session in Redis, never in the Postgres table"
    records = [
        _claude("user", "u1", None, "add a logout button to the header"),
        _claude("assistant", "a1", "u1", [{"type": "text", "text": "Added a logout button."}]),
        _claude("user", "u2", "a1", abandoned),
        _claude("assistant", "a2", "u2", [{"type": "text", "text": "Sessions are stored in Redis now."}]),
        _claude("user", "u3", "a1", "make the logout button red"),  # parentUuid: back to a1
        _claude("assistant", "a3", "u3", [{"type": "text", "text": "The logout button is red now."}]),
    ]
    prompts = ["add a logout button to the header", abandoned, "make the logout button red"]

    # When the service reads the client's transcript and the briefing is rendered
    text = block(claude_code_digest(records, prompts))

    # Then nothing of the abandoned branch is shown as current
    current = [
        line
        for name in ORDER
        if name != "No longer current"
        for line in section(text, name)
        if not line.startswith("- ~~")
    ]
    assert current and not any("Redis" in line for line in current)
    assert any("red" in line for line in section(text, "Next"))


def test_a_finding_about_a_function_the_session_removed_is_not_current() -> None:
    # Given the agent's finding about `foo()`, then an edit and a commit that removed `foo()`
    finding = (
        "I found that `foo()` in src/net/upload.py swallows the timeout error, so the retry loop never fires."
    )
    turns = [
        Turn(
            "the uploads never retry when the network drops, find out why",
            (
                "Tool Read: /home/ana/shop/src/net/upload.py",
                "Result: def foo(request):\n    try:\n        return send(request)\n"
                "    except Timeout:\n        return None",
                f"Assistant: {finding}",
                "Tool Edit: /home/ana/shop/src/net/upload.py",
                "Result: The file /home/ana/shop/src/net/upload.py has been updated successfully.",
                'Tool Bash: git commit -am "Remove foo(): the upload loop retries on timeouts itself"',
                "Result: [main 1a2b3c4] Remove foo(): the upload loop retries on timeouts itself\n"
                " 1 file changed, 3 insertions(+), 20 deletions(-)",
                "Assistant: I removed `foo()`; the upload loop catches the timeout and retries three times.",
            ),
        ),
        Turn("now add a progress bar to the upload dialog"),
    ]

    # When the briefing is rendered
    text = block(digest_of(turns))

    # Then the finding about the removed function is not shown as current
    current = [line for name in ORDER if name != "No longer current" for line in section(text, name)]
    assert not any("swallows the timeout" in line and not line.startswith("- ~~") for line in current)


# -- size and shape -----------------------------------------------------------------------------------


def _messy_turn(n: int) -> Turn:
    path = f"{ROOT}/src/{'very_long_package_name_' * 3}{n}/module_with_a_long_name_{n}.py"
    prompt = " ".join(
        [
            f"ok so step {n}: we must never change the public signature of `calculate_totals_{n}` because",
            f"the mobile app team ({n} people, three time zones) calls it directly and cannot ship before",
            f"the next release train which leaves on the {n}th, and also please keep the docstrings in the",
            f"numpy style everywhere you touch, and should we keep the old endpoint /v{n}/totals alive for",
            f"another quarter or drop it with the release of version {n}.0 of the mobile application?",
        ]
    )
    report = " ".join(
        [
            f"I looked into `calculate_totals_{n}` and the rounding goes wrong because the discount is",
            f"applied after the tax instead of before it, which means that for every cart with more than {n}",
            "lines the total drifts by a cent or more and the mobile app shows a different figure than the",
            f"web checkout does; I decided to use Decimal with ROUND_HALF_UP for the totals of step {n}",
            f"everywhere in the checkout module and its callers. The change is in `{path}`. Should I",
            f"also migrate the stored totals of the orders table for step {n} or leave them as they are",
            "until the finance team confirms the new figures?",
        ]
    )
    tests = f"tests/{'deeply/nested/' * 4}test_totals_{n}.py"
    listing = "\n".join(f"    {i:>4}\u2192    value_{i} = compute(value_{i - 1})" for i in range(1, 40))
    return Turn(
        prompt,
        (
            f"Tool Read: {path}",
            f"Result: {listing}",
            f"Tool Edit: {path}",
            f"Result: The file {path} has been updated successfully.",
            f"Tool Bash: cd {ROOT} && uv run pytest {tests} -x -q 2>&1 | tail -30",
            f"Result: FAILED {tests}::test_rounding_of_totals_with_a_very_long_name_{n} - assert 1 == 2\n"
            f"1 failed, {n * 10} passed in 1.{n:02d}s",
            f"Assistant: {report}",
        ),
    )


def _messy_session(prompts: int = 30) -> list[Turn]:
    """A long session written the way real ones are: long run-on prompts, pasted output, long paths,
    long agent reports in mixed paragraphs, many files, checks, rules, decisions and questions."""
    return [_messy_turn(n) for n in range(1, prompts + 1)]


def test_no_line_is_longer_than_200_characters_on_a_long_messy_session() -> None:
    # Given a long session of long prompts, long paths, long commands and long run-on reports
    digest = digest_of(_messy_session())

    # When it is briefed, in a block too small for all of it
    text, cut = render_digest(digest, HEADER, BRIEFING_CHARS, [ROOT])

    # Then every line but the quoted instruction's is at most 200 characters, the closing one too
    long = [line for line in text.split("\n") if len(line) > LINE_CHARS and not line.startswith(">")]
    assert cut and long == []


def test_the_provenance_line_is_at_most_200_characters() -> None:
    # Given a checkpoint of another session of the project, from a machine, a person and a branch
    checkpoint = _checkpoint(_every_section()).model_copy(
        update={
            "session_key": "3f2a9c4e-8b1d-4e6f-a2c3-9d8e7f6a5b4c",
            "trigger": CheckpointTrigger.PRE_COMPACTION,
            "sequence": 12,
        }
    )

    # When a session start recovers it
    text, _ = render_recovery(Recovery([checkpoint], RecoverySource.SAME_PROJECT), T0 + timedelta(hours=2))

    # Then its one provenance line is short too
    (provenance,) = [line for line in text.split("\n") if line.startswith("_Recovered from")]
    assert len(provenance) <= LINE_CHARS


def test_the_block_stays_within_4000_characters_on_a_big_session() -> None:
    # Given a big session, more than any block holds
    digest = digest_of(_messy_session(60))

    # When it is rendered with all the room a harness would give
    text, cut = render_digest(digest, HEADER, 100_000, [ROOT])

    # Then it is at most 4,000 characters and says it left things out
    assert len(text) <= BRIEFING_CHARS == 4000
    assert cut and "_Left out for space:" in text


def test_the_block_stays_within_2500_characters_after_a_compaction_summary_was_taken_in() -> None:
    # Given the same big session, compacted by the harness with its own summary
    summary = (
        "[Compact summary] This session is being continued from a previous conversation. The user is "
        "fixing the rounding of the checkout totals step by step; Decimal with ROUND_HALF_UP was chosen."
    )
    digest = digest_of(_messy_session(60), tail=readable("--- context compacted (auto) ---", summary))
    assert digest.compacted_prompt is not None

    # When it is rendered right after the compaction (the agent holds that summary), and for a
    # start that does not hold it (after /clear, a new session)
    text, _ = render_digest(digest, HEADER, 100_000, [ROOT], beside_summary=True)
    cleared, _ = render_digest(digest, HEADER, 100_000, [ROOT])

    # Then beside the summary it is the compaction-loss check, at most 2,500 characters; without
    # it, the whole briefing
    assert len(text) <= AFTER_SUMMARY_CHARS == 2500
    assert "_Compaction-loss check:" in text
    assert "_Compaction-loss check:" not in cleared and AFTER_SUMMARY_CHARS < len(cleared) <= BRIEFING_CHARS


# -- one layout everywhere -----------------------------------------------------------------------------


def _every_section() -> SessionDigest:
    """A session that gives every section something to say."""
    return digest_of(
        [
            Turn("never touch the migrations folder, the DBA owns it"),
            Turn("let's use Redis for the job queue"),
            Turn(
                "why do the S3 uploads time out after 30 seconds?",
                (
                    "Tool Edit: /home/ana/shop/src/jobs/queue.py",
                    "Result: The file /home/ana/shop/src/jobs/queue.py has been updated successfully.",
                    "Tool Bash: uv run pytest",
                    "Result: 1 failed, 41 passed in 0.90s",
                ),
            ),
            Turn("actually, switch the job queue to SQS instead of Redis"),
            Turn(
                "now wire the queue into the worker",
                ("Assistant: The worker reads from the SQS queue now; the retry test still fails.",),
            ),
        ]
    )


def _checkpoint(digest: SessionDigest, trigger: CheckpointTrigger = CheckpointTrigger.PERIODIC) -> Checkpoint:
    return Checkpoint(
        id="cp-1",
        session_key="s-1",
        harness=client_harness.CLAUDE_CODE,
        project=ROOT,
        project_normalized=ROOT,
        trigger=trigger,
        digest="(the checkpoint's own text)",
        prompt_count=digest.prompts,
        sequence=3,
        created_at=T0 + timedelta(minutes=digest.prompts),
        session_digest=digest,
        machine_name="ana-macbook-pro",
        user="ana",
        branch="fix/checkout-totals",
    )


def _handoff(digest: SessionDigest) -> Handoff:
    return Handoff(
        id="h-1",
        session_key="s-1",
        harness=client_harness.CLAUDE_CODE,
        project=ROOT,
        project_normalized=ROOT,
        created_at=T0 + timedelta(minutes=digest.prompts),
        by="ana",
        note="over to you: the worker wiring",
        checkpoint_id="cp-1",
        session_digest=digest,
    )


def test_every_source_shows_the_same_sections_in_the_same_order() -> None:
    # Given a session with something for every section
    digest = _every_section()
    checkpoint = _checkpoint(digest)
    now = T0 + timedelta(hours=1)
    assert headings(block(digest)) == list(ORDER)

    # When it is recovered in the same session, after /clear, by another session of the project,
    # and handed off
    shown = {
        source.value: render_recovery(Recovery([checkpoint], source), now, BRIEFING_CHARS)[0]
        for source in (
            RecoverySource.SAME_SESSION,
            RecoverySource.CLEARED_SESSION,
            RecoverySource.SAME_PROJECT,
        )
    }
    shown["handoff"] = render_handoff(_handoff(digest), now, BRIEFING_CHARS)[0]

    # Then each shows the briefing's sections, in the briefing's order
    assert {source: headings(text) for source, text in shown.items()} == {
        source: list(ORDER) for source in shown
    }


def test_recover_1_is_the_briefings_first_three_sections() -> None:
    # Given a session's checkpoint with a rolling digest
    digest = _every_section()
    checkpoint = _checkpoint(digest)
    now = T0 + timedelta(hours=1)

    # When `continuity recover 1` answers, and a session start recovers the same checkpoint
    one = level_one([checkpoint], digest, [], now)
    start = render_recovery(Recovery([checkpoint], RecoverySource.SAME_SESSION), now, BRIEFING_CHARS)[0]

    # Then level 1 is exactly the block's first three sections, headings and lines alike
    assert headings(one) == list(FIRST_THREE)
    assert sections(one, ORDER) == sections(start, FIRST_THREE)
    assert len(one) <= LEVEL_LIMITS[1]


def test_recover_1_on_a_big_session_shows_whole_lines_of_the_briefing() -> None:
    # Given a big session whose first three sections do not all fit level 1
    digest = digest_of(_messy_session(60))
    checkpoint = _checkpoint(digest)
    whole = render_digest(digest, HEADER, 200_000, [ROOT], whole=True)[0]

    # When `continuity recover 1` answers
    one = level_one([checkpoint], digest, [], T0 + timedelta(hours=2))

    # Then it is within its size, and each line it shows under a section is a whole line of the briefing
    assert len(one) <= LEVEL_LIMITS[1]
    shown = [line for _, lines in sections(one, ORDER) for line in lines]
    assert shown and [line for line in shown if line not in whole.split("\n")] == []


# -- the client's renderer and the service agree ------------------------------------------------------


def test_the_clients_rendering_of_a_claude_code_hook_outcome_is_read_as_the_projects_rule() -> None:
    # Given Claude Code's transcript lines for an edit and the formatter hook that ran after it
    edit = {"type": "tool_use", "id": "t1", "name": "Edit", "input": {"file_path": f"{ROOT}/src/a.py"}}
    records = [
        _claude("user", "u1", None, "tidy src/a.py"),
        _claude("assistant", "a1", "u1", [edit]),
        _claude("user", "r1", "a1", [{"type": "tool_result", "tool_use_id": "t1", "content": "updated"}]),
        {"type": "system", "content": "Running \x1b[1mPostToolUse:Edit\x1b[22m...", "level": "info"},
        {
            "type": "system",
            "content": "\x1b[1mPostToolUse:Edit\x1b[22m [uv run ruff format] completed successfully: "
            "24 files left unchanged",
            "isMeta": False,
            "level": "info",
        },
        _claude("assistant", "a2", "r1", [{"type": "text", "text": "Tidied `src/a.py`."}]),
    ]

    # When the service reads what the client sent
    rules = section(block(claude_code_digest(records, ["tidy src/a.py"])), "Rules in force")

    # Then the hook is a rule of the project's
    assert "- The project's PostToolUse:Edit hook runs `uv run ruff format`" in rules
