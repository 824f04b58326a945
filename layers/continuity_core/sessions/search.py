"""Session search: ranked full text (SQLite FTS5, bm25, snippet()) over the sessions in scope.

Scope: one session, or a project's ``searchMaxSessions`` newest sessions (the asking
session left out). Only those are read, through the project's session index, so a search costs what
its scope holds, never what is stored.

A warm function keeps what it has indexed: a process-wide FTS5 cache keyed by (agent, session,
created_at), which knows how many characters of each transcript it holds. A search reads only the
part of a transcript appended since (nothing, for sessions unchanged). Transcripts are indexed in
segments of ~12,000 characters, so an append re-indexes at most one segment plus the new text, and a
hit's snippet comes from the passage around it.
"""

from __future__ import annotations

import re
import sqlite3
import threading
import time
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from continuity_core.kernel.config import ContinuityConfig
from continuity_core.models.transcripts import SessionSummary, TranscriptHead
from continuity_core.sessions.ports import SearchHit
from continuity_core.transcripts.ports import TranscriptStore

SEGMENT_CHARS = 12_000
SNIPPET_TOKENS = 56
SNIPPET_CHARS = 320
HIT_START, HIT_END, ELLIPSIS = "«", "»", "…"
CACHE_MAX_CHARS = 80_000_000  # ~ what a 1 GB function holds comfortably, index included
MAX_QUERY_TERMS = 16
# Sessions a cold search reads per step (one batch read of their heads: at most 100 keys); the next
# step is read while this one is indexed.
READ_STEP = 50

_WORD = re.compile(r"\w+", re.UNICODE)
_PHRASE = re.compile(r'"([^"]+)"')


def fts_query(text: str) -> str | None:
    """A safe FTS5 expression: quoted phrases stay phrases, other words are OR'ed terms (bm25 ranks
    passages matching more of them higher). None when nothing searchable is left."""
    terms: list[str] = []
    for phrase in _PHRASE.findall(text):
        words = _WORD.findall(phrase)
        if words:
            terms.append('"' + " ".join(words) + '"')
    for word in _WORD.findall(_PHRASE.sub(" ", text)):
        quoted = f'"{word}"'
        if quoted not in terms:
            terms.append(quoted)
    return " OR ".join(terms[:MAX_QUERY_TERMS]) or None


def split_segments(text: str, size: int = SEGMENT_CHARS) -> list[str]:
    """Pieces of at most ``size`` characters, cut at whitespace near the end when there is some."""
    pieces = []
    while len(text) > size:
        cut = max(text.rfind(" ", size - 400, size), text.rfind("\n", size - 400, size))
        cut = cut + 1 if cut > 0 else size
        pieces.append(text[:cut])
        text = text[cut:]
    pieces.append(text)
    return pieces


def fit_snippet(snippet: str, limit: int = SNIPPET_CHARS) -> str:
    """At most ~``limit`` characters, centred on the first hit."""
    if len(snippet) <= limit + 40:
        return snippet
    hit = max(snippet.find(HIT_START), 0)
    start = max(0, min(hit - limit // 3, len(snippet) - limit))
    cut = snippet[start : start + limit]
    return (ELLIPSIS if start else "") + cut + (ELLIPSIS if start + limit < len(snippet) else "")


@dataclass(frozen=True)
class _Row:
    doc: int
    rowid: int
    rank: float


class SearchIndex:
    """The process-wide FTS5 cache. Thread-safe (the local stack serves requests on threads)."""

    def __init__(self, max_chars: int = CACHE_MAX_CHARS) -> None:
        self._max_chars = max_chars
        self._lock = threading.RLock()
        self._db = self._open()

    @staticmethod
    def _open() -> sqlite3.Connection:
        db = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        db.executescript(
            """
            CREATE TABLE docs (
                id INTEGER PRIMARY KEY, agent TEXT NOT NULL, session_key TEXT NOT NULL,
                created_at TEXT NOT NULL, length INTEGER NOT NULL, used REAL NOT NULL,
                UNIQUE (agent, session_key));
            CREATE TABLE segs (
                id INTEGER PRIMARY KEY, doc INTEGER NOT NULL, start INTEGER NOT NULL, size INTEGER NOT NULL);
            CREATE INDEX segs_by_doc ON segs (doc, start);
            CREATE VIRTUAL TABLE fts USING fts5 (body, tokenize = 'porter unicode61 remove_diacritics 2');
            """
        )
        return db

    def reset(self) -> None:
        with self._lock:
            self._db.close()
            self._db = self._open()

    def known(self, agent_id: str, session: SessionSummary) -> tuple[int, int]:
        """(doc id, characters indexed) for this incarnation of the session; (0, 0) if none."""
        with self._lock:
            row = self._db.execute(
                "SELECT id, created_at, length FROM docs WHERE agent = ? AND session_key = ?",
                (agent_id, session.session_key),
            ).fetchone()
            if row is None:
                return 0, 0
            doc, created_at, length = row
            if created_at != session.created_at.isoformat():
                self._drop(doc)  # a new session under an old key: start over
                return 0, 0
            return doc, length

    def add(self, agent_id: str, session: SessionSummary, start: int, text: str) -> int:
        """Index ``text`` as characters ``start``… of the session (``start`` = what is indexed)."""
        with self._lock:
            doc, indexed = self.known(agent_id, session)
            if indexed < start:
                raise ValueError(f"index holds {indexed} characters of {session.session_key}, not {start}")
            text, start = text[indexed - start :], indexed  # another request indexed some already
            if not text:
                return doc
            self._db.execute("BEGIN")
            try:
                if not doc:
                    doc = (
                        self._db.execute(
                            "INSERT INTO docs (agent, session_key, created_at, length, used) "
                            "VALUES (?, ?, ?, 0, ?)",
                            (agent_id, session.session_key, session.created_at.isoformat(), time.monotonic()),
                        ).lastrowid
                        or 0
                    )
                self._append(doc, start, text)
                self._db.execute("UPDATE docs SET length = ? WHERE id = ?", (start + len(text), doc))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            return doc

    def _append(self, doc: int, start: int, text: str) -> None:
        last = self._db.execute(
            "SELECT id, start, size FROM segs WHERE doc = ? ORDER BY start DESC LIMIT 1", (doc,)
        ).fetchone()
        if last is not None and last[2] < SEGMENT_CHARS:
            (body,) = self._db.execute("SELECT body FROM fts WHERE rowid = ?", (last[0],)).fetchone()
            self._db.execute("DELETE FROM fts WHERE rowid = ?", (last[0],))
            self._db.execute("DELETE FROM segs WHERE id = ?", (last[0],))
            text, start = body + text, last[1]
        for piece in split_segments(text):
            rowid = self._db.execute(
                "INSERT INTO segs (doc, start, size) VALUES (?, ?, ?)", (doc, start, len(piece))
            ).lastrowid
            self._db.execute("INSERT INTO fts (rowid, body) VALUES (?, ?)", (rowid, piece))
            start += len(piece)

    def touch(self, docs: Iterable[int]) -> None:
        with self._lock:
            now = time.monotonic()
            self._db.executemany("UPDATE docs SET used = ? WHERE id = ?", [(now, d) for d in docs])

    def evict(self, keep: set[int]) -> None:
        """Drop the least recently used sessions (never those in ``keep``) beyond the cache budget."""
        with self._lock:
            (total,) = self._db.execute("SELECT COALESCE(SUM(length), 0) FROM docs").fetchone()
            if total <= self._max_chars:
                return
            for doc, length in self._db.execute("SELECT id, length FROM docs ORDER BY used").fetchall():
                if total <= self._max_chars:
                    break
                if doc not in keep:
                    self._drop(doc)
                    total -= length

    def _drop(self, doc: int) -> None:
        rows = self._db.execute("SELECT id FROM segs WHERE doc = ?", (doc,)).fetchall()
        self._db.executemany("DELETE FROM fts WHERE rowid = ?", rows)
        self._db.execute("DELETE FROM segs WHERE doc = ?", (doc,))
        self._db.execute("DELETE FROM docs WHERE id = ?", (doc,))

    def query(
        self, expression: str, docs: list[int], limit: int, one_per_doc: bool
    ) -> list[tuple[int, float, str]]:
        """(doc, bm25 score — higher is better, snippet) of the best passages among ``docs``."""
        if not docs:
            return []
        with self._lock:
            marks = ",".join("?" * len(docs))
            rows = [
                _Row(doc, rowid, rank)
                for rowid, doc, rank in self._db.execute(
                    f"SELECT fts.rowid, segs.doc, bm25(fts) FROM fts JOIN segs ON segs.id = fts.rowid "
                    f"WHERE fts MATCH ? AND segs.doc IN ({marks})",
                    (expression, *docs),
                )
            ]
            rows.sort(key=lambda r: r.rank)
            chosen: list[_Row] = []
            seen: set[int] = set()
            for row in rows:
                if one_per_doc and row.doc in seen:
                    continue
                seen.add(row.doc)
                chosen.append(row)
                if len(chosen) == limit:
                    break
            out = []
            for row in chosen:
                (snippet,) = self._db.execute(
                    "SELECT snippet(fts, 0, ?, ?, ?, ?) FROM fts WHERE fts MATCH ? AND rowid = ?",
                    (HIT_START, HIT_END, ELLIPSIS, SNIPPET_TOKENS, expression, row.rowid),
                ).fetchone()
                out.append((row.doc, float(f"{-row.rank:.6g}"), fit_snippet(snippet)))
            return out


class TranscriptSearchService:
    """``TranscriptSearch`` over live transcripts."""

    def __init__(self, store: TranscriptStore, config: ContinuityConfig, index: SearchIndex) -> None:
        self._store = store
        self._config = config
        self._index = index

    def search(
        self,
        agent_id: str,
        query: str,
        limit: int,
        session_key: str | None = None,
        project_normalized: str | None = None,
        exclude_session_key: str | None = None,
    ) -> list[SearchHit]:
        expression = fts_query(query)
        if expression is None:
            return []
        heads: dict[str, TranscriptHead] = {}
        if session_key:
            head = self._store.assembled_head(agent_id, session_key)
            if head is None:
                return []
            heads[head.session_key] = head
            scope: list[SessionSummary] = [head.summary()]
        elif project_normalized:
            scope = self.project_scope(agent_id, project_normalized, exclude_session_key)
        else:
            return []
        docs = self._sync(agent_id, scope, heads)
        by_doc = {doc: session for session, doc in zip(scope, docs, strict=True) if doc}
        found = self._index.query(expression, list(by_doc), limit, one_per_doc=len(scope) > 1)
        return [
            SearchHit(
                session_key=by_doc[doc].session_key,
                project=by_doc[doc].project,
                snippet=snippet,
                score=score,
                updated_at=by_doc[doc].updated_at,
            )
            for doc, score, snippet in found
        ]

    def project_scope(
        self, agent_id: str, project_normalized: str, exclude_session_key: str | None
    ) -> list[SessionSummary]:
        """The project's newest sessions, the asking one left out."""
        bound = self._config.search_max_sessions
        recent, _ = self._store.recent_sessions(
            agent_id, project_normalized, bound + (1 if exclude_session_key else 0)
        )
        return [s for s in recent if s.session_key != exclude_session_key][:bound]

    def _sync(
        self, agent_id: str, scope: list[SessionSummary], heads: dict[str, TranscriptHead]
    ) -> list[int]:
        """Bring the cache up to date for ``scope``; the doc id of each session (0: not indexed).

        The stale sessions are read ``READ_STEP`` at a time, the next step's reads running while
        this step's text is indexed: a cold search waits for its reads or its indexing, whichever
        is longer, not for both (SQLite indexes with the GIL released)."""
        known = {s.session_key: self._index.known(agent_id, s) for s in scope}
        stale = [s for s in scope if known[s.session_key][1] < s.length]
        steps = [stale[at : at + READ_STEP] for at in range(0, len(stale), READ_STEP)]
        with ThreadPoolExecutor(max_workers=1) as reader:
            ahead = [reader.submit(self._read, agent_id, step, known, heads) for step in steps[:1]]
            for number in range(len(steps)):
                texts = ahead.pop().result()
                if number + 1 < len(steps):
                    ahead.append(reader.submit(self._read, agent_id, steps[number + 1], known, heads))
                for head, start, text in texts:
                    known[head.session_key] = (self._index.add(agent_id, head.summary(), start, text), 0)
        docs = [known[s.session_key][0] for s in scope]
        self._index.touch(d for d in docs if d)
        self._index.evict(keep={d for d in docs if d})
        return docs

    def _read(
        self,
        agent_id: str,
        stale: list[SessionSummary],
        known: dict[str, tuple[int, int]],
        given: dict[str, TranscriptHead],
    ) -> list[tuple[TranscriptHead, int, str]]:
        """(head, start, text from start) of each stale session still readable (one batch read of
        the heads not ``given``, then each one's appends and chunks)."""
        heads = {s.session_key: given[s.session_key] for s in stale if s.session_key in given}
        missing = [s.session_key for s in stale if s.session_key not in heads]
        if missing:
            heads.update(self._store.heads(agent_id, missing))
        ranges = [
            (heads[s.session_key], known[s.session_key][1])
            for s in stale
            if s.session_key in heads and heads[s.session_key].created_at == s.created_at
        ]
        texts = self._store.read_many(agent_id, ranges) if ranges else {}
        return [
            (head, start, texts[head.session_key]) for head, start in ranges if texts.get(head.session_key)
        ]
