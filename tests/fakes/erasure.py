"""``ErasureStore`` in memory, over the fakes' ``Memory`` and ``InMemoryTranscriptStorage``.
``tests/contract/test_erasure_store_contract.py`` holds it to what the DynamoDB/S3 adapter does."""

from __future__ import annotations

from datetime import datetime, timedelta

from continuity_core.admin.ports import LedgerItem, SessionContents
from continuity_core.kernel.expiry import expiry
from tests.fakes.stores import TOMBSTONE, Memory, _Stored
from tests.fakes.transcripts import InMemoryTranscriptStorage

HEAD, APPEND = "TRANSCRIPT", "APPEND#"


class InMemoryErasureStore:
    def __init__(self, memory: Memory, transcripts: InMemoryTranscriptStorage) -> None:
        self._memory = memory
        self._transcripts = transcripts

    def session_contents(self, agent_id: str, session_key: str) -> SessionContents:
        key = (agent_id, session_key)
        items: list[str] = []
        projects: set[str] = set()
        stored = self._memory.states.get(key)
        deleted = stored is not None and TOMBSTONE in stored.values
        if stored is not None:
            projects.update(stored.values.get("projects", []))
            if stored.values.get("project_normalized"):
                projects.add(stored.values["project_normalized"])
        checkpoints = self._memory.checkpoints.get(key, {})
        items += list(checkpoints)
        projects.update(c.project_normalized for c in checkpoints.values() if c.project_normalized)
        head = self._transcripts.stored_heads.get(key)
        if head is not None:
            items.append(HEAD)
            if head.head.project_normalized:
                projects.add(head.head.project_normalized)
        appends = self._transcripts.stored_appends.get(key, {})
        items += [f"{APPEND}{start}" for start in appends]
        return SessionContents(
            items=tuple(items),
            states=int(stored is not None and not deleted),
            checkpoints=len(checkpoints),
            transcripts=int(head is not None),
            transcript_parts=len(appends),
            chunk_ids=tuple(head.head.chunk_ids) if head is not None else (),
            projects=frozenset(projects),
            deleted=deleted,
        )

    def put_tombstone(
        self, agent_id: str, session_key: str, projects: frozenset[str], now: datetime, until: datetime
    ) -> None:
        values = {"session_key": session_key, TOMBSTONE: now, "projects": sorted(projects)}
        ttl = expiry(until, timedelta(0)).ttl_epoch
        self._memory.states[(agent_id, session_key)] = _Stored(values, ttl)

    def delete_items(self, agent_id: str, session_key: str, items: tuple[str, ...]) -> None:
        key = (agent_id, session_key)
        for item in items:
            if item == HEAD:
                self._transcripts.stored_heads.pop(key, None)
            elif item.startswith(APPEND):
                self._transcripts.stored_appends.get(key, {}).pop(int(item[len(APPEND) :]), None)
            else:
                self._memory.checkpoints.get(key, {}).pop(item, None)
        for emptied in (self._transcripts.stored_appends, self._memory.checkpoints):
            if key in emptied and not emptied[key]:
                del emptied[key]

    def delete_bodies(self, agent_id: str, session_key: str, chunk_ids: tuple[str, ...]) -> int:
        for number, chunk_id in enumerate(chunk_ids):
            self._transcripts.chunks.pop((agent_id, session_key, number, chunk_id), None)
        return len(chunk_ids)

    def project_sessions(self, agent_id: str, project_normalized: str) -> set[str]:
        found = {
            session
            for (agent, session), checkpoints in self._memory.checkpoints.items()
            if agent == agent_id
            and any(c.project_normalized == project_normalized for c in checkpoints.values())
        }
        found |= {
            session
            for (agent, session), stored in self._transcripts.stored_heads.items()
            if agent == agent_id and stored.head.project_normalized == project_normalized
        }
        return found | set(self._memory.project_sessions.get((agent_id, project_normalized), {}))

    def ledger_items(self, agent_id: str, project_normalized: str) -> list[LedgerItem]:
        ledger = self._memory.ledger.get((agent_id, project_normalized), {})
        return [LedgerItem(key, entry.session_key) for key, entry in ledger.items()]

    def delete_ledger_items(
        self, agent_id: str, project_normalized: str, items: list[LedgerItem], session_key: str | None
    ) -> None:
        key = (agent_id, project_normalized)
        ledger = self._memory.ledger.get(key, {})
        for item in items:
            ledger.pop(item.item_id, None)
        if session_key is None:
            self._memory.ledger_heads.pop(key, None)
        elif key in self._memory.ledger_heads:
            head = self._memory.ledger_heads[key]
            head[:] = [entry for entry in head if entry.session_key != session_key]

    def delete_project_record(self, agent_id: str, project_normalized: str) -> None:
        self._memory.projects.pop((agent_id, project_normalized), None)
        self._memory.project_handoffs.pop((agent_id, project_normalized), None)

    def delete_project_entries(self, agent_id: str, project_normalized: str, session_keys: set[str]) -> int:
        noted = self._memory.project_sessions.get((agent_id, project_normalized), {})
        gone = [session for session in session_keys if session in noted]
        for session in gone:
            del noted[session]
        handoffs = self._memory.handoffs.get((agent_id, project_normalized), {})
        theirs = [key for key, handoff in handoffs.items() if handoff.session_key in session_keys]
        counted = self._memory.project_handoffs.get((agent_id, project_normalized), {})
        for key in theirs:
            counted.pop(handoffs[key].id, None)
            del handoffs[key]
            self._memory.open_handoffs.discard((agent_id, project_normalized, key))
        return len(gone) + len(theirs)
