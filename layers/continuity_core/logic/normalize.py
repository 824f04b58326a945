"""From what a harness posted to one normalised Hook."""

from __future__ import annotations

from continuity_core.logic.paths import normalize_project
from continuity_core.models.hooks import Hook, HookEvent, HookRequest

DEFAULT_HARNESS = "claude-code"


def normalize_hook(event: HookEvent, request: HookRequest) -> Hook:
    project = (request.project or "").strip() or None
    # The client resolves realpath on the agent's machine; without it, normalise lexically.
    project_normalized = normalize_project(request.project_normalized) or normalize_project(project)
    return Hook(
        event=event,
        session_key=(request.session_key or "").strip(),
        harness=(request.harness or "").strip() or DEFAULT_HARNESS,
        project=project,
        project_normalized=project_normalized,
        transcript_path=request.transcript_path,
        prompt=request.prompt,
        source=request.source,
        trigger=request.trigger,
        custom_instructions=request.custom_instructions,
        session_context=request.session_context,
        reason=request.reason,
        content=request.content,
        subagent_id=request.subagent_id,
        subagent_type=request.subagent_type,
        previous_session_key=(request.previous_session_key or "").strip() or None,
        idempotency_key=request.idempotency_key,
        parent_session_key=(request.parent_session_key or "").strip() or None,
        transcript=request.transcript,
        transcript_chars=request.transcript_chars,
    )
