"""From what a harness posted to one normalised Hook."""

from __future__ import annotations

from continuity_core.extraction.paths import normalize_project
from continuity_core.hooks.injected_context import strip_injected
from continuity_core.models.hooks import Hook, HookEvent, HookRequest
from continuity_core.redaction import redact_value

DEFAULT_HARNESS = "claude-code"


def normalize_hook(event: HookEvent, request: HookRequest) -> Hook:
    """One Hook, its free text redacted before anything stores it (the transcript delta is redacted
    where it is appended: its offsets are in the client's characters). Context a harness injected
    into the prompt (``<hook_context>``, our own recovery block) is not the user's: it is dropped."""
    report: dict[str, int] = {}
    text = redact_value(
        {
            "prompt": strip_injected(request.prompt),
            "content": request.content,
            "custom_instructions": request.custom_instructions,
            "session_context": request.session_context,
            "compact_summary": request.compact_summary,
            "last_assistant_message": request.last_assistant_message,
            # Paths are free text too (a directory may be named after a key): stored and shown redacted.
            "project": (request.project or "").strip() or None,
            "project_path": (request.project_path or "").strip() or None,
            "transcript_path": request.transcript_path,
            # Labels people set are free text too.
            "branch": _label(request.branch),
            "machine_name": _label(request.machine_name),
            "user": _label(request.user),
        },
        report,
    )
    project = text["project"]
    # The client resolves realpath on the agent's machine; without it, normalise lexically.
    project_normalized = normalize_project(request.project_normalized) or normalize_project(project)
    return Hook(
        event=event,
        session_key=(request.session_key or "").strip(),
        harness=(request.harness or "").strip() or DEFAULT_HARNESS,
        project=project,
        project_normalized=project_normalized,
        # The old key (the folder's real path) only when the project is named otherwise.
        project_path=_old_key(text["project_path"], project_normalized),
        branch=text["branch"],
        machine_id=request.machine_id,
        machine_name=text["machine_name"],
        user=text["user"],
        transcript_path=text["transcript_path"],
        prompt=text["prompt"],
        source=request.source,
        trigger=request.trigger,
        custom_instructions=text["custom_instructions"],
        session_context=text["session_context"],
        reason=request.reason,
        content=text["content"],
        compact_summary=text["compact_summary"],
        last_assistant_message=text["last_assistant_message"],
        compacted=request.compacted,
        subagent_id=request.subagent_id,
        subagent_type=request.subagent_type,
        previous_session_key=(request.previous_session_key or "").strip() or None,
        idempotency_key=request.idempotency_key,
        parent_session_key=(request.parent_session_key or "").strip() or None,
        transcript=request.transcript,
        transcript_chars=request.transcript_chars,
        context_tokens=request.context_tokens,
        injection_cap_chars=request.injection_cap_chars,
        person=(request.user or "").strip() or None,
        redactions=sum(report.values()),
    )


def _label(value: str | None) -> str | None:
    text = " ".join((value or "").split())
    return text or None


def _old_key(path: str | None, project_normalized: str | None) -> str | None:
    normalized = normalize_project(path)
    return normalized if normalized and normalized != project_normalized else None
