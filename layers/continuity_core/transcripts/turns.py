"""A readable transcript grouped by turn: each of the user's prompts with what followed it.

The blocks are those the rolling digest reads (``rolling_inputs.transcript_blocks``). A ``User:`` block
that holds the user's own words starts a turn; hook and system text under that label (slash
commands, reminders) stays inside the turn it came in. Blocks before the first prompt are turn 0.
When a turn began is read off the head's marks (when each stored append landed); text already moved
to S3 has no marks left, so its turns have no time.
"""

from __future__ import annotations

from datetime import UTC, datetime

from continuity_core.checkpoints.rolling_inputs import is_users_words, transcript_blocks
from continuity_core.models.dashboard import TranscriptBlock, Turn
from continuity_core.models.transcripts import TranscriptHead


def moment_of(head: TranscriptHead, offset: int) -> datetime | None:
    """When the append holding character ``offset`` was stored, if the head still marks it."""
    for at_ms, end in head.marks:
        if end > offset:
            return datetime.fromtimestamp(at_ms / 1000, UTC)
    return None


def group_turns(text: str, head: TranscriptHead, base: int = 0) -> list[Turn]:
    """``text`` (the transcript from character ``base``) as turns, oldest first."""
    turns: list[Turn] = []
    cursor = 0
    for block in transcript_blocks(text):
        first_line = block.text.split("\n", 1)[0]
        found = text.find(first_line, cursor)
        cursor = (found if found >= 0 else cursor) + len(first_line)
        position = text.rfind("\n", 0, max(found, 0)) + 1  # the line it is on, label included
        starts_turn = block.label == "User" and is_users_words(block.text)
        at = moment_of(head, base + position)
        if starts_turn or not turns:
            number = (turns[-1].number + 1) if turns else (1 if starts_turn else 0)
            turns.append(Turn(number=number, at=at, offset=base + position, blocks=[]))
        turns[-1].blocks.append(TranscriptBlock(label=block.label, text=block.text, at=at))
    return turns
