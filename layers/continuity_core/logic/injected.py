"""Context a harness injected into the user's turn is never the user's words.

Gemini CLI wraps hook context in ``<hook_context>…</hook_context>`` and puts it inside the user's
turn: prefixed to the prompt when headless, a user message of its own interactively. Harnesses
that add context as a user message of its own may hand back our own block (the recovery block,
the inherited block, the ledger line, the compaction nudge) as if the user had typed it. Stored as
a prompt it would feed the next checkpoint, and the next recovery would recover itself.

The client strips this before it sends anything (``client/continuity_client/hook/harness.py``
keeps the same markers, as it cannot import the service); the service strips it again here, in
case an older client or another integration did not.
"""

from __future__ import annotations

import re

# The headings our own injected sections start with (logic/recovery.py, logic/inherit.py) and the
# nudge's opening words (logic/ingest.py). Tested against those modules, so they cannot drift.
OWN_BLOCK_STARTS = (
    "## Session Recovery Context",
    "## Inherited from Parent Session",
    "## Decision Ledger",
    "Continuity: this session's context is about",
)
# What a harness itself sends as a prompt: Claude Code reports a background sub-agent's result as a
# ``<task-notification>`` turn through UserPromptSubmit. The sub-agent's words, not the user's.
HARNESS_NOTICE_STARTS = ("<task-notification>",)
_HOOK_CONTEXT = re.compile(r"<hook_context>.*?(?:</hook_context>|\Z)", re.DOTALL | re.IGNORECASE)


def strip_injected(text: str | None) -> str | None:
    """The user's own words: ``<hook_context>`` blocks removed, and nothing when what is left is
    one of our own injected blocks. None stays None; an all-injected text becomes ""."""
    if text is None:
        return None
    kept = _HOOK_CONTEXT.sub("", text) if "<hook_context>" in text.lower() else text
    if kept.lstrip().startswith(OWN_BLOCK_STARTS + HARNESS_NOTICE_STARTS):
        return ""
    return kept.strip() if kept is not text else text


def is_injected(text: str) -> bool:
    """The whole text is injected context (nothing of the user's is left once it is stripped)."""
    return bool(text.strip()) and not (strip_injected(text) or "").strip()
