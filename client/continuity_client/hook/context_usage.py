"""Context usage: the context size (tokens) the harness itself recorded in its transcript.

The compaction nudge prefers this figure to a character count. It is read in the same pass that
renders the transcript (``transcript.render`` calls ``note``) and kept in the renderer's state
(``state[CONTEXT]``), so the cursor has it as of its position without an extra read:

- Claude Code: ``message.usage`` of the last main-chain assistant entry (input + cache creation +
  cache read tokens: what the API counted as the request's input); sub-agent (sidechain) entries
  are not ours.
- Codex: its ``token_count`` event, ``info.last_token_usage.total_tokens`` (what Codex itself
  counts as in the window; ``info`` is null before the first response).
- Gemini CLI: ``tokens.input`` (the prompt token count) of its last model message (it re-appends
  the message once its usage arrives).
- OpenCode: ``tokens`` of its last assistant message (input + cache read + cache write); the
  compaction's own summary message (``summary: true``) counted the old context, so it forgets instead.

A compaction forgets the figure until the next one.

On the hook path: imports nothing.
"""

from __future__ import annotations

from continuity_client.hook.harness import CLAUDE_CODE, CODEX, GEMINI, OPENCODE

TYPE_CHECKING = False  # typing costs milliseconds at import; mypy reads this as True
if TYPE_CHECKING:
    from typing import Any

# The renderer's state key holding the figure.
CONTEXT = "ctx"
CLAUDE_USAGE_KEYS = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")


def tokens(value: object) -> int:
    """A token count from a record: a positive int, else 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _keep(state: dict[str, Any], figure: int) -> None:
    """Keep the harness's figure; a zero (a synthetic or failed response) tells nothing."""
    if figure > 0:
        state[CONTEXT] = figure


def note_claude(record: dict[str, Any], state: dict[str, Any]) -> None:
    kind = record.get("type")
    if (kind == "system" and record.get("subtype") == "compact_boundary") or record.get("isCompactSummary"):
        state.pop(CONTEXT, None)  # older versions write no boundary line: the summary starts over
    elif kind == "assistant" and not record.get("isSidechain"):
        message = record.get("message")
        usage = message.get("usage") if isinstance(message, dict) else None
        if isinstance(usage, dict):
            _keep(state, sum(tokens(usage.get(key)) for key in CLAUDE_USAGE_KEYS))


def note_codex(record: dict[str, Any], state: dict[str, Any]) -> None:
    kind = record.get("type")
    payload = record.get("payload")
    if kind == "compacted":
        state.pop(CONTEXT, None)
    elif kind == "event_msg" and isinstance(payload, dict) and payload.get("type") == "token_count":
        info = payload.get("info")
        last = info.get("last_token_usage") if isinstance(info, dict) else None
        if isinstance(last, dict):
            total = tokens(last.get("total_tokens"))
            _keep(state, total or tokens(last.get("input_tokens")) + tokens(last.get("output_tokens")))


def note_gemini(record: dict[str, Any], state: dict[str, Any]) -> None:
    """A rewritten history (``$set`` of the messages: a compression) forgets the figure."""
    update = record.get("$set")
    if isinstance(update, dict):
        if isinstance(update.get("messages"), list):
            state.pop(CONTEXT, None)
        return
    figures = record.get("tokens")
    if record.get("type") == "gemini" and isinstance(figures, dict):
        _keep(state, tokens(figures.get("input")))


def note_opencode(record: dict[str, Any], state: dict[str, Any]) -> None:
    info = record.get("info")
    if not isinstance(info, dict):
        return
    parts = record.get("parts")
    compacted = isinstance(parts, list) and any(
        isinstance(p, dict) and p.get("type") == "compaction" for p in parts
    )
    if compacted or info.get("summary"):
        state.pop(CONTEXT, None)
        return
    figures = info.get("tokens")
    if info.get("role") == "assistant" and isinstance(figures, dict):
        found = figures.get("cache")
        cache: dict[str, Any] = found if isinstance(found, dict) else {}
        _keep(state, tokens(figures.get("input")) + tokens(cache.get("read")) + tokens(cache.get("write")))


NOTERS = {CLAUDE_CODE: note_claude, CODEX: note_codex, GEMINI: note_gemini, OPENCODE: note_opencode}


def note(harness: str, record: dict[str, Any], state: dict[str, Any]) -> None:
    """Update ``state`` with what ``record`` says of the context's size."""
    NOTERS.get(harness, note_claude)(record, state)


def context_tokens(state: dict[str, Any]) -> int | None:
    """The context size the harness recorded last (tokens), if it recorded one since a compaction."""
    figure = state.get(CONTEXT)
    return figure if isinstance(figure, int) and not isinstance(figure, bool) and figure > 0 else None
