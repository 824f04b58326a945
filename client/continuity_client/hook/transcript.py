"""Readable text from a harness's transcript records: what the service keeps of a live session.

Each record (one JSONL line, or one message of Gemini CLI's older single-JSON file) becomes zero or
more blocks, each ended by a blank line::

    User: fix the flaky payment test
    Assistant: The mock's clock is not frozen; I'll patch it.
    Tool Bash: pytest tests/payments -q
    Result: 3 passed in 0.41s
    [Compact summary] This session is being continued from ...

User and assistant text are kept, tool use becomes the tool's name and a short form of its input,
tool results are trimmed (a sub-agent's report, the result of Claude Code's Task/Agent tool, is
kept like the agent's own words), thinking and reasoning are dropped, and bookkeeping records
(meta, progress, file-history snapshots, queue operations, token counts, ...) give nothing. A
prompt typed while Claude Code works (its ``queued_command`` attachment) is the user's. A
compaction is marked by a line of its own and its summary is labelled, never as ``User:``.

Context a harness injected into the user's turn is never the user's words: Gemini CLI's
``<hook_context>`` blocks are removed, and a user message that is our own injected block (the
recovery block, the inherited block, the ledger line, the compaction nudge) gives nothing.

The text of a record depends only on the record and on a small ``state`` carried from record to
record (Gemini CLI re-writes a message as its tool calls complete), so the same file always gives
the same text: the client can regenerate it from any position it recorded, which is how it
resends from the service's length after a 409.

The same pass notes the context size the harness itself recorded (``context_usage``).

On the hook path: imports ``json`` only.
"""

from __future__ import annotations

from continuity_client.hook import context_usage
from continuity_client.hook import fastjson as json
from continuity_client.hook.harness import (
    CLAUDE_CODE,
    CODEX,
    GEMINI,
    OPENCODE,
    TASK_NOTIFICATION,
    users_words,
)

MAX_TEXT_CHARS = 16_000  # one user or assistant block
MAX_INPUT_CHARS = 200  # a tool's input, in short
MAX_RESULT_CHARS = 500  # a tool's result
SEPARATOR = "\n\n"
# Gemini CLI: how many recent messages' emitted parts are remembered (it re-appends a message
# with the same id as its tool calls complete; older ids are not touched again).
GEMINI_WINDOW = 32
# What Gemini CLI's compression summary holds (its compression prompt asks for one).
SNAPSHOT_TAG = "<state_snapshot>"

# Keys whose value says best what a tool call does, in order of preference.
INPUT_KEYS = (
    "command",
    "cmd",
    "file_path",
    "filePath",
    "absolute_path",
    "notebook_path",
    "path",
    "pattern",
    "query",
    "url",
    "skill",
    "description",
    "prompt",
)
# Claude Code's tools that run a sub-agent: their result is the sub-agent's final report.
SUBAGENT_TOOLS = frozenset({"Task", "Agent"})
REMEMBERED_AGENT_CALLS = 16


class Rendered:
    """What one record gives: its text (blocks, each ending with a blank line) and whether a
    compaction happened at its start (``transcript_chars`` then counts from here)."""

    __slots__ = ("boundary", "text")

    def __init__(self, text: str = "", boundary: bool = False) -> None:
        self.text = text
        self.boundary = boundary


NOTHING = Rendered()


def clean(text: str) -> str:
    """Lone surrogates (valid JSON, not UTF-8) become U+FFFD: same length, as the service does."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in text)
    return text


def cut(text: str, limit: int) -> str:
    text = text.strip()
    if len(text) <= limit:
        return text
    return f"{text[:limit].rstrip()} … [+{len(text) - limit} chars]"


def one_line(text: str, limit: int) -> str:
    return cut(" ".join(text.split()), limit)


def blocks(*parts: str) -> str:
    return "".join(clean(part) + SEPARATOR for part in parts if part)


def short_input(value: object) -> str:
    """A tool's input in a line: its most telling field, else compact JSON."""
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except ValueError:
            return one_line(value, MAX_INPUT_CHARS)
        value = parsed
    if isinstance(value, dict):
        for key in INPUT_KEYS:
            found = value.get(key)
            if isinstance(found, list):
                found = " ".join(str(item) for item in found)
            if isinstance(found, str) and found.strip():
                return one_line(found, MAX_INPUT_CHARS)
    if value in (None, {}, []):
        return ""
    return one_line(json.dumps(value, ensure_ascii=False, sort_keys=True), MAX_INPUT_CHARS)


def result_text(value: object) -> str:
    """A tool result's text, whatever shape it came in (string, content blocks, {output: ...})."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        texts = []
        for item in value:
            if isinstance(item, dict) and item.get("type") == "image":
                texts.append("[image]")
            else:
                texts.append(result_text(item))
        return "\n".join(text for text in texts if text)
    if isinstance(value, dict):
        for key in ("text", "output", "content", "result", "llmContent", "response", "functionResponse"):
            if key in value:
                return result_text(value[key])
        return ""
    return "" if value is None else str(value)


def tool_line(name: object, arguments: object) -> str:
    shown = short_input(arguments)
    return f"Tool {name or '?'}: {shown}" if shown else f"Tool {name or '?'}"


def result_line(value: object, error: bool = False, limit: int = MAX_RESULT_CHARS) -> str:
    text = cut(result_text(value), limit)
    label = "Result (error)" if error else "Result"
    return f"{label}: {text}" if text else f"{label}: (empty)"


# ---------------------------------------------------------------------------------------------
# Claude Code
# ---------------------------------------------------------------------------------------------

CLAUDE_SKIPPED_TYPES = frozenset(
    {"summary", "file-history-snapshot", "progress", "queue-operation", "attachment", "custom-title"}
)


def queued_prompt(record: dict) -> str:
    """A prompt typed while Claude Code worked: it writes no user line for it, only an
    ``attachment`` of type ``queued_command`` (``commandMode`` ``prompt``, ``origin.kind`` ``human``).
    Other modes (task notifications) and other origins (another session, auto-continuation) are not
    the user's words."""
    attachment = record.get("attachment")
    if not isinstance(attachment, dict) or attachment.get("type") != "queued_command":
        return ""
    if attachment.get("isMeta") or attachment.get("commandMode", "prompt") != "prompt":
        return ""
    origin = attachment.get("origin")
    if isinstance(origin, dict) and origin.get("kind", "human") != "human":
        return ""
    return users_words(result_text(attachment.get("prompt")))


def subagent_report(text: str) -> str:
    """Claude Code's ``<task-notification>`` turn: a background sub-agent's report, sent as if the
    user said it. Kept whole as the sub-agent's result, never as ``User:``."""
    return f"Result: {cut(text, MAX_TEXT_CHARS)}"


def _sidechain(record: dict, state: dict) -> bool:
    """Sub-agent lines inside the main transcript (older Claude Code) are skipped there; a sub-agent's
    own transcript (``agent_transcript_path``) is all sidechain lines and is read whole."""
    if "chain" not in state and record.get("type") in ("user", "assistant"):
        state["chain"] = "side" if record.get("isSidechain") else "main"
    return bool(record.get("isSidechain")) and state.get("chain") == "main"


def render_claude(record: dict, state: dict) -> Rendered:
    kind = record.get("type")
    if kind == "attachment" and not record.get("isMeta"):
        typed = queued_prompt(record)
        return Rendered(blocks(f"User: {cut(typed, MAX_TEXT_CHARS)}" if typed else ""))
    if kind in CLAUDE_SKIPPED_TYPES or record.get("isMeta") or _sidechain(record, state):
        return NOTHING
    if kind == "system":
        if record.get("subtype") != "compact_boundary":
            return NOTHING
        metadata = record.get("compactMetadata") or {}
        trigger = metadata.get("trigger") if isinstance(metadata, dict) else None
        return Rendered(blocks(f"--- context compacted ({trigger or 'compaction'}) ---"), boundary=True)
    message = record.get("message")
    if kind not in ("user", "assistant") or not isinstance(message, dict):
        return NOTHING
    content = message.get("content")
    if record.get("isCompactSummary"):
        text = cut(result_text(content), MAX_TEXT_CHARS)
        # Older versions write no compact_boundary line before the summary: the summary starts it.
        return Rendered(blocks(f"[Compact summary] {text}"), boundary=not state.get("compacted"))
    label = "User" if kind == "user" else "Assistant"
    if isinstance(content, str):
        if kind == "user" and content.lstrip().startswith(TASK_NOTIFICATION):
            return Rendered(blocks(subagent_report(content)))
        text = users_words(content) if kind == "user" else content.strip()
        return Rendered(blocks(f"{label}: {cut(text, MAX_TEXT_CHARS)}" if text else ""))
    parts: list[str] = []
    for block in content if isinstance(content, list) else ():
        if not isinstance(block, dict):
            continue
        kind_of = block.get("type")
        if kind_of == "text" and str(block.get("text") or "").strip():
            raw = str(block["text"])
            if kind == "user" and raw.lstrip().startswith(TASK_NOTIFICATION):
                parts.append(subagent_report(raw))
                continue
            text = users_words(raw) if kind == "user" else raw
            if text.strip():
                parts.append(f"{label}: {cut(text, MAX_TEXT_CHARS)}")
        elif kind_of == "tool_use":
            if block.get("name") in SUBAGENT_TOOLS and block.get("id"):
                calls = state.setdefault("agents", [])
                calls.append(str(block["id"]))
                del calls[:-REMEMBERED_AGENT_CALLS]
            parts.append(tool_line(block.get("name"), block.get("input")))
        elif kind_of == "tool_result":
            # A sub-agent's report is its findings: kept like prose, not trimmed like tool output.
            report = str(block.get("tool_use_id") or "") in state.get("agents", ())
            limit = MAX_TEXT_CHARS if report else MAX_RESULT_CHARS
            parts.append(result_line(block.get("content"), bool(block.get("is_error")), limit))
        elif kind_of == "image":
            parts.append(f"{label}: [image]")
        # thinking, redacted_thinking and anything new: dropped
    return Rendered(blocks(*parts))


def claude_state_after(record: dict, state: dict) -> None:
    """A compact_boundary line followed by its summary is one compaction, not two."""
    kind = record.get("type")
    if kind == "system" and record.get("subtype") == "compact_boundary":
        state["compacted"] = True
    elif kind in ("user", "assistant") and not record.get("isCompactSummary"):
        state.pop("compacted", None)


# ---------------------------------------------------------------------------------------------
# Codex
# ---------------------------------------------------------------------------------------------


def _codex_message_text(content: object) -> str:
    if isinstance(content, str):
        return content
    texts = []
    for item in content if isinstance(content, list) else ():
        if isinstance(item, dict) and isinstance(item.get("text"), str):
            texts.append(item["text"])
    return "\n".join(texts)


def render_codex(record: dict, state: dict) -> Rendered:
    kind = record.get("type")
    payload = record.get("payload")
    if not isinstance(payload, dict):
        return NOTHING
    if kind == "compacted":
        summary = payload.get("message") or payload.get("summary") or ""
        summary_block = f"[Compact summary] {cut(str(summary), MAX_TEXT_CHARS)}" if summary else ""
        return Rendered(blocks("--- context compacted ---", summary_block), boundary=True)
    if kind != "response_item":  # session_meta, turn_context, event_msg (duplicates of items)
        return NOTHING
    item = payload.get("type")
    if item == "message":
        role = payload.get("role")
        text = _codex_message_text(payload.get("content")).strip()
        if not text or role not in ("user", "assistant"):
            return NOTHING  # developer/system messages are instructions, not the conversation
        if role == "user":
            text = users_words(text)
            if not text:
                return NOTHING
        label = "User" if role == "user" else "Assistant"
        return Rendered(blocks(f"{label}: {cut(text, MAX_TEXT_CHARS)}"))
    if item in ("function_call", "custom_tool_call"):
        arguments = payload.get("arguments") if item == "function_call" else payload.get("input")
        return Rendered(blocks(tool_line(payload.get("name"), arguments)))
    if item == "local_shell_call":
        action = payload.get("action")
        return Rendered(blocks(tool_line("shell", action if isinstance(action, dict) else None)))
    if item == "web_search_call":
        action = payload.get("action")
        return Rendered(blocks(tool_line("web_search", action if isinstance(action, dict) else None)))
    if item in ("function_call_output", "custom_tool_call_output", "local_shell_call_output"):
        return Rendered(blocks(result_line(payload.get("output"))))
    return NOTHING  # reasoning (encrypted or not) and anything new


# ---------------------------------------------------------------------------------------------
# Gemini CLI
# ---------------------------------------------------------------------------------------------


def _gemini_content(content: object) -> str:
    if isinstance(content, str):
        return content
    texts = []
    for item in content if isinstance(content, list) else ():
        if isinstance(item, dict) and isinstance(item.get("text"), str):
            texts.append(item["text"])
        elif isinstance(item, str):
            texts.append(item)
    return "\n".join(texts)


def _gemini_entry(message: dict, state: dict) -> list:
    """What of this message was emitted: [id, text emitted, calls emitted, results emitted]."""
    ident = str(message.get("id") or "")
    seen: list = state.setdefault("seen", [])
    entry = next((item for item in seen if item[0] == ident), None) if ident else None
    if entry is None:
        entry = [ident, False, [], []]
        if ident:
            seen.append(entry)
            del seen[:-GEMINI_WINDOW]
    return entry


def _gemini_message(message: dict, state: dict) -> str:
    """The parts of a message not emitted before: its text once, each tool call and result once."""
    entry = _gemini_entry(message, state)
    kind = message.get("type")
    parts: list[str] = []
    text = _gemini_content(message.get("content")).strip()
    if text and not entry[1]:
        if kind == "user":
            words = users_words(text)
            if words:
                parts.append(f"User: {cut(words, MAX_TEXT_CHARS)}")
        elif kind == "gemini":
            parts.append(f"Assistant: {cut(text, MAX_TEXT_CHARS)}")
        entry[1] = True
    calls = message.get("toolCalls")
    for index, call in enumerate(calls if isinstance(calls, list) else ()):
        if not isinstance(call, dict):
            continue
        call_id = str(call.get("id") or index)
        if call_id not in entry[2]:
            entry[2].append(call_id)
            parts.append(tool_line(call.get("name"), call.get("args")))
        if call_id not in entry[3] and (call.get("result") is not None or call.get("resultDisplay")):
            entry[3].append(call_id)
            result = call.get("result")
            if result is None:
                result = call.get("resultDisplay")
            parts.append(result_line(result, call.get("status") == "error"))
    return blocks(*parts)


def _gemini_mark_read(message: dict, state: dict) -> None:
    """Note a message as emitted without emitting it (it was read before, in another file)."""
    entry = _gemini_entry(message, state)
    entry[1] = True
    calls = message.get("toolCalls")
    for index, call in enumerate(calls if isinstance(calls, list) else ()):
        if isinstance(call, dict):
            call_id = str(call.get("id") or index)
            entry[2].append(call_id)
            if call.get("result") is not None or call.get("resultDisplay"):
                entry[3].append(call_id)


def _gemini_rewrite(messages: list, state: dict) -> Rendered:
    """A ``{"$set": {"messages": [...]}}`` record: Gemini CLI re-writes its whole history when it
    compresses it (and when it masks old tool output). Every message it had was first written as a
    line of its own, so a re-write brings nothing new, however long, except the compression's
    summary: a user turn the CLI writes itself, never seen before, holding the model's
    ``<state_snapshot>`` (chatCompressionService.ts), followed by the model's acknowledgement. It is
    labelled as a summary, never as ``User:``. Synthetic turns without a snapshot (the environment
    context the CLI puts first) are not the conversation."""
    seen = {item[0] for item in state.get("seen", ())}
    for index, message in enumerate(messages):
        ident = str(message.get("id") or "")
        if message.get("type") != "user" or not ident or ident in seen or ident == state.get("summary"):
            continue
        summary = _gemini_content(message.get("content")).strip()
        if SNAPSHOT_TAG not in summary:
            continue
        state["summary"] = ident
        _gemini_mark_read(message, state)
        after = messages[index + 1] if index + 1 < len(messages) else None
        if isinstance(after, dict) and after.get("type") == "gemini":
            _gemini_mark_read(after, state)  # "Got it. Thanks for the additional context!"
        summary_block = f"[Compact summary] {cut(summary, MAX_TEXT_CHARS)}"
        return Rendered(blocks("--- context compacted ---", summary_block), boundary=True)
    return NOTHING


def render_gemini(record: dict, state: dict) -> Rendered:
    """One line of Gemini CLI's JSONL chat file (or one message of its older JSON file)."""
    update = record.get("$set")
    if isinstance(update, dict):
        messages = update.get("messages")
        if not isinstance(messages, list):
            return NOTHING
        return _gemini_rewrite([m for m in messages if isinstance(m, dict)], state)
    if record.get("type") in ("user", "gemini"):
        if state.get("skip"):
            # Migrated from the older JSON file (Gemini CLI copies every message into the new
            # JSONL file when it resumes one): read there already.
            state["skip"] -= 1
            _gemini_mark_read(record, state)
            return NOTHING
        return Rendered(_gemini_message(record, state))
    return NOTHING  # the metadata header, info and error lines


# ---------------------------------------------------------------------------------------------
# OpenCode
# ---------------------------------------------------------------------------------------------


def _opencode_parts(label: str, parts: list) -> list[str]:
    out: list[str] = []
    for part in parts:
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        if kind == "text":
            text = str(part.get("text") or "")
            text = users_words(text) if label == "User" else text  # never injected context
            # Synthetic text is OpenCode's own (a file it read for an @mention, a reminder), not the
            # user's or the model's words; ignored text never reached the model.
            if text.strip() and not part.get("synthetic") and not part.get("ignored"):
                out.append(f"{label}: {cut(text, MAX_TEXT_CHARS)}")
        elif kind == "file":
            # Never the url: an attached image is a data: URL of its whole content.
            name = part.get("filename") or part.get("mime")
            shown = f" {one_line(str(name), MAX_INPUT_CHARS)}" if name else ""
            out.append(f"{label}: [file{shown}]")
        elif kind == "tool":
            found = part.get("state")
            state: dict = found if isinstance(found, dict) else {}
            out.append(tool_line(part.get("tool"), state.get("input")))
            if state.get("status") == "completed":
                out.append(result_line(state.get("output")))
            elif state.get("status") == "error":
                out.append(result_line(state.get("error"), error=True))
        elif kind == "subtask":
            out.append(tool_line("task", {"description": part.get("description")}))
        # reasoning, step-start/finish, snapshot, patch, agent, retry and anything new: dropped
    return out


def render_opencode(record: dict, state: dict) -> Rendered:
    """One message of an OpenCode session as its SDK gives it (``{"info": Message, "parts": [Part]}``),
    one per line of the file our plugin writes from OpenCode's own storage."""
    info = record.get("info")
    parts = record.get("parts")
    if not isinstance(info, dict) or not isinstance(parts, list):
        return NOTHING
    role = info.get("role")
    if role == "user":
        compaction = next((p for p in parts if isinstance(p, dict) and p.get("type") == "compaction"), None)
        if compaction is not None:
            trigger = "auto" if compaction.get("auto") else "manual"
            return Rendered(blocks(f"--- context compacted ({trigger}) ---"), boundary=True)
        return Rendered(blocks(*_opencode_parts("User", parts)))
    if role != "assistant":
        return NOTHING
    if info.get("summary"):  # the compaction's summary: what the session continues from
        texts = [str(p.get("text") or "") for p in parts if isinstance(p, dict) and p.get("type") == "text"]
        summary = "\n".join(t for t in texts if t.strip())
        return Rendered(blocks(f"[Compact summary] {cut(summary, MAX_TEXT_CHARS)}" if summary else ""))
    return Rendered(blocks(*_opencode_parts("Assistant", parts)))


RENDERERS = {
    CLAUDE_CODE: render_claude,
    CODEX: render_codex,
    GEMINI: render_gemini,
    OPENCODE: render_opencode,
}


def render(harness: str, record: object, state: dict) -> Rendered:
    """The readable text of one record; ``state`` is updated for the next one."""
    if not isinstance(record, dict):
        return NOTHING
    renderer = RENDERERS.get(harness, render_claude)
    rendered = renderer(record, state)
    if renderer is render_claude:
        claude_state_after(record, state)
    context_usage.note(harness, record, state)
    return rendered


def render_all(harness: str, records: list, state: dict | None = None) -> str:
    """The readable text of a whole transcript (tests, and people reading a file by hand)."""
    current: dict = {} if state is None else state
    return "".join(render(harness, record, current).text for record in records)
