"""Hook ingest: routes each hook to its event's handler (``hooks/events/``), around what every
event shares.

One handler per event, each constructed with exactly the ports it uses, all required: a handler
reads as the rules of its event, and a test builds only what that event touches. What they share
is plain functions (``hooks/events/shared.py``) or lives here, once, around every handler:

- the ``enabled`` switch (a disabled service answers every hook with nothing);
- the deleted-session check of the events whose first write is the transcript's (every other
  event writes the state first, and that write refuses a deleted session);
- a duplicate (``DuplicateHookError`` from the state write of a hook whose key was used): a replay
  with the same body answers as done and still appends the transcript delta it carries; another
  body under a used key is refused.

``wire_hooks`` is the one place the handlers are wired to their ports (the function's services and
the tests' fakes both use it). There is no optional port: where a deployment or a test has no
use for one (no transcripts kept, no parent to inherit), it passes a no-op implementation.

Most hooks are prompts and stops: their handlers are built with the dispatcher. Every other event's
handler is built on that event's first hook (``OnFirstHook``), so a cold start loads the rules of a
session start (recovery), a compaction or a session end (the rolling digest) only when one comes
(docs/BENCHMARKS.md, ``cold_start_ratio``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from continuity_core.hooks.events.shared import HookHandler, HookOutcome, append_transcript, nothing_to_say
from continuity_core.hooks.events.stop import Stop
from continuity_core.hooks.events.user_prompt import UserPrompt
from continuity_core.hooks.idempotency import key_reused
from continuity_core.hooks.ports import DuplicateHookError, FlushQueue, StateStore
from continuity_core.kernel.clock import Clock
from continuity_core.kernel.config import ContinuityConfig
from continuity_core.kernel.errors import SessionDeletedError
from continuity_core.kernel.once import Once
from continuity_core.models.hooks import Hook, HookEvent, HookResponse
from continuity_core.transcripts.ports import TranscriptLog

if TYPE_CHECKING:  # annotations only: what only other events use stays unloaded until they come
    from continuity_core.checkpoints.ports import CheckpointStore, Writer
    from continuity_core.recovery.ports import Inheritance, InjectionLog

# Events whose first write is the transcript's (every other one writes the state first, and that
# write refuses a deleted session): a small read first, on these rare events only.
TRANSCRIPT_FIRST = frozenset({HookEvent.PRE_COMPACTION, HookEvent.POST_COMPACTION, HookEvent.SESSION_END})


class OnFirstHook:
    """An event's handler, built (its module imported) on the event's first hook, then kept."""

    def __init__(self, build: Callable[[], HookHandler]) -> None:
        self.handler = Once(build)

    def handle(self, agent_id: str, hook: Hook) -> HookOutcome:
        return self.handler().handle(agent_id, hook)


@dataclass(frozen=True)
class HookHandlers:
    """A handler for every event (a field each, so a missing one is a type error, not a KeyError)."""

    session_start: HookHandler
    user_prompt: HookHandler
    remember: HookHandler
    pre_compaction: HookHandler
    post_compaction: HookHandler
    stop: HookHandler  # stop and sub-agent stop
    session_end: HookHandler
    subagent_start: HookHandler

    def for_event(self, event: HookEvent) -> HookHandler:
        match event:
            case HookEvent.SESSION_START:
                return self.session_start
            case HookEvent.USER_PROMPT_SUBMIT:
                return self.user_prompt
            case HookEvent.REMEMBER:
                return self.remember
            case HookEvent.PRE_COMPACTION:
                return self.pre_compaction
            case HookEvent.POST_COMPACTION:
                return self.post_compaction
            case HookEvent.STOP | HookEvent.SUBAGENT_STOP:
                return self.stop
            case HookEvent.SESSION_END:
                return self.session_end
            case HookEvent.SUBAGENT_START:
                return self.subagent_start


@dataclass(frozen=True)
class HookDispatcher:
    """The hooks function's one entry: ``handle`` a hook of any event."""

    handlers: HookHandlers
    states: StateStore  # the deleted-session check
    transcripts: TranscriptLog  # a replay's transcript delta
    clock: Clock
    enabled: bool

    def handle(self, agent_id: str, hook: Hook) -> HookOutcome:
        if not self.enabled:
            return nothing_to_say(hook)
        handler = self.handlers.for_event(hook.event)
        if hook.event in TRANSCRIPT_FIRST and self.states.deleted(agent_id, hook.session_key):
            # These append the transcript before any state write could refuse a deleted session.
            raise SessionDeletedError(hook.session_key)
        try:
            return handler.handle(agent_id, hook)
        except DuplicateHookError as replay:
            if replay.same_body is False:  # another request under a used key: nothing more is stored
                raise key_reused(hook.idempotency_key or "") from replay
            # A replay (spool, or a resend after a 409): the hook's effect already happened, but the
            # transcript delta it carries may be exactly what the service is missing.
            append_transcript(self.transcripts, self.states, self.clock, agent_id, hook)
            return HookOutcome(HookResponse(event=hook.event), duplicate=True)


def wire_hooks(
    states: StateStore,
    checkpoints: CheckpointStore,
    flushes: FlushQueue,
    writer: Writer,
    transcripts: TranscriptLog,
    inheritance: Inheritance,
    injections: InjectionLog,
    config: ContinuityConfig,
    clock: Clock,
) -> HookDispatcher:
    """Every event's handler on these ports, behind one dispatcher."""

    def session_start() -> HookHandler:
        from continuity_core.hooks.events.session_start import SessionStart

        return SessionStart(states, checkpoints, inheritance, config, clock)

    def remember() -> HookHandler:
        from continuity_core.hooks.events.remember import Remember

        return Remember(states, writer, clock)

    def pre_compaction() -> HookHandler:
        from continuity_core.hooks.events.pre_compaction import PreCompaction

        return PreCompaction(states, checkpoints, writer, transcripts, config, clock)

    def post_compaction() -> HookHandler:
        from continuity_core.hooks.events.post_compaction import PostCompaction

        return PostCompaction(states, writer, transcripts, clock)

    def session_end() -> HookHandler:
        from continuity_core.hooks.events.session_end import SessionEnd

        return SessionEnd(states, writer, transcripts, clock)

    def subagent_start() -> HookHandler:
        from continuity_core.hooks.events.subagent_start import SubagentStart

        return SubagentStart(states, inheritance, injections, clock)

    handlers = HookHandlers(
        session_start=OnFirstHook(session_start),
        user_prompt=UserPrompt(states, checkpoints, flushes, writer, transcripts, config, clock),
        remember=OnFirstHook(remember),
        pre_compaction=OnFirstHook(pre_compaction),
        post_compaction=OnFirstHook(post_compaction),
        stop=Stop(states, transcripts, clock),
        session_end=OnFirstHook(session_end),
        subagent_start=OnFirstHook(subagent_start),
    )
    return HookDispatcher(handlers, states, transcripts, clock, config.enabled)
