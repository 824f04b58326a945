"""The agent's digest: a checkpoint in its own voice, and decisions appended to the project's ledger."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

from continuity_core.config import ContinuityConfig
from continuity_core.logic.checkpoints import cap_evictions
from continuity_core.logic.digest import render_agent_digest
from continuity_core.logic.normalize import DEFAULT_HARNESS
from continuity_core.logic.paths import normalize_project
from continuity_core.logic.rolling import Statement, merge_digests, roll
from continuity_core.logic.sticky import FileAction, Role
from continuity_core.logic.writer import DIGEST_SOURCES
from continuity_core.models.checkpoint import Checkpoint, CheckpointTrigger
from continuity_core.models.digest import DigestRequest, LedgerEntry
from continuity_core.models.session_digest import FactKind, FactSource
from continuity_core.models.state import SessionIdentity
from continuity_core.ports import CheckpointStore, Clock, LedgerStore, StateStore
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
        state = self._states.record_digest(agent_id, identity, now)
        recent = self._checkpoints.recent_for_session(agent_id, session_key, DIGEST_SOURCES)
        previous = merge_digests(c.session_digest for c in recent)
        prompt = state.total_prompts or None
        said = Statement(request.summary, Role.AGENT, FactSource.AGENT_DIGEST, prompt, now)
        roots = [root for root in (identity.project, identity.project_normalized) if root]
        rolled = roll(previous, agent_statements(request, prompt, now), now=now, summary=said, roots=roots)
        checkpoint = Checkpoint(
            id=str(uuid.uuid4()),
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
        )
        evict = cap_evictions(
            self._checkpoints, agent_id, checkpoint, self._config.max_checkpoints_per_session
        )
        self._checkpoints.put(agent_id, checkpoint, now, evict)
        self._ledger.append(
            agent_id,
            [
                LedgerEntry(
                    id=str(uuid.uuid4()),
                    project_normalized=identity.project_normalized,
                    session_key=session_key,
                    decision=item.decision.strip(),
                    rationale=item.rationale.strip() if item.rationale else None,
                    evidence=item.evidence,
                    # A microsecond apart, so the ledger keeps the order the agent gave them in.
                    created_at=now + timedelta(microseconds=index),
                )
                for index, item in enumerate(request.decisions)
            ],
        )
        return checkpoint


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
