"""The agent's digest: a checkpoint in its own voice, and decisions appended to the project's ledger."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

from continuity_core.checkpoints.checkpoints import cap_evictions
from continuity_core.checkpoints.passive_digest import render_agent_digest
from continuity_core.checkpoints.ports import CheckpointStore, LedgerStore
from continuity_core.checkpoints.rolling import Statement, merge_digests, roll
from continuity_core.checkpoints.writer import DIGEST_SOURCES
from continuity_core.extraction.paths import normalize_project
from continuity_core.extraction.sticky import FileAction, Role
from continuity_core.hooks.normalize import DEFAULT_HARNESS
from continuity_core.hooks.ports import StateStore
from continuity_core.kernel.clock import Clock
from continuity_core.kernel.config import ContinuityConfig
from continuity_core.kernel.errors import IdempotencyKeyConflictError
from continuity_core.models.checkpoint import Checkpoint
from continuity_core.models.checkpoint_trigger import CheckpointTrigger
from continuity_core.models.digest import DigestRequest, LedgerEntry
from continuity_core.models.session_digest import FactKind, FactSource
from continuity_core.models.state import SessionIdentity, origin_values
from continuity_core.redaction import redact_value


class UnknownProjectError(ValueError):
    """A digest for a session the service has not seen, without a project to file it under."""


class DigestService:
    def __init__(
        self,
        states: StateStore,
        checkpoints: CheckpointStore,
        ledger: LedgerStore,
        config: ContinuityConfig,
        clock: Clock,
    ) -> None:
        self._states = states
        self._checkpoints = checkpoints
        self._ledger = ledger
        self._config = config
        self._clock = clock

    def write(self, agent_id: str, session_key: str, request: DigestRequest) -> Checkpoint:
        # The agent writes what it saw: secrets go before anything is stored.
        request = DigestRequest.model_validate(redact_value(request.model_dump()))
        now = self._clock()
        known = self._states.get(agent_id, session_key)
        identity = SessionIdentity(
            session_key=session_key,
            harness=(known.harness if known else None) or request.harness or DEFAULT_HARNESS,
            project=(known.project if known else None) or request.project,
            project_normalized=(known.project_normalized if known else None)
            or normalize_project(request.project_normalized)
            or normalize_project(request.project),
        )
        if not identity.project_normalized:
            raise UnknownProjectError(
                f"session {session_key!r} is unknown to the service: give 'project' in the digest"
            )
        checkpoint_id = _checkpoint_id(agent_id, session_key, request.idempotency_key)
        recent = self._checkpoints.recent_for_session(agent_id, session_key, DIGEST_SOURCES)
        stored = next((c for c in recent if c.id == checkpoint_id), None)
        if stored is not None:  # sent again: what the first one stored, its decisions made whole
            if stored.digest != render_agent_digest(request, identity.project or identity.project_normalized):
                raise IdempotencyKeyConflictError(request.idempotency_key or "")
            self._ledger_once(agent_id, _entries(request, stored, identity.project_normalized))
            return stored
        state = self._states.record_digest(agent_id, identity, now)
        previous = merge_digests(c.session_digest for c in recent)
        prompt = state.total_prompts or None
        said = Statement(request.summary, Role.AGENT, FactSource.AGENT_DIGEST, prompt, now)
        roots = [root for root in (identity.project, identity.project_normalized) if root]
        rolled = roll(previous, agent_statements(request, prompt, now), now=now, summary=said, roots=roots)
        checkpoint = Checkpoint(
            id=checkpoint_id,
            session_key=session_key,
            harness=identity.harness,
            project=identity.project,
            project_normalized=identity.project_normalized,
            trigger=CheckpointTrigger.AGENT,
            digest=render_agent_digest(request, identity.project or identity.project_normalized),
            prompt_count=0,
            sequence=state.checkpoints_written,
            summary=request.summary.strip()[:1000],
            next_steps=[step.strip() for step in request.next_steps],
            created_at=now,
            session_digest=rolled,
            **origin_values(state),
        )
        evict = cap_evictions(
            self._checkpoints, agent_id, checkpoint, self._config.max_checkpoints_per_session
        )
        self._checkpoints.put(agent_id, checkpoint, now, evict)
        self._ledger.append(agent_id, _entries(request, checkpoint, identity.project_normalized))
        return checkpoint

    def _ledger_once(self, agent_id: str, entries: list[LedgerEntry]) -> None:
        """Append what a first attempt left out (its ledger write failed after its checkpoint)."""
        if not entries:
            return
        seen = {
            e.id for e in self._ledger.page(agent_id, entries[0].project_normalized, LEDGER_LOOKBACK).entries
        }
        missing = [e for e in entries if e.id not in seen]
        if missing:
            self._ledger.append(agent_id, missing)


# How far back a digest sent again looks for its decisions in the project's ledger (newest first).
LEDGER_LOOKBACK = 200


def _checkpoint_id(agent_id: str, session_key: str, idempotency_key: str | None) -> str:
    """A digest's checkpoint id: the same for the same key, so a digest sent again finds its own."""
    if not idempotency_key:
        return str(uuid.uuid4())
    return str(
        uuid.uuid5(uuid.NAMESPACE_URL, f"continuity:digest:{agent_id}:{session_key}:{idempotency_key}")
    )


def _entries(request: DigestRequest, checkpoint: Checkpoint, project_normalized: str) -> list[LedgerEntry]:
    """The digest's decisions as ledger entries, with ids and times taken from its checkpoint: a
    digest sent again makes the same entries, not new ones."""
    return [
        LedgerEntry(
            id=str(uuid.uuid5(uuid.UUID(checkpoint.id), str(index))),
            project_normalized=project_normalized,
            session_key=checkpoint.session_key,
            decision=item.decision.strip(),
            rationale=item.rationale.strip() if item.rationale else None,
            evidence=item.evidence,
            # A microsecond apart, so the ledger keeps the order the agent gave them in.
            created_at=checkpoint.created_at + timedelta(microseconds=index),
        )
        for index, item in enumerate(request.decisions)
    ]


def agent_statements(request: DigestRequest, prompt: int | None, now: datetime) -> list[Statement]:
    """The agent's digest as rolling-digest statements: its decisions, next steps, blockers and
    questions as they are; its summary read like the agent's prose; its evidence as files in play."""
    source = FactSource.AGENT_DIGEST

    def said(text: str, kind: FactKind | None = None, detail: str | None = None) -> Statement:
        return Statement(text, Role.AGENT, source, prompt, now, kind=kind, detail=detail)

    found = [said(request.summary)]
    for item in request.decisions:
        found.append(said(item.decision, FactKind.DECISION))
        found += [said(e.path, FactKind.FILE, FileAction.MENTIONED.value) for e in item.evidence]
    found += [said(step, FactKind.NEXT_STEP) for step in request.next_steps]
    found += [said(text, FactKind.QUESTION) for text in (*request.blockers, *request.questions)]
    return found
