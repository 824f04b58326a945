"""The transcript append protocol and the rules for where transcript text lives.

The client sends only the new part of its readable transcript and the offset it starts at. The
service's copy only grows: a repeat or an overlap adds just what is new, a gap is refused with the
stored length (the client resends from there), and a shorter transcript (after a compaction) never
overwrites the fuller copy. Offsets count code points (Python ``len``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

# What an inline part and a mark cost in the DynamoDB item beyond their text (list element, number
# encoding), so the inline budget bounds the item's real size.
PART_OVERHEAD_BYTES = 4
MARK_OVERHEAD_BYTES = 24
# Marks kept when the inline text is rewritten (a flush); ~48 appends back in time is plenty to find
# where the transcript stood at the parent's latest checkpoint.
MAX_MARKS = 48

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


class AppendKind(StrEnum):
    APPEND = "append"  # ``text`` goes at the stored end
    NOTHING_NEW = "nothing_new"  # a repeat, an overlap with nothing new, or a shorter transcript
    GAP = "gap"  # starts past the stored end: refused, the client resends from the stored length


@dataclass(frozen=True)
class AppendPlan:
    kind: AppendKind
    text: str = ""  # for APPEND: what is new, to be placed at the stored end


def plan_append(stored: int, offset: int, text: str) -> AppendPlan:
    """What an append of ``text`` at ``offset`` does to a copy holding ``stored`` characters."""
    if offset > stored:
        return AppendPlan(AppendKind.GAP)
    new = text[stored - offset :]
    if not new:
        return AppendPlan(AppendKind.NOTHING_NEW)
    return AppendPlan(AppendKind.APPEND, new)


def clean_text(text: str) -> str:
    """Lone surrogates (valid JSON, invalid UTF-8) become U+FFFD: same length, storable everywhere."""
    return _LONE_SURROGATE.sub("\ufffd", text) if _LONE_SURROGATE.search(text) else text


def utf8_size(text: str) -> int:
    return len(text.encode("utf-8"))


def append_cost(text: str) -> int:
    """Bytes one append adds to the head item: the text as one more part, and one more mark."""
    return utf8_size(text) + PART_OVERHEAD_BYTES + MARK_OVERHEAD_BYTES


def inline_cost(parts: list[str], marks: int) -> int:
    return sum(utf8_size(p) + PART_OVERHEAD_BYTES for p in parts) + marks * MARK_OVERHEAD_BYTES


def split_for_flush(inline: str, keep_chars: int, max_keep_bytes: int) -> tuple[str, str]:
    """(chunk for S3, what stays inline): the last ``keep_chars`` stay (the inherit tail), within
    ``max_keep_bytes`` so a flush always makes room."""
    keep = inline[len(inline) - keep_chars :] if keep_chars > 0 else ""
    while keep and utf8_size(keep) > max_keep_bytes:
        keep = keep[max(1, len(keep) // 8) :]
    return inline[: len(inline) - len(keep)], keep


def tail_since(inline: str, inline_start: int, since: int, tail_chars: int) -> tuple[str, bool]:
    """The last ``tail_chars`` of the text after position ``since``, from the inline text that starts
    at ``inline_start``; and whether it was cut at its start."""
    end = inline_start + len(inline)
    start = max(since, end - tail_chars, inline_start)
    return inline[start - inline_start :], start > since
