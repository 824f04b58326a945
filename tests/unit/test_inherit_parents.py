"""Parent detection for each harness, and the inherited block (with in-memory fakes)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any, cast

import pytest

from continuity_core.checkpoints.ports import CheckpointStore
from continuity_core.kernel.config import load_config
from continuity_core.models.checkpoint import Checkpoint
from continuity_core.models.checkpoint_trigger import CheckpointTrigger
from continuity_core.models.hooks import Hook, HookEvent
from continuity_core.models.transcripts import SessionSummary, TranscriptHead
from continuity_core.recovery.fit import MAX_INJECTION_CHARS
from continuity_core.recovery.inherit import (
    INHERIT_HEADING,
    MAX_CONSTRAINTS,
    InheritanceService,
    ParentSource,
    constraints_from,
    find_parent,
)
from continuity_core.transcripts.ports import TranscriptStore

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
PROJECT = "/work/app"


def millis(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def head(key: str, text: str = "", harness: str = "claude-code", **extra: Any) -> TranscriptHead:
    values: dict[str, Any] = {
        "session_key": key,
        "harness": harness,
        "project": PROJECT,
        "project_normalized": PROJECT,
        "created_at": NOW - timedelta(hours=1),
        "updated_at": NOW - timedelta(minutes=1),
        "length": len(text),
        "inline": text,
        "marks": [(millis(NOW - timedelta(minutes=1)), len(text))] if text else [],
    }
    return TranscriptHead(**{**values, **extra})


def checkpoint(
    key: str, created_at: datetime, digest: str = "## Session Checkpoint\nProject: /work/app"
) -> Checkpoint:
    return Checkpoint(
        id="cp",
        session_key=key,
        harness="claude-code",
        project=PROJECT,
        project_normalized=PROJECT,
        trigger=CheckpointTrigger.PERIODIC,
        digest=digest,
        prompt_count=10,
        sequence=1,
        created_at=created_at,
    )


class FakeTranscripts:
    def __init__(self, *heads: TranscriptHead) -> None:
        self.heads = {h.session_key: h for h in heads}
        self.reads: list[str] = []

    def assembled_head(
        self, agent_id: str, session_key: str, consistent: bool = False
    ) -> TranscriptHead | None:
        self.reads.append(session_key)
        return self.heads.get(session_key)

    def recent_sessions(
        self, agent_id: str, project: str, limit: int, token: str | None = None, harness: str | None = None
    ) -> tuple[list[SessionSummary], str | None]:
        found = [
            h.summary()
            for h in sorted(self.heads.values(), key=lambda h: h.updated_at, reverse=True)
            if h.project_normalized == project and (harness is None or h.harness == harness)
        ]
        return found[:limit], None


class FakeCheckpoints:
    def __init__(self, *checkpoints: Checkpoint) -> None:
        self.latest = {c.session_key: c for c in checkpoints}

    def latest_for_session(self, agent_id: str, session_key: str) -> Checkpoint | None:
        return self.latest.get(session_key)


def hook(session: str, harness: str = "claude-code", **extra: Any) -> Hook:
    return Hook(
        event=extra.pop("event", HookEvent.SESSION_START),
        session_key=session,
        harness=harness,
        project=PROJECT,
        project_normalized=PROJECT,
        **extra,
    )


def parent_of(
    the_hook: Hook, transcripts: FakeTranscripts, checkpoints: FakeCheckpoints | None = None
) -> Any:
    # Partial fakes: the reads finding a parent makes
    found = checkpoints or FakeCheckpoints()
    return find_parent("default", the_hook, cast(TranscriptStore, transcripts), cast(CheckpointStore, found))


# -- parent detection ------------------------------------------------------------------------------


def test_an_explicit_parent_key_wins_opencode() -> None:
    found = parent_of(hook("child", harness="opencode", parent_session_key="ses_parent"), FakeTranscripts())
    assert (found.session_key, found.source) == ("ses_parent", ParentSource.EXPLICIT)


def test_an_openclaw_subagent_key_points_at_its_main_session() -> None:
    found = parent_of(hook("agent:coder:subagent:6f1c2a", harness="openclaw"), FakeTranscripts())
    assert (found.session_key, found.source) == ("agent:coder:main", ParentSource.OPENCLAW)


def test_an_openclaw_main_session_has_no_parent() -> None:
    assert parent_of(hook("agent:coder:main", harness="openclaw"), FakeTranscripts()) is None


def test_claude_code_subagent_start_inherits_from_its_own_known_session_id() -> None:
    # Given Claude Code's SubagentStart, which carries the parent's session id, of a known session
    transcripts = FakeTranscripts(head("parent", "text"), head("newer", "other"))
    the_hook = hook("parent", event=HookEvent.SUBAGENT_START, subagent_id="agent-7", subagent_type="Explore")
    # When the parent is looked for
    found = parent_of(the_hook, transcripts)
    # Then it is that session, not the sub-agent id and not another one
    assert (found.session_key, found.source) == ("parent", ParentSource.CLAUDE_CODE_SESSION)


def test_a_session_known_only_by_its_checkpoint_is_known() -> None:
    found = parent_of(
        hook("parent", subagent_id="a1"), FakeTranscripts(), FakeCheckpoints(checkpoint("parent", NOW))
    )
    assert found.session_key == "parent"


def test_claude_code_with_an_unknown_session_takes_the_projects_most_recent_other_session() -> None:
    # Given two sessions of the project, the newer one of another harness
    transcripts = FakeTranscripts(
        head("older-cc", "a", updated_at=NOW - timedelta(minutes=5)),
        head("newest-codex", "b", harness="codex", updated_at=NOW),
        head("sub", "", updated_at=NOW),
    )
    # When a sub-agent starts with an unknown session id
    found = parent_of(hook("sub", subagent_id="a1"), transcripts)
    # Then the most recent other session of the same harness is its parent
    assert (found.session_key, found.source) == ("older-cc", ParentSource.CLAUDE_CODE_RECENT)


def test_claude_code_without_agent_id_has_no_parent() -> None:
    assert parent_of(hook("main"), FakeTranscripts(head("other", "x"))) is None


def test_a_codex_subagent_start_inherits_from_the_root_session_it_names() -> None:
    # Given Codex's SubagentStart: its session_id is the root session's (Codex shares it with the
    # sub-agents it spawns, openai/codex#22268), agent_id the child thread's id (openai/codex#22782)
    transcripts = FakeTranscripts(head("root-thread", "User: port the billing job", harness="codex"))
    # When the parent is looked up
    found = parent_of(hook("root-thread", harness="codex", subagent_id="child-thread"), transcripts)
    # Then it is the root session, found by Codex's session id
    assert found is not None
    assert (found.session_key, found.source) == ("root-thread", ParentSource.CODEX_SESSION)


def test_codex_without_agent_id_has_no_parent() -> None:
    transcripts = FakeTranscripts(head("other", "x", harness="codex"))
    assert parent_of(hook("main", harness="codex"), transcripts) is None


def test_the_most_recent_session_is_never_another_sub_agents_own() -> None:
    # Given the project's newest session is a sub-agent's own (stored from its SubagentStop)
    transcripts = FakeTranscripts(
        head("main-1", "a", updated_at=NOW - timedelta(minutes=5)),
        head("main-1:subagent:a9", "b", updated_at=NOW),
    )
    # When a sub-agent of an unknown session starts
    found = parent_of(hook("unknown", subagent_id="a1"), transcripts)
    # Then its parent is the main session, not the sibling sub-agent
    assert found is not None and found.session_key == "main-1"


def test_the_sub_agent_id_is_never_used_as_a_storage_key() -> None:
    transcripts = FakeTranscripts(head("parent", "x"))
    parent_of(hook("parent", subagent_id="agent-7"), transcripts)
    assert "agent-7" not in transcripts.reads


def test_a_parent_key_equal_to_the_own_key_is_ignored() -> None:
    assert parent_of(hook("same", harness="opencode", parent_session_key="same"), FakeTranscripts()) is None


# -- the block -------------------------------------------------------------------------------------


def service(transcripts: FakeTranscripts, checkpoints: FakeCheckpoints, **config: Any) -> InheritanceService:
    # Partial fakes: the reads inheriting makes
    return InheritanceService(
        cast(TranscriptStore, transcripts), cast(CheckpointStore, checkpoints), None, load_config(config)
    )


def test_the_block_has_the_checkpoint_and_the_transcript_since_it() -> None:
    # Given a parent whose transcript grew after its checkpoint
    cp_time = NOW - timedelta(minutes=10)
    parent = head(
        "parent",
        "before the checkpoint. " + "after the checkpoint: use postgres.",
        marks=[(millis(cp_time - timedelta(minutes=1)), 23), (millis(NOW - timedelta(minutes=2)), 58)],
    )
    block = service(FakeTranscripts(parent), FakeCheckpoints(checkpoint("parent", cp_time))).inherited_block(
        "default", hook("child", harness="opencode", parent_session_key="parent"), NOW
    )
    # Then it names the parent, carries the digest (headings demoted) and only the newer text
    assert block is not None and block.startswith(INHERIT_HEADING)
    assert "`parent`" in block
    assert "#### Session Checkpoint" in block
    assert "after the checkpoint: use postgres." in block
    assert "before the checkpoint" not in block


def test_the_block_is_omitted_while_the_parent_has_nothing() -> None:
    the_hook = hook("child", harness="opencode", parent_session_key="parent")
    assert service(FakeTranscripts(), FakeCheckpoints()).inherited_block("default", the_hook, NOW) is None


def test_the_tail_is_at_most_tail_chars_keeping_the_latest() -> None:
    text = "".join(f"line {n}\n" for n in range(2000))
    block = service(FakeTranscripts(head("parent", text)), FakeCheckpoints(), tail_chars=500).inherited_block(
        "default", hook("child", harness="opencode", parent_session_key="parent"), NOW
    )
    assert block is not None
    assert block.endswith("line 1999\n")
    transcript = block.split("### Parent Transcript\n", 1)[1]
    assert len(transcript) <= 501  # the "…" marker plus 500


def test_the_block_leaves_the_recovery_reservation_intact() -> None:
    # Given the largest digest and tail
    digest = "## Session Checkpoint\n" + "d" * 5000
    parent = head("parent", "t" * 20_000)
    block = service(
        FakeTranscripts(parent),
        FakeCheckpoints(checkpoint("parent", NOW - timedelta(hours=2), digest)),
        tail_chars=6000,
    ).inherited_block("default", hook("child", harness="opencode", parent_session_key="parent"), NOW)
    # Then it fits what the recovery budget leaves of the injection cap
    assert block is not None
    assert len(block) <= MAX_INJECTION_CHARS - 2000


def test_inherit_context_false_turns_the_block_off() -> None:
    the_hook = hook("child", harness="opencode", parent_session_key="parent")
    svc = service(FakeTranscripts(head("parent", "x")), FakeCheckpoints(), inherit_context=False)
    assert svc.inherited_block("default", the_hook, NOW) is None


def test_constraints_are_the_latest_distinct_rule_sentences_at_most_eight() -> None:
    texts = [f"Rule {n}: never touch file {n}. Other chatter." for n in range(12)] + [
        "Always run the tests. You must not push to main."
    ]
    found = constraints_from(texts)
    assert len(found) == MAX_CONSTRAINTS
    assert found[-2:] == ["Always run the tests.", "You must not push to main."]
    assert "Other chatter." not in found


@pytest.mark.parametrize("text", ["Let's refactor the writer.", "Sounds good"])
def test_plain_sentences_are_not_constraints(text: str) -> None:
    assert constraints_from([text]) == []
