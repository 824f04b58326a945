"""Context a harness injected into the user's turn is never the user's words.

Gemini CLI wraps hook context in ``<hook_context>…</hook_context>`` and puts it inside the user's
turn: prefixed to the prompt when headless, a user message of its own interactively. Claude Code in
an IDE adds ``<ide_opened_file>``/``<ide_selection>`` notes ("The user selected the lines 98 to 98
from …") and ``<system-reminder>`` text to the user's message: read as the user's words, a selected
fragment became a "constraint" and answered questions. Harnesses
that add context as a user message of its own may hand back our own block (the recovery block,
the inherited block, the ledger line, the compaction nudge) as if the user had typed it. Stored as
a prompt it would feed the next checkpoint, and the next recovery would recover itself.

The client strips this before it sends anything (``client/continuity_client/hook/harness.py``
keeps the same markers, as it cannot import the service); the service strips it again here, in
case an older client or another integration did not.
"""

from __future__ import annotations

import re

# The headings our own injected sections start with (recovery/recovery.py, recovery/inherit.py) and the
# nudge's opening words (hooks/ingest.py). Tested against those modules, so they cannot drift.
OWN_BLOCK_STARTS = (
    "## Session Recovery Context",
    "## Inherited from Parent Session",
    "## Decision Ledger",
    "Continuity: this session's context is about",
)
# What a harness itself sends as a prompt: Claude Code reports a background sub-agent's result as a
# ``<task-notification>`` turn through UserPromptSubmit. The sub-agent's words, not the user's.
HARNESS_NOTICE_STARTS = ("<task-notification>",)
# Context a harness wraps in tags inside the user's turn: Gemini CLI's hook context, Claude Code's
# IDE notes (``<ide_opened_file>``, ``<ide_selection>``: the file open, the lines selected) and its
# system reminders. Removed to the closing tag, or to the end when it is missing.
WRAPPED_CONTEXT_TAGS = ("hook_context", "ide_opened_file", "ide_selection", "system-reminder")
_WRAPPED = re.compile(
    "|".join(rf"<{re.escape(tag)}>.*?(?:</{re.escape(tag)}>|\Z)" for tag in WRAPPED_CONTEXT_TAGS),
    re.DOTALL | re.IGNORECASE,
)


def strip_injected(text: str | None) -> str | None:
    """The user's own words: wrapped context removed (``WRAPPED_CONTEXT_TAGS``), and nothing when what
    is left is one of our own injected blocks. None stays None; an all-injected text becomes ""."""
    if text is None:
        return None
    kept = _WRAPPED.sub("", text) if "<" in text else text
    if kept.lstrip().startswith(OWN_BLOCK_STARTS + HARNESS_NOTICE_STARTS):
        return ""
    return kept.strip() if kept is not text else text


def is_injected(text: str) -> bool:
    """The whole text is injected context (nothing of the user's is left once it is stripped)."""
    return bool(text.strip()) and not (strip_injected(text) or "").strip()
