"""Checkpoint digests, built by code (no LLM)."""

from __future__ import annotations

from datetime import datetime, timedelta

from continuity_core.extraction.recent import distinct_recent
from continuity_core.extraction.terms import pending_query_terms
from continuity_core.models.digest import DigestRequest
from continuity_core.models.state import (
    MAX_PENDING_QUERIES,
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
    queries = distinct_recent(pending_query_terms(state), MAX_PENDING_QUERIES)
    # All of them: the lists are bounded by checkpointing when full (models/state.py), never cut.
    remembers = state.pending_remembers
    snippets = state.pending_snippets
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


PRE_COMPACTION_HEADING = "## Pre-Compaction Checkpoint"
CONTEXT_CHARS = 2000


def render_pre_compaction_digest(
    state: SessionState,
    now: datetime,
    trigger: str | None,
    custom_instructions: str | None,
    session_context: str | None,
) -> str:
    """The passive digest under the pre-compaction heading, plus what the harness said of the moment."""
    body = render_session_digest(state, now, heading=PRE_COMPACTION_HEADING)
    lines = ["", "### Session Context", f"Compaction: {trigger or 'unknown'}"]
    if custom_instructions and custom_instructions.strip():
        lines.append(f"Instructions: {custom_instructions.strip()[:CONTEXT_CHARS]}")
    if session_context and session_context.strip():
        lines += ["", session_context.strip()[:CONTEXT_CHARS]]
    return body + "\n" + "\n".join(lines)


def render_agent_digest(request: DigestRequest, project: str | None) -> str:
    """The agent's own checkpoint, as markdown with its sections."""
    lines = ["## Agent Digest", f"Project: {project or 'unknown'}", "", request.summary.strip()]
    if request.decisions:
        lines += ["", "### Decisions"]
        for item in request.decisions:
            text = f"- {item.decision.strip()}"
            if item.rationale:
                text += f" — {item.rationale.strip()}"
            for evidence in item.evidence:
                where = f"{evidence.path}:{evidence.line}" if evidence.line is not None else evidence.path
                text += f"\n  - evidence: {where}" + (
                    f' "{evidence.quote.strip()}"' if evidence.quote else ""
                )
            lines.append(text)
    for title, items in (
        ("Next Steps", request.next_steps),
        ("Blockers", request.blockers),
        ("Open Questions", request.questions),
    ):
        if items:
            lines += ["", f"### {title}", *(f"- {item.strip()}" for item in items)]
    return "\n".join(lines)
