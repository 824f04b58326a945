"""Transcript search (``search.py``), as the sessions API and recovery ask it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol


@dataclass(frozen=True)
class SearchHit:
    session_key: str
    project: str | None
    snippet: str
    score: float
    updated_at: datetime


class TranscriptSearch(Protocol):
    def search(
        self,
        agent_id: str,
        query: str,
        limit: int,
        session_key: str | None = None,
        project_normalized: str | None = None,
        exclude_session_key: str | None = None,
    ) -> list[SearchHit]: ...
