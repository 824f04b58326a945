"""The transcript append protocol: where a client's delta goes, over a storage that only stores.

The stored text is the chain of appends from the head's ``flushed`` on, each starting where the one
before ended (``transcripts/layout.py``). A put is conditioned on its position being free, so two
writers never store different text at one position; whoever loses decides again from what is stored.

The session state carries a hint (where the transcript ended before this hook, when its head was
last written), read back by the update every prompt makes anyway. When the hint says the transcript
ended exactly where the client's delta starts and the head is fresh, an append is one put. When the
state knows of no transcript and the delta starts at 0, the transcript is started without reading.
Otherwise (a repeat, an overlap, a gap, a stale head, a replay, a lost race) the careful path reads
the head and the appends since ``flushed`` and decides from what is stored: the hint is only ever a
shortcut, the appends are the truth. Where the hint was wrong, the result says what it should be,
and the caller (the hook handlers' ``append_transcript``) writes it to the state, so the next prompt
takes one request again.

Incarnations: a transcript whose head passed its TTL starts over under the same session key; an
append of the earlier incarnation (written before the new head) is free to overwrite and is no text.
The head is rewritten at least every ``HEAD_REFRESH`` while appends come, never on every append
(a write is billed by the whole item). When an append passes a multiple of ``chunk_chars``, the
appends since the last chunk, all but the last ``keep_chars`` (at least ``CARRY_CHARS``), move to
one chunk.

Redaction: the client's text comes raw, and is redacted here with the stored tail before it
(``transcripts/redact.py``): a secret split across two deltas is found whole, the part the
previous append stored is rewritten in place (same length) before the new text is put. The careful
path has that tail already. The fast path takes it from what this instance itself stored or read
last for the session (``KnownTail``), when that ends exactly where the delta starts, in the
incarnation the state's hint names; otherwise it reads the latest appends (one small
consistent read). Why the remembered tail is the stored one: an append is never changed but by a
rewrite that only adds redaction, nor removed before its TTL, so the text that ended at ``end`` when
this instance stored it still does; and the put is conditioned on its position being free, so it
lands only if nothing was appended after that tail since (else the careful path decides from what
is stored). Nothing the client sends but its offset takes part: no echo to forge or replay.
"""

from __future__ import annotations

import uuid
from collections import OrderedDict
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from continuity_core.kernel.dynamo_items import millis
from continuity_core.kernel.errors import StorageUnavailableError
from continuity_core.kernel.observability import logger
from continuity_core.models.state import SessionIdentity
from continuity_core.models.transcripts import TranscriptHead
from continuity_core.transcripts.layout import (
    AppendKind,
    chain_to,
    chunk_cut,
    clean_text,
    crosses_chunk,
    inline_end,
    plan_append,
    since_flushed,
)
from continuity_core.transcripts.ports import (
    AppendResult,
    ChunkMove,
    Span,
    StoredAppend,
    TranscriptHint,
    TranscriptStorage,
)
from continuity_core.transcripts.redact import CARRY_CHARS, redact_after

# The head is rewritten at least this often while appends come; the storage keeps a head a day
# longer than an append (transcripts/dynamo_transcripts.py, HEAD_EXTRA), so every append expires
# before its head and the pruner, deleting the head, never cuts a transcript short.
HEAD_REFRESH = timedelta(hours=18)
# One stored append holds at most this many characters: at most 256 KB of UTF-8 (incompressible
# text grows by ~0.1 % in zlib), far below DynamoDB's 400 KB item.
MAX_APPEND_CHARS = 65_536
MAX_ATTEMPTS = 6
# The fast path reads this many of the latest appends at a time to find the carried tail: a prompt's
# delta is usually longer than the tail, so one read of two is nearly always all.
TAIL_READ = 2
# Sessions whose last stored tail an instance remembers (a Lambda instance serves a few sessions at
# a time; each entry holds the appends covering the carried tail, ~8 KB for a prompt's delta).
KNOWN_TAILS = 256


@dataclass(frozen=True)
class KnownTail:
    """The appends this instance last stored or read for a session, ending at ``end`` and covering
    the carried tail (or reaching the transcript's start), in the incarnation whose head was written
    at ``head_at`` (the fast path needs that head fresh: so is what is remembered)."""

    end: int
    head_at: datetime
    appends: tuple[StoredAppend, ...]


def hint_fits(hint: TranscriptHint, offset: int, now: datetime) -> bool:
    """The fast path: the state says the transcript ends where the delta starts, and its head is fresh."""
    return (
        hint.previous_end == offset
        and hint.head_written_at is not None
        and now - hint.head_written_at < HEAD_REFRESH
    )


class TranscriptAppender:
    """``TranscriptLog``: the append protocol over a ``TranscriptStorage``."""

    def __init__(
        self, storage: TranscriptStorage, chunk_chars: int, keep_chars: int, carry_chars: int = CARRY_CHARS
    ) -> None:
        self._storage = storage
        self._chunk_chars = chunk_chars
        self._carry_chars = carry_chars
        # The carried tail is rewritten in DynamoDB when a secret straddles: it never moves to S3 first.
        self._keep_chars = max(keep_chars, carry_chars)
        self._known: OrderedDict[tuple[str, str], KnownTail] = OrderedDict()

    def append(
        self,
        agent_id: str,
        identity: SessionIdentity,
        offset: int,
        text: str,
        now: datetime,
        hint: TranscriptHint | None = None,
    ) -> AppendResult:
        text = clean_text(text)
        if not text:
            return AppendResult(offset)  # nothing to place; a gap, if any, shows on the next append
        key = identity.session_key
        end = offset + len(text)
        # Forgotten until this append succeeds: a failed one leaves no claim about the stored tail.
        known = self._known.pop((agent_id, key), None)
        if hint is not None and hint_fits(hint, offset, now):
            tail = self._known_tail(known, offset, hint)
            if tail is None:
                tail = self._latest_tail(agent_id, key, offset)
            stored = (
                None if tail is None else self._redact_and_put(agent_id, key, offset, text, tail, now, None)
            )
            if stored is not None:
                self._remember(agent_id, key, hint.head_written_at, stored)
                self._chunk_if_crossed(agent_id, key, offset, end, now)
                return AppendResult(end)
        elif (
            hint is not None
            and hint.previous_end < 0  # the state knows of no transcript: most likely a new one,
            and offset == 0  # so start it without reading first
            and self._storage.start_head(agent_id, identity, now)
            and (stored := self._redact_and_put(agent_id, key, 0, text, [], now, born=now)) is not None
        ):
            self._remember(agent_id, key, now, stored)
            self._chunk_if_crossed(agent_id, key, 0, end, now)
            return AppendResult(end, hint=TranscriptHint(end, now))
        return self._append_careful(agent_id, identity, offset, text, now, hint)

    def _append_careful(
        self,
        agent_id: str,
        identity: SessionIdentity,
        offset: int,
        text: str,
        now: datetime,
        hint: TranscriptHint | None,
    ) -> AppendResult:
        """Decide from what is stored: the head, and the appends since its ``flushed``."""
        key = identity.session_key
        # What the prompt's state update left in the state (None: the hook made no such update).
        hinted_end = offset + len(text) if hint is not None else None
        hinted_head = hint.head_written_at if hint is not None else None

        def result(length: int, head_at: datetime | None, gap: bool = False) -> AppendResult:
            """Tell the state where the hint it holds is wrong."""
            right = length == hinted_end and head_at == hinted_head
            return AppendResult(length, gap, None if right else TranscriptHint(length, head_at))

        for _ in range(MAX_ATTEMPTS):
            head = self._storage.head(agent_id, key, now, consistent=True)
            chain: list[StoredAppend] = []
            if head is None:
                stored, born = 0, now
            else:
                born = head.created_at
                chain = self._since_flushed(agent_id, head)
                stored = chain[-1].span.end if chain else head.flushed
            plan = plan_append(stored, offset, text)
            head_at = head.updated_at if head else None
            if plan.kind is not AppendKind.APPEND:
                return result(stored, head_at, gap=plan.kind is AppendKind.GAP)
            if head is None:
                if not self._storage.start_head(agent_id, identity, now):
                    continue  # another writer started it: decide again
                head_at = now
            # The appends holding the carried tail (an earlier layout's inline text is not one).
            tail = [
                a
                for a in chain
                if a.span.end > stored - self._carry_chars and head and a.span.start >= inline_end(head)
            ]
            written = self._redact_and_put(agent_id, key, stored, plan.text, tail, now, born=born)
            if written is None:
                continue  # another writer appended at the same place (or rewrote the tail)
            new_end = stored + len(plan.text)
            if (
                head is not None
                and now - head.updated_at >= HEAD_REFRESH
                and self._storage.update_head(agent_id, identity, head, new_end, now)
            ):
                head_at = now
            self._remember(agent_id, key, head_at, written)
            self._chunk_if_crossed(agent_id, key, stored, new_end, now)
            return result(new_end, head_at)
        raise StorageUnavailableError(f"transcript of {key} kept changing; retry")

    def _known_tail(
        self, known: KnownTail | None, end: int, hint: TranscriptHint
    ) -> list[StoredAppend] | None:
        """The tail this instance stored or read last, if it ends at ``end`` in the incarnation the
        hint names (its head written at the same instant); None: read it."""
        if known is None or known.end != end or known.head_at != hint.head_written_at:
            return None
        return list(known.appends)

    def _remember(
        self,
        agent_id: str,
        session_key: str,
        head_at: datetime | None,
        chain: list[StoredAppend],
    ) -> None:
        """Keep the appends covering the carried tail of ``chain`` (the stored text up to its end), if
        they cover it whole or reach the transcript's start: less would redact with less context."""
        if not chain or head_at is None:
            return
        end, kept, covered = chain[-1].span.end, list[StoredAppend](), 0
        for append in reversed(chain):
            kept.insert(0, append)
            covered = end - append.span.start
            if covered >= self._carry_chars:
                break
        if covered < self._carry_chars and kept[0].span.start != 0:
            return
        self._known[(agent_id, session_key)] = KnownTail(end, head_at, tuple(kept))
        while len(self._known) > KNOWN_TAILS:
            self._known.popitem(last=False)

    def _latest_tail(self, agent_id: str, session_key: str, end: int) -> list[StoredAppend] | None:
        """The appends holding the last ``carry_chars`` before ``end`` (fewer at the transcript's
        start, or after an earlier layout's inline text); None when no append ends at ``end`` (the
        hint was wrong: decide the careful way)."""
        if end == 0 or self._carry_chars == 0:
            return []
        found: list[StoredAppend] = []
        before, chain = end, list[StoredAppend]()
        while True:
            latest = self._storage.latest_appends(agent_id, session_key, before, TAIL_READ)
            found = latest + found
            longer = chain_to(found, end)
            if not longer:
                return None
            if (
                end - longer[0].span.start >= self._carry_chars
                or longer[0].span.start == 0  # the transcript's start
                or len(latest) < TAIL_READ  # all there is
                or len(longer) == len(chain)  # nothing more joins it
            ):
                return longer
            chain = longer
            before = min(a.span.start for a in latest)

    def _redact_and_put(
        self,
        agent_id: str,
        session_key: str,
        start: int,
        text: str,
        tail: list[StoredAppend],
        now: datetime,
        born: datetime | None,
    ) -> list[StoredAppend] | None:
        """``text`` redacted after the stored ``tail`` (the appends ending at ``start``) and put at
        ``start``; the tail rewritten first where a secret straddles, so no read ever joins a raw
        piece stored before to one stored after. The appends as stored now (the tail's, then the new
        ones); None when a position is taken or the tail changed (the caller decides again from what
        is stored)."""
        tail_text = "".join(a.text for a in tail)
        carried = tail_text[-self._carry_chars :] if self._carry_chars else ""
        cut = start - len(carried) > 0  # the carried text begins inside the transcript
        redacted = redact_after(carried, text, tail[-1].open_kind if tail else None, cut)
        if redacted.tail != carried:
            rewritten = self._rewrite(
                agent_id, session_key, tail, tail_text[: len(tail_text) - len(carried)] + redacted.tail
            )
            if rewritten is None:
                return None
            tail = rewritten
        put = self._put(agent_id, session_key, start, redacted.text, now, born, redacted.open_kind)
        return None if put is None else [*tail, *put]

    def _rewrite(
        self, agent_id: str, session_key: str, tail: list[StoredAppend], text: str
    ) -> list[StoredAppend] | None:
        """Each append of ``tail`` whose part of ``text`` (their text, more redacted) differs; the
        tail as stored now, None when an append changed meanwhile."""
        at, rewritten = 0, []
        for append in tail:
            new = text[at : at + len(append.text)]
            at += len(append.text)
            if new != append.text:
                if not self._storage.replace_append(agent_id, session_key, append, new):
                    return None
                append = replace(append, text=new, revision=append.revision + 1)
            rewritten.append(append)
        return rewritten

    def _put(
        self,
        agent_id: str,
        session_key: str,
        start: int,
        text: str,
        now: datetime,
        born: datetime | None,
        open_kind: str | None = None,
    ) -> list[StoredAppend] | None:
        """``text`` at ``start``, one stored append per ``MAX_APPEND_CHARS``, as stored; None as soon
        as one position is taken (the caller decides again from what is stored: what was put is on
        the chain). ``open_kind`` goes with the last piece: the one the next append's tail ends with."""
        pieces = range(0, len(text), MAX_APPEND_CHARS)
        stored = []
        for at in pieces:
            piece = text[at : at + MAX_APPEND_CHARS]
            kind = open_kind if at == pieces[-1] else None
            if not self._storage.put_append(
                agent_id, session_key, start + at, piece, now, born, open_kind=kind
            ):
                return None
            span = Span(start + at, start + at + len(piece), millis(now))
            stored.append(StoredAppend(span, piece, kind))
        return stored

    def _since_flushed(self, agent_id: str, head: TranscriptHead) -> list[StoredAppend]:
        stored = self._storage.appends(agent_id, head.session_key, inline_end(head), consistent=True)
        return since_flushed(head, stored)

    # -- moving text to chunks -------------------------------------------------------------------

    def _chunk_if_crossed(self, agent_id: str, session_key: str, start: int, end: int, now: datetime) -> None:
        if not crosses_chunk(start, end, self._chunk_chars):
            return
        try:
            self.move_to_chunk(agent_id, session_key, now)
        except Exception:  # the append is stored; the next crossing moves what this one did not
            logger.exception("could not move transcript text to S3", extra={"session": session_key})

    def move_to_chunk(self, agent_id: str, session_key: str, now: datetime) -> bool:
        """Move the appends since the last chunk, all but the tail, to a new chunk. Two movers at
        once: the head takes one chunk (its ``flushed`` must be unchanged), the other's is deleted.
        True when this call moved text."""
        head = self._storage.head(agent_id, session_key, now, consistent=True)
        if head is None:
            return False
        chain = self._since_flushed(agent_id, head)
        cut = chunk_cut([a.span for a in chain], head.flushed, self._keep_chars, self._chunk_chars // 2)
        if cut <= head.flushed:
            return False
        text = "".join(a.text for a in chain if a.span.end <= cut)
        chunk_id = uuid.uuid4().hex[:16]
        number = len(head.chunk_ids)
        self._storage.put_chunk(agent_id, session_key, number, chunk_id, text)
        identity = SessionIdentity(
            session_key=session_key,
            harness=head.harness or "",
            project=head.project,
            project_normalized=head.project_normalized,
        )
        moved = ChunkMove(chunk_id, cut)
        if self._storage.update_head(agent_id, identity, head, chain[-1].span.end, now, moved):
            return True
        try:
            self._storage.delete_chunk(agent_id, session_key, number, chunk_id)
        except Exception:  # an orphan is harmless: the bucket's lifecycle rule removes it
            logger.warning("could not delete an unused transcript chunk", extra={"session": session_key})
        return False
