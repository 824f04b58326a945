"""Why a checkpoint was written: a plain enum apart from the checkpoint's model, so the hook path
that names a trigger does not build the checkpoint and digest models."""

from __future__ import annotations

from enum import StrEnum


class CheckpointTrigger(StrEnum):
    PERIODIC = "periodic"
    PRE_COMPACTION = "pre_compaction"
    # After the harness compacted: the digest takes in its compaction summary (PostCompact), or the
    # transcript shows a compaction the harness announced no session start for (Gemini CLI).
    POST_COMPACTION = "post_compaction"
    SESSION_END = "session_end"
    AGENT = "agent"
    EXPLICIT = "explicit"
    CLEAR = "clear"  # the session was cleared (/clear): its story, for the session that follows
    # The session's end never came: the idle sweep wrote what was pending (checkpoints/idle.py).
    IDLE = "idle"
    # Written for a hand-off (``continuity handoff``): the session's story as it was handed over.
    HANDOFF = "handoff"
