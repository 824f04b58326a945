"""Deleting a session's or a project's data now (``DELETE /api/sessions/{key}``,
``DELETE /api/projects?project=…``; ``continuity forget``).

Everything of a session goes: its state, checkpoints, transcript (head, appends, S3 bodies), its
decisions in each project's ledger (entries and the ledger head's copy) and the note that it
belongs to its project. A project takes all its sessions and its whole ledger.

The order makes the delete safe to retry and closed to late writes:

1. the session's **tombstone** first (its state item replaced; it names the session's projects):
   from then on a hook of the session (a spooled one arriving late, a harness still running) is
   refused with 410 and stores nothing, until the tombstone expires with the longest retention;
2. the decisions, found through the projects the items (or the tombstone) name;
3. the S3 bodies before the transcript head that lists them (a failure leaves the head: a retry
   finds them);
4. the items; a second read deletes what a write already in flight added meanwhile.

Idempotent: a repeat finds only the tombstone and answers zeros (and moves the tombstone's end).
"""

from __future__ import annotations

from datetime import timedelta

from continuity_core.admin.ports import ErasureStore
from continuity_core.kernel.clock import Clock
from continuity_core.kernel.config import ContinuityConfig
from continuity_core.models.forget import DeletedCounts, ForgetAnswer


class Forgetter:
    def __init__(self, store: ErasureStore, config: ContinuityConfig, clock: Clock) -> None:
        self._store = store
        # As long as anything of the session could have been kept, and a spooled hook still come.
        self._tombstone = timedelta(days=max(config.retention_days, config.transcript_retention_days))
        self._clock = clock

    def forget_session(self, agent_id: str, session_key: str) -> ForgetAnswer:
        counts = DeletedCounts()
        for project in self._erase(agent_id, session_key, counts):
            ledger = [i for i in self._store.ledger_items(agent_id, project) if i.session_key == session_key]
            counts.ledger_entries += len(ledger)
            self._store.delete_ledger_items(agent_id, project, ledger, session_key)
            counts.index_entries += self._store.delete_project_entries(agent_id, project, {session_key})
        return self._answer([session_key], None, counts)

    def forget_project(self, agent_id: str, project_normalized: str) -> ForgetAnswer:
        counts = DeletedCounts()
        ledger = self._store.ledger_items(agent_id, project_normalized)
        sessions = self._store.project_sessions(agent_id, project_normalized)
        sessions |= {item.session_key for item in ledger if item.session_key}
        for session_key in sorted(sessions):
            # The project's ledger goes whole below; another project a session also wrote to keeps
            # everything but that session's decisions.
            for project in self._erase(agent_id, session_key, counts) - {project_normalized}:
                own = [i for i in self._store.ledger_items(agent_id, project) if i.session_key == session_key]
                counts.ledger_entries += len(own)
                self._store.delete_ledger_items(agent_id, project, own, session_key)
                counts.index_entries += self._store.delete_project_entries(agent_id, project, {session_key})
        self._delete_ledger(agent_id, project_normalized, counts)
        counts.index_entries += self._store.delete_project_entries(agent_id, project_normalized, sessions)
        self._store.delete_project_record(agent_id, project_normalized)
        return self._answer(sorted(sessions), project_normalized, counts)

    def _erase(self, agent_id: str, session_key: str, counts: DeletedCounts) -> frozenset[str]:
        """Steps 1, 3 and 4 for one session; answers the projects its items named (step 2's)."""
        now = self._clock()
        contents = self._store.session_contents(agent_id, session_key)
        self._store.put_tombstone(agent_id, session_key, contents.projects, now, now + self._tombstone)
        counts.transcript_bodies += self._store.delete_bodies(agent_id, session_key, contents.chunk_ids)
        self._store.delete_items(agent_id, session_key, contents.items)
        late = self._store.session_contents(agent_id, session_key)
        if late.items:  # written by a request that was already past the tombstone's check
            self._store.delete_bodies(agent_id, session_key, late.chunk_ids)
            self._store.delete_items(agent_id, session_key, late.items)
            counts.transcript_bodies += len(set(late.chunk_ids) - set(contents.chunk_ids))
        counts.states += contents.states
        counts.checkpoints += contents.checkpoints + late.checkpoints
        counts.transcripts += contents.transcripts + late.transcripts
        counts.transcript_parts += contents.transcript_parts + late.transcript_parts
        return contents.projects | late.projects

    def _delete_ledger(self, agent_id: str, project_normalized: str, counts: DeletedCounts) -> None:
        # Read again: a decision recorded since the first read (its session is tombstoned by now).
        ledger = self._store.ledger_items(agent_id, project_normalized)
        counts.ledger_entries += len(ledger)
        self._store.delete_ledger_items(agent_id, project_normalized, ledger, None)

    def _answer(self, sessions: list[str], project: str | None, counts: DeletedCounts) -> ForgetAnswer:
        until = self._clock() + self._tombstone
        return ForgetAnswer(
            sessions=sessions,
            project_normalized=project,
            deleted=counts,
            tombstone_until=until.strftime("%Y-%m-%dT%H:%M:%SZ"),
        )
