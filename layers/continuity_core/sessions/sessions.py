"""The session API's answers: a project's sessions, one transcript page, and search with its scope."""

from __future__ import annotations

from continuity_core.extraction.paths import normalize_project
from continuity_core.models.handoff import MAX_OPEN_HANDOFFS
from continuity_core.models.sessions import (
    SearchRequest,
    SearchResult,
    SearchResults,
    SessionPage,
    TranscriptText,
)
from continuity_core.recovery.ports import HandoffStore
from continuity_core.sessions.ports import TranscriptSearch
from continuity_core.sessions.reads import project_key
from continuity_core.transcripts.ports import TranscriptStore


class SessionReader:
    def __init__(
        self,
        transcripts: TranscriptStore,
        search: TranscriptSearch | None,
        handoffs: HandoffStore | None = None,
    ) -> None:
        self._transcripts = transcripts
        self._search = search
        self._handoffs = handoffs

    def sessions(self, agent_id: str, project: str, limit: int, token: str | None) -> SessionPage:
        """The project's sessions with a transcript, newest first (InvalidPageTokenError)."""
        found, next_token = self._transcripts.recent_sessions(agent_id, project_key(project), limit, token)
        page = SessionPage(sessions=found, next_token=next_token)
        if token is None and self._handoffs is not None:  # the first page lists the open hand-offs
            opened = self._handoffs.open_for_project(agent_id, project_key(project), MAX_OPEN_HANDOFFS + 1)
            page = page.model_copy(update={"handoffs": [h.view() for h in opened]})
        return page

    def transcript(self, agent_id: str, session_key: str, offset: int, limit: int) -> TranscriptText | None:
        """Characters ``offset`` to ``offset + limit`` of the transcript; None when there is none."""
        head = self._transcripts.assembled_head(agent_id, session_key, consistent=True)
        if head is None:
            return None
        end = min(head.length, offset + limit)
        return TranscriptText(
            **head.summary().model_dump(exclude={"length"}),
            length=head.length,
            offset=offset,
            text=self._transcripts.read(agent_id, head, offset, end),
            next_offset=end if end < head.length else None,
        )

    def search(self, agent_id: str, request: SearchRequest) -> SearchResults:
        """One session's transcript, or a project's most recent sessions, the asking one left out.

        Scope: ``session_key`` wins; else ``project``; else the asking session's own project."""
        if self._search is None:
            return SearchResults(results=[])
        session_key = (request.session_key or "").strip() or None
        asking = (request.asking_session_key or "").strip() or None
        project = normalize_project(request.project)
        if not session_key and not project and asking:
            asked_by = self._transcripts.head(agent_id, asking)  # one item: its project is all we need
            project = asked_by.project_normalized if asked_by else None
        hits = self._search.search(
            agent_id,
            request.query,
            request.limit,
            session_key=session_key,
            project_normalized=project,
            exclude_session_key=asking,
        )
        return SearchResults(
            results=[
                SearchResult(
                    session_key=hit.session_key,
                    project=hit.project,
                    snippet=hit.snippet,
                    score=hit.score,
                    updated_at=hit.updated_at,
                )
                for hit in hits
            ]
        )
