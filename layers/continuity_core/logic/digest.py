"""Checkpoint digests, built by code (no LLM)."""

from __future__ import annotations

from datetime import datetime, timedelta

from continuity_core.logic.recent import distinct_recent
from continuity_core.models.state import (
    MAX_PENDING_QUERIES,
    MAX_PENDING_REMEMBERS,
    MAX_PENDING_SNIPPETS,
    SessionState,
)


def format_duration(delta: timedelta) -> str:
    seconds = max(0, int(delta.total_seconds()))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h {minutes}m"
    if minutes:
        return f"{minutes}m"
    return f"{secs}s"


def render_session_digest(state: SessionState, now: datetime, heading: str = "## Session Checkpoint") -> str:
    """The passive checkpoint digest: prompts, duration, recent prompts, memory activity."""
    queries = distinct_recent(state.pending_queries, MAX_PENDING_QUERIES)
    remembers = state.pending_remembers[-MAX_PENDING_REMEMBERS:]
    snippets = state.pending_snippets[-MAX_PENDING_SNIPPETS:]
    lines = [
        heading,
        f"Project: {state.project or state.project_normalized or 'unknown'}",
        f"Prompts: {state.total_prompts} | Duration: {format_duration(now - state.started_at)}",
    ]
    if snippets:
        lines += ["", "### Recent Prompts", *(f"- {text}" for text in snippets)]
    lines += [
        "",
        "### Memory Activity Since Last Checkpoint",
        f"Queries: {'; '.join(queries) if queries else 'none'}",
        f"Remembered: {'; '.join(remembers) if remembers else 'none'}",
    ]
    return "\n".join(lines)
