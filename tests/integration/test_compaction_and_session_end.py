"""Pre-compaction and session-end checkpoints through the hook handler, on moto."""

from tests.integration.conftest import prompt
from tests.support.api import InProcessService


def hooks(service: InProcessService, event: str, session: str, **fields: str) -> dict:
    status, body = service.hook(event, {"session_id": session, "cwd": "/work/app", **fields})
    assert status == 200, body
    return body


def triggers(service: InProcessService, session: str) -> list[str]:
    return [c["trigger"] for c in service.session_checkpoints(session)]


def test_pre_compaction_writes_at_once_and_the_compacted_session_gets_it_back(
    service: InProcessService,
) -> None:
    for n in range(1, 4):
        service.hook("user-prompt-submit", prompt("s", n))

    hooks(
        service,
        "pre-compaction",
        "s",
        trigger="manual",
        custom_instructions="keep the list of failing tests",
        sessionContext="Working on flaky checkout tests",
    )
    answer = hooks(service, "session-start", "s", source="compact")

    context = answer["hookSpecificOutput"]["additionalContext"]
    assert triggers(service, "s") == ["pre_compaction"]
    assert "_Recovered from this session: pre-compaction checkpoint" in context
    assert "Compaction instructions: keep the list of failing tests" in context
    assert "> step 3: refactor" in context
    # The harness's own context for the compaction is its summary: the block says it holds it and
    # leaves it out (the compaction-loss check), and the checkpoint keeps it
    assert "_Compaction-loss check: the harness's summary (prompt 3) already holds" in context
    assert "Working on flaky checkout tests" not in context
    assert "Working on flaky checkout tests" in service.session_checkpoints("s")[-1]["digest"]


def test_a_repeated_pre_compaction_or_one_right_after_another_adds_no_duplicate(
    service: InProcessService,
) -> None:
    service.hook("user-prompt-submit", prompt("s", 1))

    hooks(service, "pre-compaction", "s", trigger="auto")
    hooks(service, "pre-compaction", "s", trigger="auto")
    hooks(service, "pre-compaction", "s", trigger="manual")
    service.hook("user-prompt-submit", prompt("s", 2))
    hooks(service, "pre-compaction", "s", trigger="auto")

    assert triggers(service, "s") == ["pre_compaction", "pre_compaction"]


def test_session_end_writes_what_arrived_since_the_last_checkpoint(service: InProcessService) -> None:
    for n in range(1, 11):
        service.hook("user-prompt-submit", prompt("s", n))
    service.drain_queue()
    for n in range(11, 13):
        service.hook("user-prompt-submit", prompt("s", n))

    hooks(service, "session-end", "s", reason="logout")
    hooks(service, "session-end", "s", reason="logout")

    checkpoints = service.session_checkpoints("s")
    assert [c["trigger"] for c in checkpoints] == ["periodic", "session_end"]
    assert (checkpoints[1]["first_prompt"], checkpoints[1]["last_prompt"]) == (11, 12)


def test_session_end_with_nothing_new_writes_nothing(service: InProcessService) -> None:
    for n in range(1, 11):
        service.hook("user-prompt-submit", prompt("s", n))
    service.drain_queue()

    hooks(service, "session-end", "s", reason="prompt_input_exit")

    assert triggers(service, "s") == ["periodic"]


def test_clear_writes_the_cleared_story_and_the_next_start_recovers_it(
    service: InProcessService,
) -> None:
    # Given a session checkpointed at prompt 10, then one more prompt, and another session of the
    # project that checkpointed later
    for n in range(1, 11):
        service.hook("user-prompt-submit", prompt("old", n))
    service.drain_queue()
    service.hook("user-prompt-submit", prompt("old", 11))
    # When it is cleared and the new session starts (source=clear)
    hooks(service, "session-end", "old", reason="clear")
    for n in range(1, 11):
        service.hook("user-prompt-submit", prompt("other", n, "/work/app"))
    service.drain_queue()
    answer = hooks(service, "session-start", "new", source="clear")

    # Then the cleared session's clear checkpoint holds prompt 11, and that is what is recovered
    assert triggers(service, "old") == ["periodic", "clear"]
    context = answer["hookSpecificOutput"]["additionalContext"]
    assert "session old (the session you just cleared)" in context
    assert "step 11: refactor" in context


def test_a_flush_already_due_lands_in_the_clear_checkpoint(service: InProcessService) -> None:
    for n in range(1, 11):
        service.hook("user-prompt-submit", prompt("s", n))  # due: the flush message is waiting

    hooks(service, "session-end", "s", reason="clear")
    service.drain_queue()

    assert [(c["trigger"], c["last_prompt"]) for c in service.session_checkpoints("s")] == [("clear", 10)]


def test_session_end_clears_what_was_pending(service: InProcessService) -> None:
    from tests.support import on_aws

    service.hook("user-prompt-submit", prompt("s", 1))
    hooks(service, "session-end", "s", reason="clear")

    state = on_aws.state_store().get("default", "s")
    assert state is not None
    assert (state.prompts_since_checkpoint, state.pending_snippets, state.ended_at is not None) == (
        0,
        [],
        True,
    )


def test_pre_compaction_right_after_session_start_keeps_the_context(service: InProcessService) -> None:
    hooks(service, "session-start", "fresh", source="startup")

    hooks(service, "pre-compaction", "fresh", trigger="manual", custom_instructions="keep the plan")

    assert triggers(service, "fresh") == ["pre_compaction"]
