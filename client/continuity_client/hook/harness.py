"""What each harness sends on stdin and accepts on stdout.

Claude Code, Codex and Gemini CLI all pass hook input as snake_case JSON on stdin
(``session_id``, ``cwd``, ``transcript_path``, ``hook_event_name`` and per-event fields such as
``source``, ``prompt``, ``trigger``, ``reason``, ``agent_id``). They differ in event names and in
which events may inject context:

| our event | Claude Code | Codex | Gemini CLI |
|---|---|---|---|
| session-start | SessionStart (context) | SessionStart (context) | SessionStart (context) |
| user-prompt-submit | UserPromptSubmit (context) | UserPromptSubmit (context) | BeforeAgent (context) |
| pre-compaction | PreCompact | PreCompact | PreCompress (``manual`` only) |
| post-compaction | PostCompact | PostCompact | - (seen in the transcript) |
| session-end | SessionEnd | - | SessionEnd |
| stop | - | Stop | - |
| subagent-start | SubagentStart (context) | SubagentStart (context) | - |
| subagent-stop | SubagentStop | SubagentStop | - |
| remember | (run by the agent or user, no harness event) | | |

All three take ``{"hookSpecificOutput": {"hookEventName": <their name>, "additionalContext": ...}}``.
Codex validates its output strictly (``additionalProperties: false``, ``hookEventName`` a const),
so we print exactly those two fields and nothing for events whose schema has no context.

OpenCode and OpenClaw run no commands as hooks: our plugin for each (``continuity_client/plugins``)
spawns ``continuity hook <event> --harness opencode|openclaw`` with the same JSON on stdin and reads
the same output, so every harness shares one client (token, spool, idempotency keys). "ctx": the
plugin injects the answer (OpenCode's pre-compaction answer goes into its compaction prompt):

| our event | OpenCode (plugin) | OpenClaw (plugin) |
|---|---|---|
| session-start | session.created, session.compacted (ctx) | before_prompt_build, after_compaction (ctx) |
| user-prompt-submit | chat.message (ctx) | before_prompt_build (ctx) |
| pre-compaction | experimental.session.compacting (ctx) | before_compaction |
| session-end | session.deleted | session_end, subagent_ended |
| subagent-start | - (session.created names the parent) | subagent_spawned (ctx) |
| stop | session.idle | - |
Gemini CLI fires PreCompress on every turn, before it decides whether to compress: an ``auto``
one is not posted. A compression shows in its chat file (the history re-written from a summary),
and the next BeforeAgent says so (``compacted``): the service checkpoints and answers with the
recovery block, as a compact session start would (Gemini CLI has none).

Sub-agents: Claude Code and Codex give a sub-agent's hooks the parent's ``session_id`` and the
sub-agent's ``agent_id``. SubagentStart keeps the parent's id (the service answers the inherited
block). Every other hook carrying ``agent_id`` is the sub-agent's own: it is posted under
``{session}:subagent:{agent_id}`` with the parent as ``parent_session_key``; SubagentStop's
transcript is the sub-agent's (``agent_transcript_path``), other sub-agent hooks read none (their
transcript is the sub-agent's stop's to send).

How much context each injects: Claude Code 10,000 characters; Codex about 2,500 tokens (7,500
characters at 3 a token, the safe side); other harnesses (Gemini CLI, OpenCode, OpenClaw) the client
setting ``injection_cap_chars`` (``CONTINUITY_INJECTION_CAP_CHARS``). Hooks that may inject tell the
service (``injection_cap_chars``).
"""

from __future__ import annotations

import os

from continuity_client.hook import fastjson as json
from continuity_client.hook import machine, project_id

TYPE_CHECKING = False  # typing costs milliseconds at import; mypy reads this as True
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

CLAUDE_CODE, CODEX, GEMINI = "claude-code", "codex", "gemini"
OPENCODE, OPENCLAW = "opencode", "openclaw"
# Harnesses whose settings file lists our hook commands (``setup/install``).
HOOK_HARNESSES = (CLAUDE_CODE, CODEX, GEMINI)
# Harnesses that load our plugin, which runs ``continuity hook`` (``setup/plugin_install``).
PLUGIN_HARNESSES = (OPENCODE, OPENCLAW)
HARNESSES = HOOK_HARNESSES + PLUGIN_HARNESSES

EVENTS = (
    "session-start",
    "user-prompt-submit",
    "remember",
    "pre-compaction",
    "post-compaction",
    "session-end",
    "stop",
    "subagent-start",
    "subagent-stop",
)

# Our event -> the harness's event name, for the events each harness fires.
HARNESS_EVENTS: dict[str, dict[str, str]] = {
    CLAUDE_CODE: {
        "session-start": "SessionStart",
        "user-prompt-submit": "UserPromptSubmit",
        "pre-compaction": "PreCompact",
        "post-compaction": "PostCompact",
        "session-end": "SessionEnd",
        "subagent-start": "SubagentStart",
        "subagent-stop": "SubagentStop",
    },
    CODEX: {
        "session-start": "SessionStart",
        "user-prompt-submit": "UserPromptSubmit",
        "pre-compaction": "PreCompact",
        "post-compaction": "PostCompact",
        "stop": "Stop",
        "subagent-start": "SubagentStart",
        "subagent-stop": "SubagentStop",
    },
    GEMINI: {
        "session-start": "SessionStart",
        "user-prompt-submit": "BeforeAgent",
        "pre-compaction": "PreCompress",
        "session-end": "SessionEnd",
    },
    OPENCODE: {
        "session-start": "session.created",
        "user-prompt-submit": "chat.message",
        "pre-compaction": "experimental.session.compacting",
        "session-end": "session.deleted",
        "stop": "session.idle",
    },
    OPENCLAW: {
        "session-start": "session_start",
        "user-prompt-submit": "before_prompt_build",
        "pre-compaction": "before_compaction",
        "session-end": "session_end",
        "subagent-start": "subagent_spawned",
    },
}

# Events whose output schema has hookSpecificOutput.additionalContext, per harness.
CONTEXT_EVENTS: dict[str, frozenset[str]] = {
    CLAUDE_CODE: frozenset({"session-start", "user-prompt-submit", "subagent-start"}),
    CODEX: frozenset({"session-start", "user-prompt-submit", "subagent-start"}),
    GEMINI: frozenset({"session-start", "user-prompt-submit"}),
    # The compaction prompt takes context (experimental.session.compacting's output.context).
    OPENCODE: frozenset({"session-start", "user-prompt-submit", "pre-compaction"}),
    OPENCLAW: frozenset({"session-start", "user-prompt-submit", "subagent-start"}),
}

# The most characters of context the harness injects, where it is known.
INJECTION_CAP_CHARS = {CLAUDE_CODE: 10_000, CODEX: 7_500}

# Harnesses whose SessionStart has no ``compact`` source: recovery after a compaction rides on the
# next prompt hook (``compacted``, see the module's docstring).
RECOVER_AT_PROMPT = frozenset({GEMINI})
# Harnesses that give a sub-agent's hooks the parent's session id and the sub-agent's agent_id.
SHARED_SESSION = frozenset({CLAUDE_CODE, CODEX})
# A sub-agent's own session key is ``{parent}{SUBAGENT_KEY_PART}{agent_id}``: the service's
# continuity_core/kernel/names.py keeps the same string (a test holds them equal).
SUBAGENT_KEY_PART = ":subagent:"
# Events that keep the parent's session even when the hook carries a sub-agent's agent_id.
PARENT_EVENTS = frozenset({"session-start", "subagent-start", "remember"})

# Free-text fields are cut to this many characters: the service keeps only key terms and a short
# snippet of them, and rejects bodies over 1 MB (413) - a pasted log must not cost the hook.
MAX_TEXT_CHARS = 100_000
TEXT_FIELDS = (
    "prompt",
    "content",
    "custom_instructions",
    "session_context",
    "sessionContext",
    "compact_summary",
    "last_assistant_message",
)

# The environment variable a harness sets to the project root for its hooks.
PROJECT_DIR_ENV = {CLAUDE_CODE: "CLAUDE_PROJECT_DIR", GEMINI: "GEMINI_PROJECT_DIR"}

TASK_NOTIFICATION = "<task-notification>"
# Codex and Gemini CLI inject context as user messages; none of it is the user's words. The four
# "## …"/"Continuity: …" entries are the starts of our own injected sections: the service's
# hooks/injected_context.py keeps the same (this distribution cannot import it; a test holds them equal).
INJECTED_PREFIXES = (
    "<environment_context>",
    "<user_instructions>",
    "<permissions instructions>",
    "<session_context>",
    "# AGENTS.md instructions",
    "<INSTRUCTIONS>",
    "## Session Recovery Context",
    "## Inherited from Parent Session",
    "## Decision Ledger",
    "Continuity: this session's context is about",
    # Claude Code's report of a background sub-agent, sent as a prompt (the transcript keeps it as
    # the sub-agent's result, transcript.py).
    TASK_NOTIFICATION,
)
# Context a harness wraps in tags inside the user's turn, never the user's own words: Gemini CLI's
# hook context, Claude Code's IDE notes (the file open, the lines selected) and system reminders.
# The service strips the same tags (hooks/injected_context.py; a test keeps the two lists equal).
WRAPPED_CONTEXT_TAGS = ("hook_context", "ide_opened_file", "ide_selection", "system-reminder")
# Harness event names (any harness) accepted in place of ours on the command line.
EVENT_ALIASES = {
    name.lower(): event for names in HARNESS_EVENTS.values() for event, name in names.items()
} | {event.replace("-", "_"): event for event in EVENTS}


def canonical_event(name: str) -> str | None:
    lowered = name.strip().lower()
    if lowered in EVENTS:
        return lowered
    return EVENT_ALIASES.get(lowered)


def canonical_harness(name: str) -> str | None:
    lowered = name.strip().lower()
    aliases = {
        "claude": CLAUDE_CODE,
        "claude_code": CLAUDE_CODE,
        "gemini-cli": GEMINI,
        "openai-codex": CODEX,
        "opencode-ai": OPENCODE,
        "open-code": OPENCODE,
        "open-claw": OPENCLAW,
    }
    if lowered in HARNESSES:
        return lowered
    return aliases.get(lowered)


class NotJSONError(ValueError):
    """The hook's stdin is not a JSON object (a harness always sends one)."""


def parse_stdin(raw: bytes, plain_text: bool = False) -> dict[str, Any]:
    """The hook JSON as a dict; {} for empty input. ``plain_text`` (``continuity hook remember``,
    which a person or an agent pipes text into): text that is not JSON becomes ``{"content": text}``;
    otherwise NotJSONError says what came instead."""
    text = raw.strip()
    if not text:
        return {}
    try:
        data = json.loads(text)
    except (ValueError, UnicodeDecodeError) as error:
        if plain_text:
            return {"content": text.decode("utf-8", "replace")}
        raise NotJSONError(f"stdin is not JSON ({error}): {len(raw)} bytes, {_opening(text)}") from None
    if not isinstance(data, dict):
        if plain_text:
            return {"content": text.decode("utf-8", "replace")}
        raise NotJSONError(f"stdin is JSON but not an object: {len(raw)} bytes, {_opening(text)}")
    return data


def _opening(text: bytes) -> str:
    return "starting " + repr(text[:40].decode("utf-8", "replace"))


def users_words(text: str) -> str:
    """The user's own words in a user turn: wrapped context removed (``<hook_context>``, an IDE's
    ``<ide_selection>``, … to its closing tag or the end), nothing when the rest is injected context."""
    for tag in WRAPPED_CONTEXT_TAGS:
        opening, closing = f"<{tag}>", f"</{tag}>"
        while opening in text:
            start = text.index(opening)
            end = text.find(closing, start)
            end = len(text) if end < 0 else end + len(closing)
            text = text[:start] + text[end:]
    text = text.strip()
    return "" if text.startswith(INJECTED_PREFIXES) else text


def normalize_project(path: str) -> str:
    """The project's real path (symlinks resolved); the raw path when it cannot be resolved."""
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return path


def _string(value: object) -> str:
    return value if isinstance(value, str) else ""


def build_body(
    payload: Mapping[str, object],
    harness: str,
    env: Mapping[str, str],
    getcwd: Callable[[], str] = os.getcwd,
) -> dict[str, Any]:
    """The request body: the harness's fields as-is, plus session_id, cwd, project_normalized, harness.

    The project is the harness's project root (``CLAUDE_PROJECT_DIR`` / ``GEMINI_PROJECT_DIR``) when
    set, else ``cwd``: the root stays the same when the agent ``cd``s into a sub-folder.
    """
    body = dict(payload)
    prompt = body.get("prompt")
    if isinstance(prompt, str):  # Gemini CLI prefixes hook context to a headless prompt
        body["prompt"] = users_words(prompt)
    for name in TEXT_FIELDS:
        value = body.get(name)
        if isinstance(value, str) and len(value) > MAX_TEXT_CHARS:
            body[name] = value[:MAX_TEXT_CHARS]
    session = _string(payload.get("session_id")) or _string(payload.get("sessionId"))
    session = session or env.get("CONTINUITY_SESSION_ID", "")
    if session:
        body["session_id"] = session
    cwd = _string(payload.get("cwd"))
    if not cwd:
        try:
            cwd = getcwd()
        except OSError:
            cwd = ""
        if cwd:
            body["cwd"] = cwd
    env_name = PROJECT_DIR_ENV.get(harness)
    project = (env.get(env_name, "") if env_name else "") or cwd
    if project:
        path = normalize_project(project)
        identity = project_id.derive(path, env)
        # The id keys the project on the service; the real path is what it was keyed by before
        # (the service reads both) and what the local current-session file is keyed by.
        body["project_normalized"] = identity.id
        body["project_path"] = path
        if identity.branch:
            body["branch"] = identity.branch
    body["harness"] = harness
    return body


def add_origin(
    body: dict[str, Any], home: str, env: Mapping[str, str], file_config: Mapping[str, object]
) -> None:
    """The machine and person a session runs for (``machine``), for display and ranking."""
    found = machine.machine_id(home)
    if found:
        body["machine_id"] = found
    name = machine.machine_name(env, file_config)
    if name:
        body["machine_name"] = name
    person = machine.user(env, file_config)
    if person:
        body["user"] = person


def local_project(body: Mapping[str, object]) -> str:
    """The folder the local current-session file is keyed by (older bodies: the project itself)."""
    found = body.get("project_path") or body.get("project_normalized")
    return found if isinstance(found, str) else ""


def route_subagent(body: dict[str, Any], event: str, harness: str) -> None:
    """A sub-agent's own hook goes under the sub-agent's own session (see the module's docstring)."""
    agent = _string(body.get("agent_id"))
    parent = _string(body.get("session_id"))
    if harness not in SHARED_SESSION or event in PARENT_EVENTS or not agent or not parent:
        return
    body["session_id"] = f"{parent}{SUBAGENT_KEY_PART}{agent}"
    body["parent_session_key"] = parent
    own = _string(body.get("agent_transcript_path"))
    if event == "subagent-stop" and own:
        body["transcript_path"] = own
    else:
        body.pop("transcript_path", None)  # the parent's file, or one the sub-agent's stop sends


def injection_cap(harness: str, event: str, configured: int) -> int | None:
    """The injection cap to report for this hook: None when the event cannot inject context."""
    if event not in CONTEXT_EVENTS.get(harness, ()):
        return None
    return INJECTION_CAP_CHARS.get(harness, configured)


def render_output(harness: str, event: str, answer: object) -> str | None:
    """The stdout for the harness, or None when there is nothing to inject."""
    if event not in CONTEXT_EVENTS.get(harness, ()) or not isinstance(answer, dict):
        return None
    specific = answer.get("hookSpecificOutput")
    context = specific.get("additionalContext") if isinstance(specific, dict) else None
    if not isinstance(context, str) or not context.strip():
        return None
    name = HARNESS_EVENTS[harness][event]
    return json.dumps({"hookSpecificOutput": {"hookEventName": name, "additionalContext": context}})
