"""Data as earlier versions of the service stored it, for tests that it stays readable."""

from __future__ import annotations

from datetime import datetime
from typing import Any


def earlier_layout_head(agent_id: str, session_key: str, text: str, now: datetime) -> dict[str, Any]:
    """A transcript head item (typed, for PutItem) as the earlier layout wrote it: the whole text
    inline in ``parts``, with ``inline_bytes`` and ``marks``, nothing in S3, no appends."""
    from continuity_core.kernel.dynamo_items import session_pk, timestamp, to_attributes

    half = len(text) // 2
    return to_attributes(
        {
            "pk": session_pk(agent_id, session_key),
            "sk": "TRANSCRIPT",
            "session_key": session_key,
            "harness": "claude-code",
            "created_at": timestamp(now),
            "updated_at": timestamp(now),
            "length": len(text),
            "flushed": 0,
            "parts": [text[:half], text[half:]],
            "inline_bytes": len(text.encode("utf-8")) + 60,
            "marks": [[1, half], [2, len(text)]],
            "chunk_ids": [],
            "chunk_ends": [],
            "expires_at": int(now.timestamp()) + 86_400 * 8,
        }
    )
