"""Hook ingest: the rules for each lifecycle hook."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, replace
from datetime import datetime

from continuity_core.checkpoints.checkpoints import STALE_FLUSH_AFTER, is_checkpoint_due, is_flush_in_flight
from continuity_core.checkpoints.passive_digest import render_pre_compaction_digest
from continuity_core.checkpoints.ports import CheckpointStore, ProjectSnapshot
from continuity_core.checkpoints.rolling import Statement
from continuity_core.checkpoints.writer import CheckpointWriter, FlushResult
from continuity_core.extraction.sticky import Role
from continuity_core.extraction.terms import snippet
from continuity_core.hooks.idempotency import hook_fingerprint, key_reused
from continuity_core.hooks.ports import (
    DuplicateHookError,
    FlushQueue,
    HandoffTakenError,
    PromptRecord,
    StartExpectation,
    StateStore,
)
from continuity_core.kernel.clock import Clock
from continuity_core.kernel.config import ContinuityConfig
from continuity_core.kernel.errors import FlushConflictError, SessionDeletedError, TranscriptGapError
from continuity_core.kernel.observability import count, logger
from continuity_core.models.checkpoint import Checkpoint, CheckpointTrigger
from continuity_core.models.hooks import Hook, HookEvent, HookResponse
from continuity_core.models.injections import InjectionRecord
from continuity_core.models.session_digest import FactKind, FactSource
from continuity_core.models.state import (
    SNIPPET_CHARS,
    SessionIdentity,
    SessionOrigin,
    SessionState,
    Tally,
    origin_values,
)
from continuity_core.recovery.fit import MAX_INJECTION_CHARS, Injection, Section, assemble
from continuity_core.recovery.lineage import session_links
from continuity_core.recovery.ports import Inheritance, InheritedBlock, InjectionLog
from continuity_core.recovery.recovery import (
    CLEAR_SOURCES,
    RECENT,
    Receiver,
    Recovery,
    RecoverySource,
    choose_start,
    find_start_context,
    ledger_line,
    own_from_snapshot,
    read_project,
    recovery_section,
)
from continuity_core.recovery.start import INHERITED, StartInjection, compose_start, injection_record
from continuity_core.transcripts.ports import TranscriptHint, TranscriptLog

REMEMBER_CHARS = 500
# The compaction nudge's fallback when the client reports no harness figure (older clients, harnesses
# that record none): the readable transcript's characters, ~4 a token. It undercounts (tool results
# are cut to 500 characters): on real Claude Code sessions it is 2-25 % of the real context.
CHARS_PER_TOKEN = 4
NUDGE_TEXT = (
    "Continuity: this session's context is about {percent}% full and will be compacted soon. "
    "Before it is, call the `session_digest` tool (Continuity MCP server) with a short summary, "
    "your decisions with their rationale, and your next steps, so they survive the compaction."
)


# Events whose first write is the transcript's (every other one writes the state first, and that
# write refuses a deleted session): a small read first, on these rare events only.
_TRANSCRIPT_FIRST = frozenset({HookEvent.PRE_COMPACTION, HookEvent.POST_COMPACTION, HookEvent.SESSION_END})
# A compaction is counted once (Tally.COMPACTIONS), by the state write its hook makes anyway: at
# pre-compaction, which every harness that compacts posts once per compaction (post-compaction,
# where there is one, follows the same compaction), or at the prompt marked ``compacted``, for a
# harness whose compactions show only there: Gemini CLI fires PreCompress every turn and the client
# posts the manual ones, whose compression the next prompt reports as well.
PROMPT_REPORTS_COMPACTION = frozenset({"gemini"})
# Session starts of a session that ran before (Claude Code's SessionStart sources): when the project
# index lists none of its checkpoints, its state is still expected (any other start: a new session).
EXISTING_SESSION_SOURCES = frozenset({"compact", "resume"})


@dataclass(frozen=True)
class HookOutcome:
    """The answer plus what happened, for metrics and logs."""

    response: HookResponse
    flush_requested: bool = False
    flush_merged: bool = False
    duplicate: bool = False
    recovery: Recovery | None = None
    nudged: bool = False
    inherited: bool = False  # a sub-agent got its parent's context
    checkpoint_written: str | None = None  # trigger of a checkpoint written on the request path
    truncated: bool = False  # the injected context left something out to fit the harness's cap


class HookService:
    def __init__(
        self,
        states: StateStore,
        checkpoints: CheckpointStore,
        flushes: FlushQueue,
        config: ContinuityConfig,
        clock: Clock,
        writer: CheckpointWriter | None = None,
        transcripts: TranscriptLog | None = None,
        inheritance: Inheritance | None = None,
        injections: InjectionLog | None = None,
    ) -> None:
        self._states = states
        self._checkpoints = checkpoints
        self._flushes = flushes
        self._config = config
        self._clock = clock
        self._writer = writer or CheckpointWriter(states, checkpoints, config, clock)
        self._transcripts = transcripts
        self._inheritance = inheritance
        self._injections = injections

    def handle(self, agent_id: str, hook: Hook) -> HookOutcome:
        if not self._config.enabled:
            return HookOutcome(HookResponse(event=hook.event))
        handler = {
            HookEvent.SESSION_START: self._session_start,
            HookEvent.USER_PROMPT_SUBMIT: self._user_prompt,
            HookEvent.REMEMBER: self._remember,
            HookEvent.PRE_COMPACTION: self._pre_compaction,
            HookEvent.SESSION_END: self._session_end,
            HookEvent.SUBAGENT_START: self._subagent_start,
            HookEvent.STOP: self._stop,
            HookEvent.POST_COMPACTION: self._post_compaction,
            HookEvent.SUBAGENT_STOP: self._stop,
        }[hook.event]
        if hook.event in _TRANSCRIPT_FIRST and self._states.deleted(agent_id, hook.session_key):
            # These append the transcript before any state write could refuse a deleted session.
            raise SessionDeletedError(hook.session_key)
        try:
            return handler(agent_id, hook)
        except DuplicateHookError as replay:
            if replay.same_body is False:  # another request under a used key: nothing more is stored
                raise key_reused(hook.idempotency_key or "") from replay
            # A replay (spool, or a resend after a 409): the hook's effect already happened, but the
            # transcript delta it carries may be exactly what the service is missing.
            self._append_transcript(agent_id, hook)
            return HookOutcome(HookResponse(event=hook.event), duplicate=True)

    # -- events ----------------------------------------------------------------------------

    def _session_start(self, agent_id: str, hook: Hook) -> HookOutcome:
        # Reads first, then one write marks the session seen, keeps the links it followed (lineage)
        # and stores the injection for the inspector; a deleted session is refused there (410).
        # The project index's one query answers the session's own latest checkpoint whenever it
        # lists one; when it lists none, the session is taken to have none (a new session, the
        # usual case), and the write holds only if its state agrees: else it is read and composed
        # again. So a start costs the query and one or two writes, however much is stored.
        now = self._clock()
        snapshot = read_project(
            self._checkpoints, agent_id, hook.project_normalized, self._config, now, _origin(hook)
        )
        own = own_from_snapshot(snapshot, hook.session_key)
        expect = StartExpectation.ANY
        if own is None and (snapshot is None or _listed(snapshot, hook.session_key)):
            own = self._checkpoints.recent_for_session(agent_id, hook.session_key, RECENT)
        elif own is None:
            own = []  # assumed: the write checks it against the state
            new = (hook.source or "").lower() not in EXISTING_SESSION_SOURCES
            expect = StartExpectation.NEW if new else StartExpectation.NO_CHECKPOINTS
        while True:
            # Only a new session receives an open hand-off: its write consumes it, or fails whole.
            receiver = _receiver(hook) if expect is StartExpectation.NEW else None
            composed, record = self._compose_start(agent_id, hook, own, snapshot, now, receiver)
            injection = record if self._injections is not None else None
            links = session_links(record)
            try:
                written = self._states.start_session(
                    agent_id, _identity(hook), now, links, injection, expect, handoff=composed.handoff
                )
            except HandoffTakenError:
                # Another session took it a moment ago: compose again without it (a rare extra write).
                taken = composed.handoff
                assert snapshot is not None and taken is not None
                snapshot = replace(snapshot, handoffs=[h for h in snapshot.handoffs if h.id != taken.id])
                continue
            if written is not None:
                break
            # The session ran before (its state exists, or counts checkpoints the listing did not
            # show): read its checkpoints, compose again.
            own = self._checkpoints.recent_for_session(agent_id, hook.session_key, RECENT)
            expect = StartExpectation.ANY
        if injection is not None and not written.injection_stored:
            logger.warning("could not store the injection", extra={"session": record.session_key})
            count("InjectionRecordFailures")
        return HookOutcome(
            HookResponse(event=hook.event, additional_context=composed.text),
            recovery=composed.recovery,
            inherited=composed.inherited,
            truncated=composed.truncated,
        )

    def _compose_start(
        self,
        agent_id: str,
        hook: Hook,
        own: list[Checkpoint],
        snapshot: ProjectSnapshot | None,
        now: datetime,
        receiver: Receiver | None = None,
    ) -> tuple[StartInjection, InjectionRecord]:
        start = choose_start(
            self._checkpoints,
            agent_id,
            hook.session_key,
            own,
            hook.previous_session_key,
            snapshot,
            self._config,
            now,
            start_source=hook.source,
            harness=hook.harness,
            origin=_origin(hook),
            receiver=receiver,
        )
        limit = injection_limit(hook)
        composed = compose_start(
            start, self._config, now, limit, lambda budget: self._inherit(agent_id, hook, budget)
        )
        return composed, injection_record(hook, "session_start", composed, limit, now)

    def _user_prompt(self, agent_id: str, hook: Hook) -> HookOutcome:
        now = self._clock()
        record = PromptRecord(
            snippet=snippet(hook.prompt, SNIPPET_CHARS),
            idempotency_key=hook.idempotency_key,
            body_fingerprint=_fingerprint(hook),
            transcript_chars=hook.transcript_chars,
            context_tokens=hook.context_tokens,
            transcript_end=_delta_end(hook),
            compacted=hook.compacted,
        )
        state = self._states.record_prompt(agent_id, _identity(hook), record, now)
        early = self._flush_if_full(agent_id, state)
        requested, merged = (False, False) if early else self._request_flush_if_due(agent_id, state)
        hint = None
        if record.transcript_end is not None:
            previous = state.transcript_prev_end
            hint = TranscriptHint(-1 if previous is None else previous, state.transcript_head_at)
        self._append_transcript(agent_id, hook, hint)
        if hook.compacted:
            return self._recover_after_compaction(agent_id, hook, requested, merged)
        nudge = self._nudge(agent_id, state, now)
        return HookOutcome(
            HookResponse(event=hook.event, additional_context=nudge),
            flush_requested=requested,
            flush_merged=merged,
            nudged=nudge is not None,
            checkpoint_written=_written(early),
        )

    def _recover_after_compaction(
        self, agent_id: str, hook: Hook, requested: bool, merged: bool
    ) -> HookOutcome:
        """The harness compacted and starts no session for it (Gemini CLI): checkpoint what the
        session holds now (its compaction summary included, from the transcript) and answer this
        prompt with the recovery block a compact session start would have had."""
        trigger, worth = CheckpointTrigger.POST_COMPACTION, _worth_after_compaction
        result = self._writer.flush(agent_id, hook.session_key, trigger, worth_writing=worth)
        recovery, injection = self._own_recovery(agent_id, hook, self._clock())
        return HookOutcome(
            HookResponse(event=hook.event, additional_context=injection.text),
            flush_requested=requested,
            flush_merged=merged,
            recovery=recovery,
            checkpoint_written=_written(result),
            truncated=injection.truncated,
        )

    def _remember(self, agent_id: str, hook: Hook) -> HookOutcome:
        content = snippet(hook.content or hook.prompt, REMEMBER_CHARS)
        if content:
            state = self._states.record_remember(
                agent_id, _identity(hook), content, self._clock(), hook.idempotency_key, _fingerprint(hook)
            )
            early = self._flush_if_full(agent_id, state)
            return HookOutcome(HookResponse(event=hook.event), checkpoint_written=_written(early))
        return HookOutcome(HookResponse(event=hook.event))

    def _pre_compaction(self, agent_id: str, hook: Hook) -> HookOutcome:
        self._append_transcript(agent_id, hook)
        now = self._clock()
        # A session never seen still keeps its context; the same write counts the compaction.
        tally = None if hook.harness in PROMPT_REPORTS_COMPACTION else Tally.COMPACTIONS
        self._states.touch(agent_id, _identity(hook), now, tally=tally)
        has_context = bool((hook.custom_instructions or "").strip() or (hook.session_context or "").strip())

        def worth_writing(state: SessionState) -> bool:
            # One per compaction: a repeat for the same boundary, or a compaction right after another
            # with no new prompt, adds nothing.
            if state.has_pending:
                return True
            already = state.last_checkpoint_trigger == CheckpointTrigger.PRE_COMPACTION.value
            return not already and (has_context or state.total_prompts > 0)

        # Not debounced: the context is about to be cut, write now.
        result = self._writer.flush(
            agent_id,
            hook.session_key,
            CheckpointTrigger.PRE_COMPACTION,
            render=lambda state: render_pre_compaction_digest(
                state, now, hook.trigger, hook.custom_instructions, hook.session_context
            ),
            worth_writing=worth_writing,
            extra=_compaction_context(hook, now),
        )
        recovery, injection = self._compaction_recovery(agent_id, hook, now)
        return HookOutcome(
            HookResponse(event=hook.event, additional_context=injection.text),
            checkpoint_written=_written(result),
            recovery=recovery,
            truncated=injection.truncated,
        )

    def _compaction_recovery(
        self, agent_id: str, hook: Hook, now: datetime
    ) -> tuple[Recovery | None, Injection]:
        """For a harness that puts context into its compaction prompt (its client sends the cap with
        pre-compaction, as OpenCode's plugin does): the recovery block of the checkpoint just written,
        so the summary the compaction writes keeps what the digest holds. Others get nothing."""
        if hook.injection_cap_chars is None:
            return None, Injection(None, False)
        return self._own_recovery(agent_id, hook, now)

    def _own_recovery(self, agent_id: str, hook: Hook, now: datetime) -> tuple[Recovery | None, Injection]:
        """The recovery block of this session's own latest checkpoint (the story that was just
        compacted), with the ledger line, inside the harness's cap."""
        limit = injection_limit(hook)
        start = find_start_context(
            self._checkpoints,
            agent_id,
            hook.session_key,
            None,
            hook.project_normalized,
            self._config,
            now,
            start_source="compact",
            harness=hook.harness,
        )
        recovery = start.recovery
        if recovery is not None and recovery.source is not RecoverySource.SAME_SESSION:
            recovery = None  # another session's story is no recovery of this one's compaction
        sections = [
            recovery_section(recovery, self._config, now, limit),
            ledger_line(start.recent_decisions, now),
        ]
        return recovery, assemble([s for s in sections if s], limit)

    def _post_compaction(self, agent_id: str, hook: Hook) -> HookOutcome:
        """After the harness compacted: its summary goes into the rolling digest at once, in a
        checkpoint the next recovery reads (the same summary read again from the transcript later
        is the same fact, merged)."""
        self._append_transcript(agent_id, hook)
        now = self._clock()
        self._states.touch(agent_id, _identity(hook), now)
        summary = (hook.compact_summary or "").strip()

        def worth_writing(state: SessionState) -> bool:
            if state.has_pending:
                return True
            # A replay of the same hook finds this trigger already last: nothing new to write.
            return bool(summary) and state.last_checkpoint_trigger != CheckpointTrigger.POST_COMPACTION.value

        result = self._writer.flush(
            agent_id,
            hook.session_key,
            CheckpointTrigger.POST_COMPACTION,
            worth_writing=worth_writing,
            extra=_summary_statements(summary, now),
        )
        return HookOutcome(HookResponse(event=hook.event), checkpoint_written=_written(result))

    def _session_end(self, agent_id: str, hook: Hook) -> HookOutcome:
        self._append_transcript(agent_id, hook)
        now = self._clock()
        state = self._states.get(agent_id, hook.session_key)
        if state is None:
            return HookOutcome(HookResponse(event=hook.event))
        if (hook.reason or "").lower() == "clear":
            # The cleared session's whole story, as a ``clear`` checkpoint: the session-start
            # (source=clear) that follows, under a new session id, recovers exactly this one.
            result = self._writer.flush(
                agent_id, hook.session_key, CheckpointTrigger.CLEAR, worth_writing=_worth_clearing
            )
        else:
            result = self._writer.flush(agent_id, hook.session_key, CheckpointTrigger.SESSION_END)
        self._states.end_session(agent_id, hook.session_key, now)
        return HookOutcome(HookResponse(event=hook.event), checkpoint_written=_written(result))

    def _stop(self, agent_id: str, hook: Hook) -> HookOutcome:
        # The turn ended (stop), or a sub-agent finished (subagent-stop, under the sub-agent's own key):
        # its transcript lands and the session counts as active; no prompt, no checkpoint.
        self._states.touch(agent_id, _identity(hook), self._clock())
        self._append_transcript(agent_id, hook)
        return HookOutcome(HookResponse(event=hook.event))

    def _subagent_start(self, agent_id: str, hook: Hook) -> HookOutcome:
        # Claude Code's and Codex's SubagentStart carry the parent's session: inherit; only the inspector
        # keeps what the sub-agent got.
        limit, now = injection_limit(hook), self._clock()
        parent = self._inherit(agent_id, hook, limit)
        section = Section(text=parent.text, name=INHERITED) if parent is not None else None
        injection = assemble([section] if section else [], limit)
        composed = StartInjection(
            injection.text, None, parent is not None, injection.truncated, injection.sections, parent
        )
        # The parent's state write counts the sub-agent (and marks the parent active); it refuses a
        # session deleted meanwhile, and then nothing is stored under it.
        try:
            self._states.touch(agent_id, _identity(hook), now, tally=Tally.SUBAGENTS)
        except SessionDeletedError:
            pass
        else:
            self._record_injection(agent_id, injection_record(hook, "subagent_start", composed, limit, now))
        return HookOutcome(
            HookResponse(event=hook.event, additional_context=injection.text),
            inherited=section is not None,
            truncated=injection.truncated,
        )

    # -- transcripts and inheritance ---------------------------------------------------------

    def _append_transcript(self, agent_id: str, hook: Hook, hint: TranscriptHint | None = None) -> None:
        """After the hook's own effect, so a 409 (gap) never loses the prompt; the client resends.
        ``hint``: what the prompt's state update said of the transcript (one request when it fits)."""
        if self._transcripts is None or hook.transcript is None:
            return
        delta = hook.transcript
        # Raw: the appender redacts it with the stored text before it (a secret split across two
        # deltas is found whole), keeping lengths, so offsets stay the client's characters.
        result = self._transcripts.append(
            agent_id, _identity(hook), delta.offset, delta.text, self._clock(), hint
        )
        if result.hint is not None:  # the state's hint was wrong: the next prompt appends in one request
            self._states.set_transcript_hint(
                agent_id, hook.session_key, result.hint.previous_end, result.hint.head_written_at
            )
        if result.gap:
            raise TranscriptGapError(result.length)

    def _inherit(self, agent_id: str, hook: Hook, budget: int) -> InheritedBlock | None:
        if self._inheritance is None:
            return None
        return self._inheritance.inherit(agent_id, hook, self._clock(), budget)

    def _record_injection(self, agent_id: str, record: InjectionRecord) -> None:
        """One PutItem per start, for the inspector. Its failure costs the inspector a row, never the
        agent its recovery: the answer is already composed (logged and counted)."""
        if self._injections is None:
            return
        try:
            self._injections.record(agent_id, record)
        except Exception:
            logger.warning("could not store the injection", extra={"session": record.session_key})
            count("InjectionRecordFailures")

    # -- compaction nudge ------------------------------------------------------------------

    def _nudge(self, agent_id: str, state: SessionState, now: datetime) -> str | None:
        """Once per crossing of the threshold, unless the agent already wrote a digest since re-arming.

        The context is the harness's own figure (``context_tokens``, the last one the client sent)
        whenever the session reported one; the transcript estimate (``transcript_chars`` / 4) only
        when it never did. Either re-arms when it falls below the threshold (a compaction)."""
        if state.context_tokens is not None:
            used = float(state.context_tokens)
        elif state.transcript_chars is not None:
            used = state.transcript_chars / CHARS_PER_TOKEN
        else:
            return None
        window = self._config.context_window_tokens
        if used < self._config.nudge_point_tokens:
            if state.nudged:  # the context shrank (compaction): re-arm
                self._states.set_nudged(agent_id, state.session_key, False, now)
            return None
        if state.nudged:
            return None
        armed_at = state.nudge_armed_at or state.started_at
        digested = state.last_digest_at is not None and state.last_digest_at >= armed_at
        if not self._states.set_nudged(agent_id, state.session_key, True, now) or digested:
            return None
        return NUDGE_TEXT.format(percent=round(100 * used / window))

    # -- debounce --------------------------------------------------------------------------

    def _flush_if_full(self, agent_id: str, state: SessionState) -> FlushResult | None:
        """A pending list is full (a burst, a replayed spool outran the queued flush): checkpoint it
        here, so the state stays bounded and no prompt is dropped. A flush in flight then finds its
        token gone and writes nothing. Raced by the session's next hooks: the next one tries again."""
        if not state.is_full:
            return None
        try:
            return self._writer.flush(agent_id, state.session_key, CheckpointTrigger.PERIODIC)
        except FlushConflictError:
            return None

    def _request_flush_if_due(self, agent_id: str, state: SessionState) -> tuple[bool, bool]:
        """(requested, merged): at most one flush in flight per session; later triggers merge."""
        now = self._clock()
        if not is_checkpoint_due(state, self._config, now):
            return False, False
        if is_flush_in_flight(state, now):
            return False, True
        token = uuid.uuid4().hex
        claimed = self._states.claim_flush(
            agent_id, state.session_key, token, now, stale_before=now - STALE_FLUSH_AFTER
        )
        if not claimed:
            return False, True
        try:
            self._flushes.request_flush(agent_id, state.session_key, token, self._config.flush_delay_seconds)
        except Exception:
            # Let the next prompt try again instead of waiting for the claim to go stale.
            self._states.release_flush(agent_id, state.session_key, token)
            raise
        return True, False


def _listed(snapshot: ProjectSnapshot | None, session_key: str) -> bool:
    """The listing holds the session's checkpoints but cannot answer for them (an agent digest
    whose passive checkpoint behind it is older than the listing): they are read."""
    return snapshot is not None and any(c.session_key == session_key for c in snapshot.checkpoints)


def _receiver(hook: Hook) -> Receiver | None:
    """Who may receive an open hand-off at this start: a session of its own (not a sub-agent's, nor
    one continuing the session it was cleared, forked or resumed from)."""
    if hook.parent_session_key or hook.subagent_id or hook.previous_session_key:
        return None
    if (hook.source or "").lower() in CLEAR_SOURCES:
        return None
    return Receiver(person=hook.person)


def injection_limit(hook: Hook) -> int:
    """The harness's cap on injected context when the client sent one, else Claude Code's (with room)."""
    return hook.injection_cap_chars or MAX_INJECTION_CHARS


def _worth_clearing(state: SessionState) -> bool:
    """A /clear links its session to the next one: worth a checkpoint unless one just did (a replay)."""
    if state.has_pending:
        return True
    return state.total_prompts > 0 and state.last_checkpoint_trigger != CheckpointTrigger.CLEAR.value


def _worth_after_compaction(state: SessionState) -> bool:
    """The prompt that found the compaction is pending; a replay finds this trigger already last."""
    return state.has_pending or state.last_checkpoint_trigger != CheckpointTrigger.POST_COMPACTION.value


def _summary_statements(summary: str, now: datetime) -> list[Statement]:
    """The harness's compaction summary, read for the rules, decisions and findings it states."""
    if not summary:
        return []
    return [Statement(summary, Role.SUMMARY, FactSource.COMPACTION_SUMMARY, None, now)]


def _compaction_context(hook: Hook, now: datetime) -> list[Statement]:
    """What the harness said of the moment of compaction feeds the digest: the user's instructions
    for it (``/compact keep the failing tests``, kept verbatim) and Signet's session context."""
    found: list[Statement] = []
    instructions = (hook.custom_instructions or "").strip()
    if instructions:
        text = f"Compaction instructions: {instructions}"
        found.append(Statement(text, Role.USER, FactSource.PROMPT, None, now, kind=FactKind.NEXT_STEP))
    context = (hook.session_context or "").strip()
    if context:  # kept as said, and read for the rules and decisions it states
        source = FactSource.COMPACTION_SUMMARY
        found.append(Statement(context, Role.SUMMARY, source, None, now, kind=FactKind.REMEMBERED))
        found.append(Statement(context, Role.SUMMARY, source, None, now))
    return found


def _written(result: FlushResult | None) -> str | None:
    if result is None or result.checkpoint is None:
        return None
    return result.checkpoint.trigger.value


def _delta_end(hook: Hook) -> int | None:
    """Where the transcript delta the hook carries ends (redaction keeps lengths), if it has text."""
    if hook.transcript is None or not hook.transcript.text:
        return None
    return hook.transcript.offset + len(hook.transcript.text)


def _fingerprint(hook: Hook) -> str | None:
    """Only a hook with a key needs one (hashing the prompt costs microseconds, not a write)."""
    return hook_fingerprint(hook) if hook.idempotency_key else None


def _origin(hook: Hook) -> SessionOrigin:
    return SessionOrigin(**origin_values(hook))


def _identity(hook: Hook) -> SessionIdentity:
    return SessionIdentity(
        session_key=hook.session_key,
        harness=hook.harness,
        project=hook.project,
        project_normalized=hook.project_normalized,
        **origin_values(hook),
    )
