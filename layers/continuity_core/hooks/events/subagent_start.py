"""Sub-agent start: Claude Code's and Codex's SubagentStart carry the parent's session, so the
sub-agent inherits its parent's context; the parent's state counts the sub-agent, and only the
injection inspector keeps what the sub-agent got."""

from __future__ import annotations

from dataclasses import dataclass

from continuity_core.hooks.events.shared import HookOutcome, identity
from continuity_core.hooks.ports import StateStore
from continuity_core.kernel.clock import Clock
from continuity_core.kernel.errors import SessionDeletedError
from continuity_core.kernel.observability import count, logger
from continuity_core.models.hooks import Hook, HookResponse
from continuity_core.models.injections import InjectionRecord
from continuity_core.models.state import Tally
from continuity_core.recovery.fit import Section, assemble, injection_limit
from continuity_core.recovery.ports import Inheritance, InjectionLog
from continuity_core.recovery.start import INHERITED, StartInjection, injection_record


@dataclass(frozen=True)
class SubagentStart:
    states: StateStore
    inheritance: Inheritance
    injections: InjectionLog
    clock: Clock

    def handle(self, agent_id: str, hook: Hook) -> HookOutcome:
        limit, now = injection_limit(hook), self.clock()
        parent = self.inheritance.inherit(agent_id, hook, self.clock(), limit)
        section = Section(text=parent.text, name=INHERITED) if parent is not None else None
        injection = assemble([section] if section else [], limit)
        composed = StartInjection(
            injection.text, None, parent is not None, injection.truncated, injection.sections, parent
        )
        # The parent's state write counts the sub-agent (and marks the parent active); it refuses a
        # session deleted meanwhile, and then nothing is stored under it.
        try:
            self.states.touch(agent_id, identity(hook), now, tally=Tally.SUBAGENTS)
        except SessionDeletedError:
            pass
        else:
            self._record(agent_id, injection_record(hook, "subagent_start", composed, limit, now))
        return HookOutcome(
            HookResponse(event=hook.event, additional_context=injection.text),
            inherited=section is not None,
            truncated=injection.truncated,
        )

    def _record(self, agent_id: str, record: InjectionRecord) -> None:
        """One PutItem per start, for the inspector. Its failure costs the inspector a row, never the
        agent its recovery: the answer is already composed (logged and counted)."""
        try:
            self.injections.record(agent_id, record)
        except Exception:
            logger.warning("could not store the injection", extra={"session": record.session_key})
            count("InjectionRecordFailures")
