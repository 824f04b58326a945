"""The dashboard's rules without storage: a checkpoint's diff, a transcript by turn, a session's
status, and the sessions page and timeline read from the in-memory stores."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any, cast

from continuity_core.checkpoints.checkpoint_diff import diff_digests
from continuity_core.hooks.ports import StateStore
from continuity_core.models.checkpoint import Checkpoint
from continuity_core.models.checkpoint_trigger import CheckpointTrigger
from continuity_core.models.dashboard import SessionStatus, TimelineKind
from continuity_core.models.session_digest import Fact, FactKind, FactSource, FactStatus, SessionDigest
from continuity_core.models.state import SessionIdentity, SessionState
from continuity_core.models.transcripts import SessionSummary, TranscriptHead
from continuity_core.sessions.dashboard import DashboardReader, session_status
from continuity_core.transcripts.ports import TranscriptStore
from continuity_core.transcripts.turns import group_turns
from tests.fakes.stores import InMemoryStateStore, Stores
from tests.support.clock import Clock

T0 = datetime(2026, 11, 22, 9, 0, tzinfo=UTC)
PROJECT = "/work/app"


def fact(kind: FactKind, text: str, status: FactStatus = FactStatus.ACTIVE, **extra: object) -> Fact:
    return Fact(kind=kind, text=text, source=FactSource.PROMPT, prompt=1, at=T0, status=status, **extra)


def digest(*facts: Fact) -> SessionDigest:
    return SessionDigest(facts=list(facts))


def checkpoint(sequence: int, session_digest: SessionDigest | None, **extra: object) -> Checkpoint:
    values: dict[str, object] = {
        "id": f"cp{sequence}",
        "session_key": "s1",
        "harness": "claude-code",
        "project": PROJECT,
        "project_normalized": PROJECT,
        "trigger": CheckpointTrigger.PERIODIC,
        "digest": f"digest {sequence}",
        "prompt_count": 10,
        "sequence": sequence,
        "created_at": T0 + timedelta(minutes=sequence),
        "session_digest": session_digest,
    }
    return Checkpoint.model_validate({**values, **extra})


# -- the checkpoint diff ------------------------------------------------------------------------


def test_a_constraint_said_after_the_previous_checkpoint_shows_as_added() -> None:
    before = digest(fact(FactKind.DECISION, "Use SQS for the queue."))
    after = digest(
        fact(FactKind.DECISION, "Use SQS for the queue."), fact(FactKind.CONSTRAINT, "Never touch prod.")
    )

    diff = diff_digests(before, after)

    assert [f.text for f in diff.added] == ["Never touch prod."]
    assert diff.unchanged == 1 and not diff.dropped and not diff.superseded


def test_a_decision_replaced_by_a_later_one_shows_as_superseded_with_what_it_was() -> None:
    old = fact(FactKind.DECISION, "Use SQS.")
    replaced = fact(FactKind.DECISION, "Use SQS.", FactStatus.SUPERSEDED, ended_by="Use Kinesis.")
    new = fact(FactKind.DECISION, "Use Kinesis.")

    diff = diff_digests(digest(old), digest(replaced, new))

    assert [c.fact.ended_by for c in diff.superseded] == ["Use Kinesis."]
    assert diff.superseded[0].previous == old
    assert [f.text for f in diff.added] == ["Use Kinesis."]


def test_a_fact_evicted_by_the_size_bound_shows_as_dropped_and_a_repetition_is_no_change() -> None:
    kept = fact(FactKind.FINDING, "The cache was stale.")
    said_again = kept.model_copy(update={"seen": 3, "text": "the  cache was STALE."})

    diff = diff_digests(digest(kept, fact(FactKind.FILE, "src/app.py")), digest(said_again))

    assert [f.text for f in diff.dropped] == ["src/app.py"]
    assert diff.unchanged == 1 and not diff.added


def test_the_first_checkpoint_has_every_active_fact_added_and_one_without_a_digest_has_none() -> None:
    first = digest(fact(FactKind.CONSTRAINT, "No force pushes."))

    assert [f.text for f in diff_digests(None, first).added] == ["No force pushes."]
    assert diff_digests(first, None).dropped == first.facts


# -- the transcript by turn ---------------------------------------------------------------------

TRANSCRIPT = (
    "Assistant: ready\n\n"
    "User: fix the <script>alert(1)</script> bug\n\n"
    "Assistant: looking\nsecond paragraph\n\n"
    "Tool Edit: src/app.py\n\n"
    "User: <system-reminder>not the user's words</system-reminder>\n\n"
    "--- context compacted (auto) ---\n\n"
    "User: now the tests\n\n"
)


def head(length: int, marks: list[tuple[int, int]] | None = None) -> TranscriptHead:
    return TranscriptHead(session_key="s1", created_at=T0, updated_at=T0, length=length, marks=marks or [])


def test_each_prompt_of_the_user_starts_a_turn_with_what_followed_it() -> None:
    turns = group_turns(TRANSCRIPT, head(len(TRANSCRIPT)))

    assert [t.number for t in turns] == [0, 1, 2]
    assert [b.label for b in turns[1].blocks] == ["User", "Assistant", "Tool", "User", "Marker"]
    assert turns[1].blocks[0].text == "fix the <script>alert(1)</script> bug"
    assert turns[1].blocks[1].text == "looking\nsecond paragraph"
    assert TRANSCRIPT[turns[2].offset :].startswith("User: now the tests")


def test_a_turn_takes_its_time_from_the_append_that_stored_it_and_none_once_moved_to_s3() -> None:
    landed = int((T0 + timedelta(minutes=5)).timestamp() * 1000)
    second = TRANSCRIPT.index("User: fix")

    turns = group_turns(TRANSCRIPT, head(len(TRANSCRIPT), marks=[(landed, len(TRANSCRIPT))]), base=0)
    unmarked = group_turns(TRANSCRIPT, head(len(TRANSCRIPT), marks=[(landed, second)]))

    assert turns[1].at == T0 + timedelta(minutes=5)
    assert unmarked[0].at == T0 + timedelta(minutes=5) and unmarked[1].at is None


# -- status, the sessions page and the timeline -------------------------------------------------


def test_a_session_is_active_then_idle_after_a_quiet_half_hour_and_ended_once_it_ends(
    stores: Stores, clock: Clock
) -> None:
    identity = SessionIdentity(
        session_key="s1", harness="claude-code", project=PROJECT, project_normalized=PROJECT
    )
    state = stores.states.touch("a1", identity, T0)

    assert session_status(state, T0, T0 + timedelta(minutes=29)) is SessionStatus.ACTIVE
    assert session_status(state, T0, T0 + timedelta(minutes=31)) is SessionStatus.IDLE
    stores.states.end_session("a1", "s1", T0)
    ended = stores.states.get("a1", "s1")
    assert session_status(ended, T0, T0) is SessionStatus.ENDED
    cleared = ended.model_copy(update={"last_checkpoint_trigger": "clear"}) if ended else None
    assert session_status(cleared, T0, T0) is SessionStatus.CLEARED


class Transcripts:
    """The reads the dashboard makes of transcripts, counted."""

    def __init__(self, *heads: TranscriptHead, text: str = "") -> None:
        self._heads = {h.session_key: h for h in heads}
        self._text = text
        self.reads = 0
        self.states: InMemoryStateStore | None = None  # what session_page reads states from

    def recent_sessions(
        self,
        agent_id: str,
        project_normalized: str,
        limit: int,
        token: str | None = None,
        harness: str | None = None,
    ) -> tuple[list[SessionSummary], str | None]:
        self.reads += 1
        found = [h.summary() for h in self._heads.values() if harness in (None, h.harness)]
        return found[:limit], None

    def session_page(
        self,
        agent_id: str,
        project_normalized: str,
        limit: int,
        token: str | None = None,
        harness: str | None = None,
    ) -> tuple[list[SessionSummary], str | None, dict[str, SessionState]]:
        found, next_token = self.recent_sessions(agent_id, project_normalized, limit, token, harness)
        keys = [s.session_key for s in found]
        return found, next_token, self.states.get_many(agent_id, keys) if self.states and keys else {}

    def assembled_head(
        self, agent_id: str, session_key: str, consistent: bool = False
    ) -> TranscriptHead | None:
        self.reads += 1
        return self._heads.get(session_key)

    def read(self, agent_id: str, head: TranscriptHead, start: int = 0, end: int | None = None) -> str:
        self.reads += 1
        return self._text[start:end]


def session_head(key: str, harness: str = "claude-code", length: int = 0) -> TranscriptHead:
    return TranscriptHead(
        session_key=key,
        harness=harness,
        project=PROJECT,
        project_normalized=PROJECT,
        created_at=T0,
        updated_at=T0,
        length=length,
    )


class CountedStates:
    """The state store, with the sessions page's reads of it counted."""

    def __init__(self, states: InMemoryStateStore) -> None:
        self._states = states
        self.reads = 0

    def in_project(self, *args: Any, **kwargs: Any) -> tuple[list[SessionState], str | None]:
        self.reads += 1  # one index query and one batch read, as one call
        return self._states.in_project(*args, **kwargs)

    def __getattr__(self, name: str) -> object:
        return getattr(self._states, name)


def dashboard(
    stores: Stores, clock: Clock, transcripts: Transcripts, states: StateStore | CountedStates | None = None
) -> DashboardReader:
    """The reader on the in-memory stores, with a partial fake (the reads it makes) for the transcripts."""
    chosen = cast(StateStore, stores.states if states is None else states)
    return DashboardReader(
        cast(TranscriptStore, transcripts), chosen, stores.checkpoints, clock, stores.injections
    )


def identity_in(key: str, harness: str = "claude-code") -> SessionIdentity:
    return SessionIdentity(session_key=key, harness=harness, project=PROJECT, project_normalized=PROJECT)


def test_the_sessions_page_lists_every_session_of_the_project_in_one_store_read_whatever_the_rows(
    stores: Stores, clock: Clock
) -> None:
    # Given 30 sessions that posted hooks (none sent a transcript) and a Codex one
    for n in range(30):
        stores.states.touch("a1", identity_in(f"s{n}"), T0 + timedelta(seconds=n))
    stores.states.touch("a1", identity_in("codex-1", harness="codex"), T0 + timedelta(minutes=1))
    stores.states.end_session("a1", "s3", T0)
    states = CountedStates(stores.states)
    transcripts = Transcripts()
    reader = dashboard(stores, clock, transcripts, states)

    # When the page is read, whole and filtered
    page = reader.sessions("a1", PROJECT, 100)
    ended = reader.sessions("a1", PROJECT, 100, status=SessionStatus.ENDED)
    codex = reader.sessions("a1", PROJECT, 100, harness="codex")
    later = reader.sessions("a1", PROJECT, 100, since=datetime(2026, 11, 22, 10, 0))  # no zone: UTC

    # Then every session is there, newest start first, each page one read of the state store
    assert len(page.sessions) == 31 and [r.session_key for r in page.sessions[:2]] == ["codex-1", "s29"]
    assert states.reads == 4 and transcripts.reads == 0
    assert later.sessions == []
    assert [r.session_key for r in ended.sessions] == ["s3"]
    assert [r.session_key for r in codex.sessions] == ["codex-1"] and codex.sessions[0].harness == "codex"


def test_the_sessions_page_pages_the_project_newest_first_and_leaves_other_projects_out(
    stores: Stores, clock: Clock
) -> None:
    for n in range(5):
        stores.states.touch("a1", identity_in(f"s{n}"), T0 + timedelta(minutes=n))
    elsewhere = SessionIdentity(session_key="x", harness="codex", project="/x", project_normalized="/x")
    stores.states.touch("a1", elsewhere, T0)
    reader = dashboard(stores, clock, Transcripts())

    first = reader.sessions("a1", PROJECT, 3)
    rest = reader.sessions("a1", PROJECT, 3, token=first.next_token)

    assert [r.session_key for r in first.sessions] == ["s4", "s3", "s2"] and first.next_token
    assert [r.session_key for r in rest.sessions] == ["s1", "s0"] and rest.next_token is None
    assert reader.sessions("a2", PROJECT, 3).sessions == []


def test_the_projects_page_lists_every_project_newest_first_paged_with_its_last_activity(
    stores: Stores, clock: Clock
) -> None:
    # Given five projects, each session started a minute after the one before, and the oldest
    # project's session still busy later
    for n in range(5):
        where = f"/work/p{n}"
        ident = SessionIdentity(session_key=f"s{n}", harness="codex", project=where, project_normalized=where)
        stores.states.touch("a1", ident, T0 + timedelta(minutes=n))
    busy = SessionIdentity(
        session_key="s0", harness="codex", project="/work/p0", project_normalized="/work/p0"
    )
    stores.states.touch("a1", busy, T0 + timedelta(hours=1))
    reader = dashboard(stores, clock, Transcripts())

    # When the projects are read two at a time
    first = reader.projects("a1", 2)
    second = reader.projects("a1", 2, first.next_token)
    last = reader.projects("a1", 2, second.next_token)

    # Then newest session start first, every project once, each with its newest session's last hook
    listed = [p.project for page in (first, second, last) for p in page.projects]
    assert listed == ["/work/p4", "/work/p3", "/work/p2", "/work/p1", "/work/p0"]
    assert last.next_token is None and last.projects[0].last_activity_at == T0 + timedelta(hours=1)
    assert first.projects[0].harnesses == ["codex"] and first.projects[0].sessions == 1
    assert reader.projects("a2", 10).projects == []


def test_a_row_counts_prompts_checkpoints_compactions_and_sub_agents_from_the_state(
    stores: Stores, clock: Clock
) -> None:
    from continuity_core.hooks.ports import PromptRecord
    from continuity_core.models.state import Tally

    identity = identity_in("s1")
    stores.states.record_prompt("a1", identity, PromptRecord("fix the build"), T0)
    stores.states.touch("a1", identity, T0, tally=Tally.COMPACTIONS)
    stores.states.record_prompt("a1", identity, PromptRecord("go on", compacted=True), T0)
    for _ in range(3):
        stores.states.touch("a1", identity, T0, tally=Tally.SUBAGENTS)
    reader = dashboard(stores, clock, Transcripts())

    (row,) = reader.sessions("a1", PROJECT, 10).sessions

    assert (row.prompts, row.compactions, row.subagents) == (2, 2, 3)
    assert row.transcript_chars == 0 and row.status is SessionStatus.ACTIVE


def test_a_timeline_orders_prompts_checkpoints_remembers_and_the_end(stores: Stores, clock: Clock) -> None:
    landed = int((T0 + timedelta(minutes=2)).timestamp() * 1000)
    transcripts = Transcripts(
        session_head("s1", length=len(TRANSCRIPT)).model_copy(update={"marks": [(landed, len(TRANSCRIPT))]}),
        text=TRANSCRIPT,
    )
    identity = SessionIdentity(
        session_key="s1", harness="claude-code", project=PROJECT, project_normalized=PROJECT
    )
    stores.states.touch("a1", identity, T0)
    remembered = Fact(
        kind=FactKind.REMEMBERED,
        text="the port is 8787",
        source=FactSource.REMEMBER,
        at=T0 + timedelta(minutes=4),
    )
    stores.checkpoints.put("a1", checkpoint(3, digest(remembered), trigger=CheckpointTrigger.AGENT), T0, [])
    stores.checkpoints.put(
        "a1", checkpoint(5, digest(remembered), trigger=CheckpointTrigger.PRE_COMPACTION), T0, []
    )
    stores.states.end_session("a1", "s1", T0 + timedelta(minutes=9))
    transcripts.states = stores.states
    reader = dashboard(stores, clock, transcripts)

    timeline = reader.timeline("a1", "s1")

    assert timeline is not None
    kinds = [e.kind for e in timeline.events]
    assert kinds == [
        TimelineKind.SESSION_START,
        TimelineKind.PROMPT,
        TimelineKind.COMPACTION,
        TimelineKind.PROMPT,
        TimelineKind.AGENT_DIGEST,
        TimelineKind.REMEMBER,
        TimelineKind.CHECKPOINT,
        TimelineKind.SESSION_END,
    ]
    assert timeline.events[-2].trigger is CheckpointTrigger.PRE_COMPACTION
    assert (
        timeline.digest_sequence == 5 and timeline.session and timeline.session.status is SessionStatus.ENDED
    )
    assert reader.timeline("a1", "nobody") is None


def test_a_compaction_late_in_a_turn_shows_after_what_happened_earlier_in_that_turn(
    stores: Stores, clock: Clock
) -> None:
    # Given a prompt stored at 05:02:30, a remember at 05:02:40 and an explicit checkpoint at
    # 05:02:42 during its turn, then the harness's compaction marker stored at 05:02:50
    day = datetime(2026, 11, 27, 5, 2, 30, tzinfo=UTC)
    text = "User: ship the refunds fix\n\nAssistant: on it.\n\n"
    marker = "--- context compacted (auto) ---\n\n"
    at_ms = lambda seconds: int((day + timedelta(seconds=seconds)).timestamp() * 1000)  # noqa: E731
    marks = [(at_ms(0), len(text)), (at_ms(20), len(text + marker))]
    transcripts = Transcripts(
        session_head("s1", length=len(text + marker)).model_copy(update={"marks": marks}), text=text + marker
    )
    identity = SessionIdentity(
        session_key="s1", harness="claude-code", project=PROJECT, project_normalized=PROJECT
    )
    stores.states.touch("a1", identity, day - timedelta(minutes=1))
    remembered = Fact(
        kind=FactKind.REMEMBERED,
        text="staging is 8787",
        source=FactSource.REMEMBER,
        at=day + timedelta(seconds=10),
    )
    explicit = checkpoint(
        1, digest(remembered), trigger=CheckpointTrigger.EXPLICIT, created_at=day + timedelta(seconds=12)
    )
    stores.checkpoints.put("a1", explicit, day, [])
    transcripts.states = stores.states
    reader = dashboard(stores, clock, transcripts)

    # When the timeline is read
    timeline = reader.timeline("a1", "s1")

    # Then events run in the order they happened, the compaction last, at its own time
    assert timeline is not None
    assert [e.kind for e in timeline.events] == [
        TimelineKind.SESSION_START,
        TimelineKind.PROMPT,
        TimelineKind.REMEMBER,
        TimelineKind.CHECKPOINT,
        TimelineKind.COMPACTION,
    ]
    assert timeline.events[-1].at == day + timedelta(seconds=20)
    times = [e.at for e in timeline.events if e.at is not None]
    assert times == sorted(times)


def test_a_timeline_shows_each_sub_agent_start_with_the_sub_agents_own_key(
    stores: Stores, clock: Clock
) -> None:
    from continuity_core.models.injections import InjectionRecord

    # Given a session without a transcript whose agent started a sub-agent, after one prompt
    stores.states.touch("a1", identity_in("s1"), T0)
    started = T0 + timedelta(minutes=3)
    stores.injections.record(
        "a1",
        InjectionRecord(
            session_key="s1", event="subagent_start", at=started, subagent_id="ag7", cap_chars=10_000
        ),
    )
    stores.injections.record(
        "a1", InjectionRecord(session_key="s1", event="session_start", at=T0, cap_chars=10_000)
    )
    reader = dashboard(stores, clock, Transcripts())

    # When its timeline is read
    timeline = reader.timeline("a1", "s1")

    # Then the sub-agent start is on it, linking the sub-agent's own session, and the session has a row
    assert timeline is not None and timeline.session is not None
    assert timeline.session.session_key == "s1" and timeline.turns == []
    (subagent,) = [e for e in timeline.events if e.kind is TimelineKind.SUBAGENT_START]
    assert subagent.at == started and subagent.session_key == "s1:subagent:ag7"
    assert [e.kind for e in timeline.events] == [TimelineKind.SESSION_START, TimelineKind.SUBAGENT_START]


def test_a_checkpoint_view_diffs_against_the_one_before_and_links_both_ways(
    stores: Stores, clock: Clock
) -> None:
    for n, facts in ((1, []), (2, [fact(FactKind.CONSTRAINT, "Keep the API stable.")]), (3, [])):
        stores.checkpoints.put("a1", checkpoint(n, digest(*facts)), T0, [])
    reader = dashboard(stores, clock, Transcripts())

    view = reader.checkpoint("a1", "s1", 2)

    assert view is not None and (view.previous_sequence, view.next_sequence) == (1, 3)
    assert [f.text for f in view.diff.added] == ["Keep the API stable."]
    assert reader.checkpoint("a1", "s1", 9) is None and reader.checkpoint("other", "s1", 2) is None


def test_the_ledger_flags_sessions_whose_decisions_interleave_as_forks() -> None:
    from continuity_core.models.digest import LedgerEntry
    from continuity_core.sessions.reads import ledger_forks

    def entry(session: str, minute: int) -> LedgerEntry:
        return LedgerEntry(
            id=f"{session}{minute}",
            project_normalized="/p",
            session_key=session,
            decision=f"decision at {minute}",
            created_at=datetime(2026, 11, 22, 9, minute, tzinfo=UTC),
        )

    # Given main deciding at 1 and 5, a fork deciding at 3 in between, and a later session at 9
    entries = [entry("later", 9), entry("main", 5), entry("fork", 3), entry("main", 1)]
    # Then main and the fork ran side by side; the later one followed, no fork
    assert ledger_forks(entries) == {"main": ["fork"], "fork": ["main"]}


def test_a_projects_page_token_of_other_digits_is_refused_not_a_crash(stores: Stores, clock: Clock) -> None:
    # Given a token no API handed out, made of digits int() does not read ("²", Arabic-Indic one)
    import pytest

    from continuity_core.kernel.errors import InvalidPageTokenError

    reader = dashboard(stores, clock, Transcripts())
    for token in ("²", "\u0661", "12x"):
        # Then it is refused as a bad page token (400), never an error of the service
        with pytest.raises(InvalidPageTokenError):
            reader.projects("a1", 2, token)
