"""What the read routes answer from stored checkpoints and the decision ledger.

A project arrives as the caller wrote it; it is looked up under its lexical normal form (the
client sends the resolved path, so this only folds ``..``, ``//`` and trailing slashes).
"""

from __future__ import annotations

from datetime import datetime

from continuity_core.checkpoints.ports import CheckpointStore, LedgerStore
from continuity_core.extraction.paths import normalize_project
from continuity_core.models.checkpoint import CheckpointList
from continuity_core.models.digest import LedgerEntry, LedgerPage

# A session keeps at most maxCheckpointsPerSession (≤ 500): one answer holds all of them.
MAX_SESSION_CHECKPOINTS = 500


def project_key(project: str) -> str:
    return normalize_project(project) or project


class CheckpointReader:
    def __init__(self, checkpoints: CheckpointStore) -> None:
        self._checkpoints = checkpoints

    def for_project(self, agent_id: str, project: str, limit: int) -> CheckpointList:
        """The project's checkpoints, newest first."""
        found = self._checkpoints.list_for_project(agent_id, project_key(project), limit)
        return CheckpointList(checkpoints=found)

    def for_session(self, agent_id: str, session_key: str) -> CheckpointList:
        """The session's checkpoints, oldest first."""
        found = self._checkpoints.list_for_session(agent_id, session_key, MAX_SESSION_CHECKPOINTS)
        return CheckpointList(checkpoints=found)


class LedgerReader:
    def __init__(self, ledger: LedgerStore) -> None:
        self._ledger = ledger

    def page(self, agent_id: str, project: str, limit: int, token: str | None) -> LedgerPage:
        """The project's decisions, newest first; ``token`` continues a page (InvalidPageTokenError)."""
        page = self._ledger.page(agent_id, project_key(project), limit, token)
        return page.model_copy(update={"forks": ledger_forks(page.entries)})


def ledger_forks(entries: list[LedgerEntry]) -> dict[str, list[str]]:
    """Sessions whose decisions interleave in time: each decided between two decisions of the other,
    so they ran side by side from one history (a fork, a second terminal) and may disagree."""
    spans: dict[str, tuple[datetime, datetime]] = {}
    for entry in entries:
        first, last = spans.get(entry.session_key, (entry.created_at, entry.created_at))
        spans[entry.session_key] = (min(first, entry.created_at), max(last, entry.created_at))
    forks: dict[str, list[str]] = {}
    for session, (first, last) in spans.items():
        alongside = sorted(
            other
            for other, (o_first, o_last) in spans.items()
            if other != session and first < o_last and o_first < last
        )
        if alongside:
            forks[session] = alongside
    return forks
