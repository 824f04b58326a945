"""What the dashboard's pages read: a project's sessions with their live state, one session's
timeline, and one checkpoint against the one before it.

Each answer costs a fixed number of store reads, whatever the page holds (no read per row): the
sessions page is one index query (the project's session notes: every session, a transcript or not)
and one batch read of states; a session is its state, its checkpoints (one query), its injections
(one query: the sub-agent starts) and its transcript; a checkpoint is the session's checkpoints.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from continuity_core.checkpoints.checkpoint_diff import diff_digests
from continuity_core.checkpoints.ports import CheckpointStore
from continuity_core.extraction.terms import snippet
from continuity_core.hooks.ports import StateStore
from continuity_core.kernel.clock import Clock
from continuity_core.kernel.errors import InvalidPageTokenError
from continuity_core.kernel.names import SUBAGENT_KEY_PART
from continuity_core.models.checkpoint import Checkpoint
from continuity_core.models.checkpoint_trigger import CheckpointTrigger
from continuity_core.models.dashboard import (
    CheckpointView,
    ProjectActivity,
    ProjectRow,
    ProjectRows,
    SessionRow,
    SessionRows,
    SessionStatus,
    SessionTimeline,
    TimelineEvent,
    TimelineKind,
    Turn,
)
from continuity_core.models.handoff import MAX_OPEN_HANDOFFS
from continuity_core.models.injections import InjectionList, InjectionRecord, Lineage, LineageLink
from continuity_core.models.session_digest import FactSource
from continuity_core.models.state import SessionState, origin_values
from continuity_core.models.transcripts import SessionSummary, TranscriptHead
from continuity_core.recovery.lineage import SUBAGENT_START, children, links_of, origins
from continuity_core.recovery.ports import HandoffStore, InjectionLog
from continuity_core.sessions.activity import project_activity
from continuity_core.sessions.reads import MAX_SESSION_CHECKPOINTS, project_key
from continuity_core.transcripts.ports import TranscriptStore
from continuity_core.transcripts.turns import group_turns

# A session with no hook for this long, and not ended, shows as idle.
IDLE_AFTER = timedelta(minutes=30)
# The transcript a timeline reads at most (the transcript route's page): the rest is a link away.
MAX_TIMELINE_CHARS = 1_000_000
PROMPT_CHARS = 200
# A session's injections the inspector shows (its starts, resumes, compactions and sub-agent starts).
MAX_INJECTIONS = 50
# How far up the lineage walks (each hop one query): a chain of /clears or nested sub-agents.
MAX_LINEAGE_HOPS = 8
# The project's newest sessions the lineage looks through for the ones that continued a session.
LINEAGE_SCAN = 100
# The projects page reads every record in one query (a record is ~300 bytes: ~3,000 fit in the
# query's 1 MB page) and pages through them newest first here.
MAX_PROJECTS = 2_000
# The project's pictures: its newest sessions (one injection query each) and checkpoints.
ACTIVITY_SESSIONS = 20
ACTIVITY_CHECKPOINTS = 500


def session_status(state: SessionState | None, last_activity: datetime, now: datetime) -> SessionStatus:
    """Ended (cleared, when its last checkpoint was the /clear one) wins; else idle after a quiet
    spell; else active. A session the state no longer holds (pruned) is judged by its transcript."""
    if state is not None and state.ended_at is not None:
        cleared = state.last_checkpoint_trigger == CheckpointTrigger.CLEAR.value
        return SessionStatus.CLEARED if cleared else SessionStatus.ENDED
    return SessionStatus.IDLE if now - last_activity > IDLE_AFTER else SessionStatus.ACTIVE


def session_row(
    state: SessionState | None, now: datetime, summary: SessionSummary | None = None
) -> SessionRow:
    """A row from the session's state, its transcript's summary, or both (at least one). The state
    counts; a session the state no longer holds (pruned) is described by its transcript."""
    if state is None:
        assert summary is not None, "a row needs the session's state or its transcript"
        key, harness, project = summary.session_key, summary.harness, summary.project
        last, started, chars = summary.updated_at, summary.created_at, summary.length
    else:
        key, harness, project = state.session_key, state.harness, state.project
        last, started, chars = state.last_activity_at, state.started_at, state.transcript_end or 0
        if summary is not None:
            last, started = max(summary.updated_at, last), min(summary.created_at, started)
            chars = max(summary.length, chars)
            harness = summary.harness or harness
            project = summary.project or project
    if not project:
        project = (summary.project_normalized if summary else None) or (
            state.project_normalized if state else None
        )
    return SessionRow(
        session_key=key,
        harness=harness,
        project=project,
        status=session_status(state, last, now),
        started_at=started,
        last_activity_at=last,
        prompts=state.total_prompts if state else 0,
        checkpoints=state.checkpoints_written if state else 0,
        compactions=state.compactions if state else 0,
        subagents=state.subagents if state else 0,
        last_checkpoint_trigger=state.last_checkpoint_trigger if state else None,
        transcript_chars=chars,
        **(origin_values(state) if state else {}),
    )


def checkpoint_events(checkpoints: list[Checkpoint]) -> list[TimelineEvent]:
    events = []
    for cp in checkpoints:
        kind = TimelineKind.AGENT_DIGEST if cp.trigger is CheckpointTrigger.AGENT else TimelineKind.CHECKPOINT
        text = cp.summary or f"{cp.prompt_count} prompt(s) covered"
        events.append(
            TimelineEvent(
                kind=kind,
                at=cp.created_at,
                text=snippet(text, PROMPT_CHARS) or "",
                trigger=cp.trigger,
                sequence=cp.sequence,
                prompt=cp.last_prompt,
            )
        )
    return events


def transcript_events(turns: list[Turn]) -> list[TimelineEvent]:
    """A prompt per turn, and the harness's compactions where the transcript marks them, each at
    the time its own text arrived: a compaction late in a turn happened after what the turn's
    prompt was followed by (a remember, a checkpoint), not when the prompt was sent."""
    events = []
    for turn in turns:
        if turn.number > 0:
            text = snippet(turn.blocks[0].text, PROMPT_CHARS) or ""
            events.append(TimelineEvent(kind=TimelineKind.PROMPT, at=turn.at, text=text, prompt=turn.number))
        for block in turn.blocks:
            if block.label == "Marker":
                at = block.at or turn.at
                events.append(TimelineEvent(kind=TimelineKind.COMPACTION, at=at, text=block.text))
    return events


def subagent_events(injections: list[InjectionRecord]) -> list[TimelineEvent]:
    """Each sub-agent start the session's injections record, with the sub-agent's own key (its
    transcript and checkpoints are stored under it) when the harness named the sub-agent."""
    events = []
    for record in injections:
        if record.event != SUBAGENT_START:
            continue
        key = f"{record.session_key}{SUBAGENT_KEY_PART}{record.subagent_id}" if record.subagent_id else None
        text = f"sub-agent {record.subagent_id}" if record.subagent_id else "sub-agent"
        if record.parent_session_key is not None:
            text += " (inherited the session's context)"
        events.append(
            TimelineEvent(kind=TimelineKind.SUBAGENT_START, at=record.at, text=text, session_key=key)
        )
    return events


def timeline_events(
    state: SessionState | None,
    head: TranscriptHead | None,
    checkpoints: list[Checkpoint],
    turns: list[Turn],
    injections: list[InjectionRecord] | None = None,
) -> list[TimelineEvent]:
    """Every event oldest first; one without a time keeps its place after the one before it."""
    started = state.started_at if state else (head.created_at if head else None)
    events = [TimelineEvent(kind=TimelineKind.SESSION_START, at=started)]
    events += transcript_events(turns)
    events += subagent_events(injections or [])
    digest = checkpoints[-1].session_digest if checkpoints else None
    for fact in digest.facts if digest else []:
        if fact.source is FactSource.REMEMBER:
            events.append(
                TimelineEvent(kind=TimelineKind.REMEMBER, at=fact.at, text=fact.text, prompt=fact.prompt)
            )
    events += checkpoint_events(checkpoints)
    if state is not None and state.ended_at is not None:
        events.append(TimelineEvent(kind=TimelineKind.SESSION_END, at=state.ended_at))
    return _in_time_order(events)


def _in_time_order(events: list[TimelineEvent]) -> list[TimelineEvent]:
    """By when each happened, on the service's clock (every time here is one it stamped: an
    append's arrival, a hook's, a checkpoint's write); equal times keep the order gathered."""
    keyed = []
    last: datetime | None = None
    for index, event in enumerate(events):
        last = event.at or last
        keyed.append(((last.timestamp() if last else 0.0), index, event))
    return [event for _, _, event in sorted(keyed, key=lambda k: (k[0], k[1]))]


def _page_start(token: str | None) -> int:
    if token is None:
        return 0
    # ASCII digits only: str.isdigit() also says yes to a superscript two, which int() refuses
    if not (token.isascii() and token.isdigit()) or len(token) > 9:
        raise InvalidPageTokenError("next_token is not one this API handed out for this list")
    return int(token)


class DashboardReader:
    def __init__(
        self,
        transcripts: TranscriptStore,
        states: StateStore,
        checkpoints: CheckpointStore,
        clock: Clock,
        injections: InjectionLog,
        handoffs: HandoffStore | None = None,
    ) -> None:
        self._transcripts = transcripts
        self._states = states
        self._checkpoints = checkpoints
        self._clock = clock
        self._injections = injections
        self._handoffs = handoffs

    def injections(self, agent_id: str, session_key: str) -> InjectionList:
        """What the session's starts and its sub-agents' starts were given, newest first (one query)."""
        return InjectionList(injections=self._injections.for_session(agent_id, session_key, MAX_INJECTIONS))

    def lineage(self, agent_id: str, session_key: str) -> Lineage:
        """The session's links: its own (one query), then up its origins, one query per hop and
        at most ``MAX_LINEAGE_HOPS`` hops (a chain of /clears, a sub-agent's parent)."""
        links = links_of(self._injections.for_session(agent_id, session_key, MAX_INJECTIONS))
        links += self._continuations(agent_id, session_key)
        seen, frontier = {session_key}, origins(links, session_key)
        for _ in range(MAX_LINEAGE_HOPS):
            frontier = [key for key in frontier if key not in seen]
            if not frontier:
                break
            current = frontier.pop(0)
            seen.add(current)
            found = links_of(self._injections.for_session(agent_id, current, MAX_INJECTIONS))
            links += [link for link in found if link.to_session == current]
            frontier += origins(found, current)
        return Lineage(session_key=session_key, links=links)

    def _continuations(self, agent_id: str, session_key: str) -> list[LineageLink]:
        """The sessions that continued this one or are its sub-agents: their states name it (each
        start's one state write keeps its links), among the project's newest sessions — its state,
        one index query and one batch read of states."""
        state = self._states.get(agent_id, session_key)
        if state is None or not state.project_normalized:
            return []
        states, _ = self._states.in_project(agent_id, state.project_normalized, LINEAGE_SCAN)
        return children(session_key, states)

    def projects(self, agent_id: str, limit: int, token: str | None = None) -> ProjectRows:
        """The agent's projects, newest activity first, ``limit`` a page: one query for the
        records, one batch read of the page's newest sessions' states (their last hook)."""
        records = self._states.projects(agent_id, MAX_PROJECTS)
        records.sort(key=lambda r: (r.last_session_at, r.project_normalized), reverse=True)
        start = _page_start(token)
        page = records[start : start + limit]
        states = self._states.get_many(agent_id, [r.last_session_key for r in page]) if page else {}
        rows = []
        for record in page:
            state = states.get(record.last_session_key)
            last = max(state.last_activity_at, record.last_session_at) if state else record.last_session_at
            rows.append(ProjectRow(**record.model_dump(), last_activity_at=last))
        more = start + limit < len(records)
        return ProjectRows(projects=rows, next_token=str(start + limit) if more else None)

    def activity(self, agent_id: str, project: str, days: int) -> ProjectActivity:
        """The project's pictures: its newest ``ACTIVITY_SESSIONS`` sessions (one index query, one
        batch read, one injection query each) and newest ``ACTIVITY_CHECKPOINTS`` checkpoints (one
        query), whatever the project holds."""
        normalized = project_key(project)
        states, _ = self._states.in_project(agent_id, normalized, ACTIVITY_SESSIONS)
        checkpoints = self._checkpoints.list_for_project(agent_id, normalized, ACTIVITY_CHECKPOINTS)
        injections = [
            record
            for state in states
            for record in self._injections.for_session(agent_id, state.session_key, MAX_INJECTIONS)
            if record.session_key == state.session_key
        ]
        return project_activity(project, states, checkpoints, injections, days, self._clock())

    def sessions(
        self,
        agent_id: str,
        project: str,
        limit: int,
        token: str | None = None,
        harness: str | None = None,
        status: SessionStatus | None = None,
        since: datetime | None = None,
    ) -> SessionRows:
        """A page of the project's sessions, newest start first, with their state, a transcript or
        not; ``status`` and ``since`` filter within the page (a page may hold fewer than ``limit``;
        follow next_token)."""
        # One index query (the project's session notes) and one batch read of states.
        states, next_token = self._states.in_project(agent_id, project_key(project), limit, token, harness)
        if since is not None and since.tzinfo is None:
            since = since.replace(tzinfo=UTC)  # a bare date-time from a query string means UTC
        now = self._clock()
        rows = [session_row(state, now) for state in states]
        rows = [
            r
            for r in rows
            if (status is None or r.status is status) and (since is None or r.last_activity_at >= since)
        ]
        opened = []
        if token is None and self._handoffs is not None:  # the first page shows the open hand-offs
            found = self._handoffs.open_for_project(agent_id, project_key(project), MAX_OPEN_HANDOFFS + 1)
            opened = [h.view() for h in found]
        return SessionRows(sessions=rows, next_token=next_token, handoffs=opened)

    def timeline(self, agent_id: str, session_key: str) -> SessionTimeline | None:
        """The session's events, transcript by turn and rolling digest; None when nothing is stored."""
        state = self._states.get(agent_id, session_key)
        head = self._transcripts.assembled_head(agent_id, session_key)
        checkpoints = self._checkpoints.list_for_session(agent_id, session_key, MAX_SESSION_CHECKPOINTS)
        if state is None and head is None and not checkpoints:
            return None
        injections = self._injections.for_session(agent_id, session_key, MAX_INJECTIONS)
        turns: list[Turn] = []
        next_offset = None
        if head is not None:
            end = min(head.length, MAX_TIMELINE_CHARS)
            turns = group_turns(self._transcripts.read(agent_id, head, 0, end), head)
            next_offset = end if end < head.length else None
        latest = checkpoints[-1] if checkpoints else None
        summary = head.summary() if head is not None else None
        row = session_row(state, self._clock(), summary) if state or summary else None
        return SessionTimeline(
            session=row,
            events=timeline_events(state, head, checkpoints, turns, injections),
            turns=turns,
            transcript_next_offset=next_offset,
            digest=latest.session_digest if latest else None,
            digest_sequence=latest.sequence if latest else None,
        )

    def checkpoint(self, agent_id: str, session_key: str, sequence: int) -> CheckpointView | None:
        """The checkpoint numbered ``sequence`` and its digest's diff against the one before it."""
        checkpoints = self._checkpoints.list_for_session(agent_id, session_key, MAX_SESSION_CHECKPOINTS)
        at = next((i for i, cp in enumerate(checkpoints) if cp.sequence == sequence), None)
        if at is None:
            return None
        previous = checkpoints[at - 1] if at > 0 else None
        following = checkpoints[at + 1] if at + 1 < len(checkpoints) else None
        current = checkpoints[at]
        return CheckpointView(
            checkpoint=current,
            previous_sequence=previous.sequence if previous else None,
            next_sequence=following.sequence if following else None,
            diff=diff_digests(previous.session_digest if previous else None, current.session_digest),
        )
