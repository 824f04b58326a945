"""The transcript's new part in a hook's body (``transcript_cursor`` builds it).

``user-prompt-submit``, ``pre-compaction``, ``post-compaction``, ``session-end``, ``stop`` and
``subagent-stop`` carry the new part of the transcript as readable text (``transcript``), its size
since the last compaction (``transcript_chars``) and the context size the harness recorded
(``context_tokens``), when it records one. A prompt of a harness that starts no session after it
compacts (Gemini CLI) also says when the new part shows a compaction (``compacted``): the service
answers it with the recovery block. Reading a transcript must never cost the hook: these functions
log and go on.
"""

from __future__ import annotations

from continuity_client.hook import fastjson as json
from continuity_client.hook.harness import RECOVER_AT_PROMPT

TYPE_CHECKING = False  # typing costs milliseconds at import; mypy reads this as True
if TYPE_CHECKING:
    from typing import Any

    from continuity_client.hook.delivery import Log

# Events that carry the transcript's new part.
TRANSCRIPT_EVENTS = frozenset(
    {"user-prompt-submit", "pre-compaction", "post-compaction", "session-end", "stop", "subagent-stop"}
)
MAX_BODY_BYTES = 900_000  # the service refuses bodies over 1 MB (413)
MIN_DELTA_BYTES = 4096  # with less room than this (a huge prompt), the delta waits for the next hook


def attach(body: dict[str, Any], home: str, session: str, event: str, log: Log) -> bool:
    """Put the transcript's next part into ``body`` (replacing any carried before); True when the
    file has more than this part carries. Never raises."""
    path = body.get("transcript_path")
    if not isinstance(path, str) or not path or not session:
        return False
    room = MAX_BODY_BYTES - len(json.dumps(body))
    if room < MIN_DELTA_BYTES:
        log("transcript delta deferred: the hook's body leaves no room", "INFO")
        return False
    try:
        from continuity_client.hook import transcript_cursor

        budget = min(transcript_cursor.MAX_DELTA_BYTES, room)
        delta = transcript_cursor.next_delta(
            home, session, path, body["harness"], budget, final=event == "session-end"
        )
    except Exception as error:  # an unreadable transcript must not cost the hook
        log(f"transcript not read: {type(error).__name__}: {error}")
        return False
    if delta is None:
        return False
    body["transcript_chars"] = delta.chars_since_compact
    if delta.context_tokens is not None:
        body["context_tokens"] = delta.context_tokens
    else:
        body.pop("context_tokens", None)
    if delta.text:
        body["transcript"] = delta.body()
    else:
        body.pop("transcript", None)
    if delta.compacted and event == "user-prompt-submit" and body.get("harness") in RECOVER_AT_PROMPT:
        body["compacted"] = True
    return delta.more


def rewind(home: str, session: str, stored: int, log: Log) -> bool:
    """After a 409: move the cursor back to the service's length; False when it cannot."""
    try:
        from continuity_client.hook import transcript_cursor

        return transcript_cursor.rewind(home, session, stored)
    except Exception as error:
        log(f"transcript rewind failed: {type(error).__name__}: {error}")
        return False
