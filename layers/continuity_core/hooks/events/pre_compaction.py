"""Pre-compaction: the context is about to be cut, so a checkpoint is written now (not debounced),
with what the harness said of the moment (the user's ``/compact`` instructions, Signet's session
context); a harness that puts context into its compaction prompt gets the recovery block back."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from continuity_core.checkpoints.passive_digest import render_pre_compaction_digest
from continuity_core.checkpoints.ports import CheckpointStore, Writer
from continuity_core.checkpoints.rolling import Statement
from continuity_core.extraction.sticky import Role
from continuity_core.hooks.events.shared import (
    HookOutcome,
    append_transcript,
    identity,
    own_recovery,
    written,
)
from continuity_core.hooks.ports import StateStore
from continuity_core.kernel.clock import Clock
from continuity_core.kernel.config import ContinuityConfig
from continuity_core.models.checkpoint_trigger import CheckpointTrigger
from continuity_core.models.hooks import Hook, HookResponse
from continuity_core.models.session_digest import FactKind, FactSource
from continuity_core.models.state import SessionState, Tally
from continuity_core.recovery.fit import Injection
from continuity_core.recovery.recovery import Recovery
from continuity_core.transcripts.ports import TranscriptLog

# A compaction is counted once (Tally.COMPACTIONS), by the state write its hook makes anyway: at
# pre-compaction, which every harness that compacts posts once per compaction (post-compaction,
# where there is one, follows the same compaction), or at the prompt marked ``compacted``, for a
# harness whose compactions show only there: Gemini CLI fires PreCompress every turn and the client
# posts the manual ones, whose compression the next prompt reports as well.
PROMPT_REPORTS_COMPACTION = frozenset({"gemini"})


@dataclass(frozen=True)
class PreCompaction:
    states: StateStore
    checkpoints: CheckpointStore
    writer: Writer
    transcripts: TranscriptLog
    config: ContinuityConfig
    clock: Clock

    def handle(self, agent_id: str, hook: Hook) -> HookOutcome:
        append_transcript(self.transcripts, self.states, self.clock, agent_id, hook)
        now = self.clock()
        # A session never seen still keeps its context; the same write counts the compaction.
        tally = None if hook.harness in PROMPT_REPORTS_COMPACTION else Tally.COMPACTIONS
        self.states.touch(agent_id, identity(hook), now, tally=tally)
        has_context = bool((hook.custom_instructions or "").strip() or (hook.session_context or "").strip())

        def worth_writing(state: SessionState) -> bool:
            # One per compaction: a repeat for the same boundary, or a compaction right after another
            # with no new prompt, adds nothing.
            if state.has_pending:
                return True
            already = state.last_checkpoint_trigger == CheckpointTrigger.PRE_COMPACTION.value
            return not already and (has_context or state.total_prompts > 0)

        # Not debounced: the context is about to be cut, write now.
        result = self.writer.flush(
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
            checkpoint_written=written(result),
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
        return own_recovery(self.checkpoints, self.config, agent_id, hook, now)


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
