"""The rolling session digest end to end in-process: hooks with live transcripts → the writer on moto
→ the recovery block and the inherited block."""

from __future__ import annotations

import re

import pytest

from tests.support.api import InProcessService
from tests.support.sessions import Transcript

CWD = "/work/shop"
RULE = "Never touch the migrations folder, they are generated."


def turn(service: InProcessService, transcript: Transcript, n: int, text: str, tools: str = "") -> None:
    """One user turn as Claude Code's client posts it: the prompt, and the transcript so far."""
    body = transcript.hook_body(hook_event_name="UserPromptSubmit", prompt=text)
    status, answer = service.hook("user-prompt-submit", body)
    assert status == 200, answer
    transcript.grow(f"User: {text}\n\nAssistant: On it (step {n}).\n\n{tools}")


def compaction(service: InProcessService, transcript: Transcript) -> str:
    status, _ = service.hook("pre-compaction", transcript.hook_body(trigger="auto"))
    assert status == 200
    status, answer = service.hook(
        "session-start", {"session_id": transcript.session, "cwd": CWD, "source": "compact"}
    )
    assert status == 200
    return str(answer["hookSpecificOutput"]["additionalContext"])


def work(service: InProcessService, transcript: Transcript, first: int, last: int) -> None:
    for n in range(first, last + 1):
        turn(service, transcript, n, f"step {n}: tidy the checkout module's error handling")
    service.drain_queue()


def test_a_constraint_from_prompt_2_survives_three_checkpoints_and_two_compactions(
    service: InProcessService,
) -> None:
    # Given a rule at prompt 2, a fact remembered, and the agent editing a file
    transcript = Transcript("s", cwd=CWD)
    edit = "Tool Edit: src/checkout/errors.py\n\nResult: ok\n\n"
    turn(service, transcript, 1, "Set up the checkout refactor.", edit)
    turn(service, transcript, 2, RULE)
    service.hook(
        "remember",
        {"session_id": "s", "cwd": CWD, "content": "Payments sandbox key lives in Vault at kv/pay"},
    )
    work(service, transcript, 3, 10)  # checkpoint 1
    first = compaction(service, transcript)  # checkpoint 2
    work(service, transcript, 11, 20)  # checkpoint 3
    turn(service, transcript, 21, "Finally, write the changelog entry for the refactor.")
    # When the session compacts a second time
    second = compaction(service, transcript)
    # Then both blocks carry the rule with its provenance, the remembered fact verbatim, the file
    # the agent edited, and the last instruction verbatim
    assert len(service.session_checkpoints("s")) >= 4
    for block in (first, second):
        assert f"- {RULE} (prompt 2)" in block
        assert "- Payments sandbox key lives in Vault at kv/pay (remembered)" in block
        assert "`src/checkout/errors.py` (edited" in block
    quote = "> Finally, write the changelog entry for the refactor."
    assert f"### Next\n{quote}\n_The user's last instruction (prompt 21);" in second


def test_a_very_long_last_instruction_is_kept_verbatim_to_its_share_and_marked_truncated(
    service: InProcessService,
) -> None:
    # Given a session whose last prompt (a pasted log, 3,000+ characters) the transcript holds whole
    transcript = Transcript("s", cwd=CWD)
    turn(service, transcript, 1, RULE)
    log = "\n".join(f"line {n}: timeout in worker" for n in range(150))
    long_prompt = f"Fix the failure in this log:\n{log}"
    turn(service, transcript, 2, long_prompt)
    # When the session compacts
    block = compaction(service, transcript)
    # Then the block quotes the prompt's beginning verbatim under Next, within its share, and says it
    # was cut
    next_section = block.split("### Next\n", 1)[1].split("\n\n", 1)[0]
    quote = [line for line in next_section.splitlines() if line.startswith(">")]
    assert "\n".join(quote).startswith("> Fix the failure in this log:\n> line 0: timeout in worker\n")
    assert quote[-1].endswith("[truncated]")
    assert len("\n".join(q.removeprefix("> ") for q in quote)) <= 600
    assert "_The user's last instruction (prompt 2);" in next_section


def test_a_pre_compaction_right_after_a_periodic_checkpoint_recovers_the_whole_story(
    service: InProcessService,
) -> None:
    transcript = Transcript("s", cwd=CWD)
    turn(service, transcript, 1, RULE)
    work(service, transcript, 2, 10)  # the periodic checkpoint takes every pending prompt
    block = compaction(service, transcript)  # nothing new since
    assert "_Recovered from this session: pre-compaction checkpoint" in block
    assert f"- {RULE} (prompt 1)" in block
    assert "### Next\n> step 10: tidy the checkout module's error handling\n" in block


def test_a_subagent_inherits_the_parents_rule_after_the_parent_checkpointed_again(
    service: InProcessService,
) -> None:
    # Given a parent whose rule was said at prompt 2, and two checkpoints since
    parent = Transcript("parent", cwd=CWD)
    turn(service, parent, 1, "Set up the checkout refactor.")
    turn(service, parent, 2, RULE)
    work(service, parent, 3, 10)
    work(service, parent, 11, 20)
    # When a sub-agent starts (OpenCode names its parent)
    status, answer = service.hook(
        "session-start",
        {"session_id": "child", "cwd": CWD, "harness": "opencode", "parent_session_key": "parent"},
    )
    # Then its inherited block has the rule among the active constraints
    assert status == 200
    block = answer["hookSpecificOutput"]["additionalContext"]
    constraints = block.split("### Active Constraints\n", 1)[1].split("\n\n", 1)[0]
    assert RULE in constraints


@pytest.mark.parametrize("cap", [10_000, 7_500])
def test_a_block_at_the_harness_cap_fits_and_says_it_was_truncated(
    service: InProcessService, cap: int
) -> None:
    # Given a session with far more rules and decisions than any cap holds
    transcript = Transcript("big", cwd=CWD)
    for n in range(1, 121):
        rule = f"Never rename the column col_{n} of table t_{n}: the nightly export, the BI dashboards "
        rule += "and the partner feed all read it by name, none of them are ours, and renaming breaks them "
        turn(service, transcript, n, rule + "silently until the month-end close, when finance finds out.")
        if n % 10 == 0:
            service.drain_queue()
    # When it restarts after compaction under the harness's cap
    status, answer = service.hook(
        "session-start", {"session_id": "big", "cwd": CWD, "source": "compact", "injection_cap_chars": cap}
    )
    # Then the answer fits the cap and the block says what it left out
    assert status == 200
    block = answer["hookSpecificOutput"]["additionalContext"]
    assert len(block) <= cap
    assert "_Left out for space:" in block and "rules in force" in block.split("_Left out for space:")[1]
    assert "older minor facts were dropped earlier" in block
    # and each rule shown keeps the rule itself (before its reason's colon) and its provenance whole
    rules = block.split("### Rules in force\n", 1)[1].split("\n\n", 1)[0].splitlines()
    shape = re.compile(r"- Never rename the column col_\d+ of table t_\d+: .+ \(prompt \d+\)")
    assert rules and all(shape.fullmatch(rule) for rule in rules), rules


def test_an_agent_digest_between_two_periodic_checkpoints_is_carried_forward(
    service: InProcessService,
) -> None:
    # Given a periodic checkpoint, then the agent's digest, then another periodic checkpoint (the
    # writer remembers the digest it wrote last; the agent's came in between)
    transcript = Transcript("s", cwd=CWD)
    turn(service, transcript, 1, RULE)
    work(service, transcript, 2, 10)
    decision = {"decision": "Keep the checkout retries in the client, not in the gateway"}
    status, _ = service.digest("s", {"summary": "Retries settled.", "decisions": [decision]})
    assert status == 201
    work(service, transcript, 11, 20)
    # When the session recovers
    status, answer = service.hook("session-start", {"session_id": "s", "cwd": CWD, "source": "compact"})
    # Then the newest checkpoint is the writer's, and it still has the agent's decision and the rule
    block = answer["hookSpecificOutput"]["additionalContext"]
    assert "_Recovered from this session: periodic checkpoint" in block
    assert "- Keep the checkout retries in the client, not in the gateway (prompt 10)" in block
    assert "- Retries settled." in block  # the agent's own summary, under where things stand
    assert f"- {RULE} (prompt 1)" in block
