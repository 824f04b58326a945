"""Reading live transcripts: the head alone, or assembled with the text the appends hold.

A transcript is its chunks (text moved out, in order, ending at ``chunk_ends``) and then the chain
of appends from the head's ``flushed`` on (``transcripts/layout.py``). The head item is written when
the transcript starts, when text moves to a chunk and every ``HEAD_REFRESH``, never per append: its
``length`` lags. ``head`` is that one item (enough to learn a session's project); ``assembled_head``
adds the appends since ``flushed``: the current length, the marks, the tail text.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

from continuity_core.hooks.ports import StateStore
from continuity_core.kernel.clock import Clock
from continuity_core.kernel.dynamo_items import millis, moment
from continuity_core.kernel.observability import logger
from continuity_core.models.transcripts import SessionSummary, TranscriptHead
from continuity_core.transcripts.layout import chain_from, inline_end, since_flushed
from continuity_core.transcripts.ports import TranscriptBodyMissingError, TranscriptStorage

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

    from continuity_core.models.state import SessionState

READ_WORKERS = 8  # reads only, off the hook path: a handful of sessions or chunks at once
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class TranscriptReader:
    """``TranscriptStore`` over a ``TranscriptStorage``; ``states`` gives the sessions' hints."""

    def __init__(self, storage: TranscriptStorage, states: StateStore | None, clock: Clock) -> None:
        self._storage = storage
        self._states = states
        self._clock = clock

    # -- heads -----------------------------------------------------------------------------------

    def head(self, agent_id: str, session_key: str, consistent: bool = False) -> TranscriptHead | None:
        return self._storage.head(agent_id, session_key, self._clock(), consistent)

    def assembled_head(
        self, agent_id: str, session_key: str, consistent: bool = False
    ) -> TranscriptHead | None:
        head = self.head(agent_id, session_key, consistent)
        return None if head is None else self._assemble(agent_id, head, consistent)

    def heads(self, agent_id: str, session_keys: list[str]) -> dict[str, TranscriptHead]:
        live = self._storage.heads(agent_id, list(dict.fromkeys(session_keys)), self._clock())
        with _pool() as pool:
            found = list(pool.map(lambda head: self._assemble(agent_id, head, False), live))
        return {head.session_key: head for head in found}

    def _assemble(self, agent_id: str, head: TranscriptHead, consistent: bool) -> TranscriptHead:
        """The head with the text since ``flushed`` (``inline``), its length and marks."""
        stored = self._storage.appends(agent_id, head.session_key, inline_end(head), consistent)
        chain = since_flushed(head, stored)
        if not chain:
            return head.model_copy(update={"length": head.flushed})
        last = chain[-1].span
        return head.model_copy(
            update={
                "inline": "".join(a.text for a in chain),
                "length": last.end,
                "marks": [(a.span.at_ms, a.span.end) for a in chain],
                "updated_at": max(head.updated_at, moment(last.at_ms)),
            }
        )

    # -- text ------------------------------------------------------------------------------------

    def read_since(self, agent_id: str, session_key: str, start: int) -> tuple[str, int] | None:
        """From a length read before, one query: the appends stay stored until their TTL, even once
        their text also went to a chunk, so the chain from ``start`` is there (an earlier
        incarnation's appends could only be on it after this one's head expired, and then the digest
        that noted ``start`` has expired too). Otherwise the whole body."""
        if start > 0:
            stored = self._storage.appends(agent_id, session_key, start, consistent=True)
            chain = chain_from(stored, start, _EPOCH)
            if chain:
                return "".join(a.text for a in chain), chain[-1].span.end
        whole = self.assembled_head(agent_id, session_key, consistent=True)
        if whole is None:
            return None
        if whole.length < start:  # a new transcript under the same key: all of it is new
            start = 0
        return self.read(agent_id, whole, start), whole.length

    def read(self, agent_id: str, head: TranscriptHead, start: int = 0, end: int | None = None) -> str:
        end = head.length if end is None else min(end, head.length)
        if start >= end:
            return ""
        wanted = chunks_between(head, start, end)
        if len(wanted) > 1:
            with _pool() as pool:
                texts = list(pool.map(lambda number: self._chunk(agent_id, head, number), wanted))
        else:
            texts = [self._chunk(agent_id, head, number) for number in wanted]
        pieces = []
        for number, text in zip(wanted, texts, strict=True):
            chunk_start = head.chunk_ends[number - 1] if number else 0
            pieces.append(text[max(start - chunk_start, 0) : end - chunk_start])
        if end > head.flushed:
            pieces.append(head.inline[max(start - head.flushed, 0) : end - head.flushed])
        return "".join(pieces)

    def read_many(self, agent_id: str, ranges: list[tuple[TranscriptHead, int]]) -> dict[str, str]:
        jobs = [
            (head, number) for head, start in ranges for number in chunks_between(head, start, head.length)
        ]

        def fetch(job: tuple[TranscriptHead, int]) -> tuple[str, int, str | None]:
            head, number = job
            try:
                return head.session_key, number, self._chunk(agent_id, head, number)
            except TranscriptBodyMissingError:
                return head.session_key, number, None

        with _pool() as pool:
            fetched = {(key, number): text for key, number, text in pool.map(fetch, jobs)}
        out: dict[str, str] = {}
        for head, start in ranges:
            numbers = chunks_between(head, start, head.length)
            if any(fetched.get((head.session_key, n)) is None for n in numbers):
                logger.warning(
                    "transcript body missing; session left out", extra={"session": head.session_key}
                )
                continue
            pieces = []
            for number in numbers:
                chunk_start = head.chunk_ends[number - 1] if number else 0
                pieces.append((fetched[(head.session_key, number)] or "")[max(start - chunk_start, 0) :])
            pieces.append(head.inline[max(start - head.flushed, 0) :])
            out[head.session_key] = "".join(pieces)
        return out

    def _chunk(self, agent_id: str, head: TranscriptHead, number: int) -> str:
        text = self._storage.get_chunk(agent_id, head.session_key, number, head.chunk_ids[number])
        expected = head.chunk_ends[number] - (head.chunk_ends[number - 1] if number else 0)
        if len(text) != expected:
            raise RuntimeError(f"transcript chunk {number} of {head.session_key}: {len(text)} != {expected}")
        return text

    # -- the project's sessions ------------------------------------------------------------------

    def recent_sessions(
        self,
        agent_id: str,
        project_normalized: str,
        limit: int,
        token: str | None = None,
        harness: str | None = None,
    ) -> tuple[list[SessionSummary], str | None]:
        """Newest transcript first; length and last activity as the session state has them now."""
        found, next_token, _ = self.session_page(agent_id, project_normalized, limit, token, harness)
        return found, next_token

    def session_page(
        self,
        agent_id: str,
        project_normalized: str,
        limit: int,
        token: str | None = None,
        harness: str | None = None,
    ) -> tuple[list[SessionSummary], str | None, dict[str, SessionState]]:
        """``recent_sessions``, and the states read for it (the dashboard's rows need them too)."""
        found, next_token = self._storage.session_index(
            agent_id, project_normalized, limit, token, harness, self._clock()
        )
        keys = [s.session_key for s in found]
        states = self._states.get_many(agent_id, keys) if self._states is not None and keys else {}
        return self._with_activity(agent_id, found, states), next_token, states

    def _with_activity(
        self, agent_id: str, summaries: list[SessionSummary], states: dict[str, SessionState]
    ) -> list[SessionSummary]:
        """The head is not written per append: length and last activity come from the session
        state's hint, or (no hint: the state is gone, or never saw this transcript) from the newest
        append of this incarnation."""
        if not summaries:
            return summaries
        latest: dict[str, tuple[int, datetime]] = {
            key: (state.transcript_end, state.last_activity_at)
            for key, state in states.items()
            if state.transcript_end is not None
        }
        unhinted = [s for s in summaries if s.session_key not in latest]
        if unhinted:
            with _pool() as pool:
                newest = pool.map(lambda s: self._storage.newest_append(agent_id, s.session_key), unhinted)
                for summary, span in zip(unhinted, newest, strict=True):
                    if span is not None and span.at_ms >= millis(summary.created_at):
                        latest[summary.session_key] = (span.end, moment(span.at_ms))
        out = []
        for summary in summaries:
            end, active = latest.get(summary.session_key, (summary.length, summary.updated_at))
            out.append(
                summary.model_copy(
                    update={"length": max(summary.length, end), "updated_at": max(summary.updated_at, active)}
                )
            )
        return out


def chunks_between(head: TranscriptHead, start: int, end: int) -> list[int]:
    """The numbers of the chunks holding characters ``start`` to ``end``."""
    out = []
    for number, chunk_end in enumerate(head.chunk_ends):
        chunk_start = head.chunk_ends[number - 1] if number else 0
        if chunk_end > start and chunk_start < end:
            out.append(number)
    return out


def _pool() -> ThreadPoolExecutor:
    from concurrent.futures import ThreadPoolExecutor  # reads only: the hook path never loads it

    return ThreadPoolExecutor(max_workers=READ_WORKERS)
