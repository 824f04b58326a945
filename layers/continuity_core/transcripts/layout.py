"""The transcript append protocol and the rules for where transcript text lives.

The client sends only the new part of its readable transcript and the offset it starts at. The
service's copy only grows: a repeat or an overlap adds just what is new, a gap is refused with the
stored length (the client resends from there), and a shorter transcript (after a compaction) never
overwrites the fuller copy. Offsets count code points (Python ``len``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from continuity_core.kernel.dynamo_items import millis
from continuity_core.models.transcripts import TranscriptHead
from continuity_core.transcripts.ports import Span, StoredAppend

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


def follow(spans: Mapping[int, Span], start: int) -> list[Span]:
    """The appends that make up the text from ``start`` on, in order: each begins where the one before
    ended. Anything off that chain (an append of an earlier incarnation) is left out."""
    chain = []
    position = start
    while (span := spans.get(position)) is not None and span.end > position:
        chain.append(span)
        position = span.end
    return chain


def chain_from(appends: Iterable[StoredAppend], start: int, born: datetime) -> list[StoredAppend]:
    """The appends that make up the text from ``start`` on, of the incarnation ``born`` then: an append
    written before the transcript's head (an earlier incarnation's, left until its TTL) is not text."""
    born_ms = millis(born)
    by_start = {a.span.start: a for a in appends if a.span.at_ms >= born_ms}
    return [by_start[span.start] for span in follow({k: a.span for k, a in by_start.items()}, start)]


def chain_to(appends: Iterable[StoredAppend], end: int) -> list[StoredAppend]:
    """The appends that make up the text before ``end``, back as far as they join, in position order.
    Of two appends ending at one position, the newer is on the chain (the other is an earlier
    incarnation's, left until its TTL)."""
    by_end = {a.span.end: a for a in sorted(appends, key=lambda a: a.span.at_ms)}
    chain = []
    position = end
    while (found := by_end.get(position)) is not None and found.span.start < position:
        chain.append(found)
        position = found.span.start
    return chain[::-1]


def since_flushed(head: TranscriptHead, appends: Iterable[StoredAppend]) -> list[StoredAppend]:
    """The text after the head's ``flushed``, as a chain: a head of the earlier layout kept its text
    in itself (``inline``), the appends go on from where that text ends. ``appends``: those stored
    from ``inline_end(head)`` on."""
    start = inline_end(head)
    chain = chain_from(appends, start, head.created_at)
    if not head.inline:
        return chain
    legacy = StoredAppend(Span(head.flushed, start, millis(head.created_at)), head.inline)
    return [legacy, *chain]


def inline_end(head: TranscriptHead) -> int:
    """Where the appends after a head's ``flushed`` begin (after an earlier layout's inline text)."""
    return head.flushed + len(head.inline)


def crosses_chunk(start: int, end: int, chunk_chars: int) -> bool:
    """An append that passes a multiple of ``chunk_chars`` triggers a move to S3."""
    return end // chunk_chars > start // chunk_chars


def chunk_cut(chain: list[Span], flushed: int, keep_chars: int, min_chars: int) -> int:
    """Where the next S3 chunk ends: at an append's end, leaving at least ``keep_chars`` (the inherit
    tail) after it; ``flushed`` (nothing to move) when the chunk would be under ``min_chars``."""
    end = chain[-1].end if chain else flushed
    cut = flushed
    for span in chain:
        if end - span.end < keep_chars:
            break
        cut = span.end
    return cut if cut - flushed >= min_chars else flushed


def tail_since(inline: str, inline_start: int, since: int, tail_chars: int) -> tuple[str, bool]:
    """The last ``tail_chars`` of the text after position ``since``, from the inline text that starts
    at ``inline_start``; and whether it was cut at its start."""
    end = inline_start + len(inline)
    start = max(since, end - tail_chars, inline_start)
    return inline[start - inline_start :], start > since
