"""The hook dispatcher: every event reaches its own handler, and no handler has an optional port."""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime

import pytest

from continuity_core.hooks.events.shared import HookOutcome, nothing_to_say
from continuity_core.hooks.ingest import HookDispatcher, HookHandlers, OnFirstHook, wire_hooks
from continuity_core.kernel.config import load_config
from continuity_core.models.hooks import Hook, HookEvent
from tests.fakes.hooks import NoTranscripts, hook_dispatcher
from tests.fakes.stores import in_memory_stores
from tests.support.clock import Clock

T0 = datetime(2026, 11, 22, 9, 0, tzinfo=UTC)
# Which handler answers which event: stop and sub-agent stop share their rules, every other event
# has its own.
ROUTES = {
    HookEvent.SESSION_START: "session_start",
    HookEvent.USER_PROMPT_SUBMIT: "user_prompt",
    HookEvent.REMEMBER: "remember",
    HookEvent.PRE_COMPACTION: "pre_compaction",
    HookEvent.POST_COMPACTION: "post_compaction",
    HookEvent.STOP: "stop",
    HookEvent.SUBAGENT_STOP: "stop",
    HookEvent.SESSION_END: "session_end",
    HookEvent.SUBAGENT_START: "subagent_start",
}


@dataclass
class Recording:
    name: str
    calls: list[str] = field(default_factory=list)

    def handle(self, agent_id: str, hook: Hook) -> HookOutcome:
        self.calls.append(self.name)
        return nothing_to_say(hook)


def recording_dispatcher(calls: list[str], enabled: bool = True) -> HookDispatcher:
    handlers = HookHandlers(**{f.name: Recording(f.name, calls) for f in fields(HookHandlers)})
    states = in_memory_stores(Clock(T0)).states
    return HookDispatcher(handlers, states, NoTranscripts(), Clock(T0), enabled)


def a_hook(event: HookEvent) -> Hook:
    return Hook(event=event, session_key="s1", harness="claude-code", project="/w", project_normalized="/w")


def test_every_event_is_routed_to_its_own_handler() -> None:
    assert set(ROUTES) == set(HookEvent)  # a new event needs a route here and in HookHandlers
    for event, handler in ROUTES.items():
        calls: list[str] = []
        recording_dispatcher(calls).handle("a", a_hook(event))
        assert calls == [handler], event


def test_a_disabled_service_answers_every_event_with_nothing_and_calls_no_handler() -> None:
    calls: list[str] = []
    dispatcher = recording_dispatcher(calls, enabled=False)
    for event in HookEvent:
        outcome = dispatcher.handle("a", a_hook(event))
        assert outcome.response.additional_context is None
    assert calls == []


def handler_classes() -> list[type]:
    clock = Clock(T0)
    dispatcher = hook_dispatcher(in_memory_stores(clock), load_config({}), clock)
    wired = [getattr(dispatcher.handlers, f.name) for f in fields(HookHandlers)]
    # The handler itself, where it is built on its event's first hook.
    return [type(h.handler() if isinstance(h, OnFirstHook) else h) for h in wired]


@pytest.mark.parametrize("handler", handler_classes(), ids=lambda c: c.__name__)
def test_every_handler_takes_its_ports_as_required_arguments(handler: type) -> None:
    # No default, no ``None``: a handler never runs without a port it uses (a test or deployment
    # that has no use for one passes a no-op implementation, as tests/fakes/hooks.py does).
    for name, parameter in inspect.signature(handler).parameters.items():
        assert parameter.default is inspect.Parameter.empty, f"{handler.__name__}({name}=...)"
        assert "None" not in str(parameter.annotation), f"{handler.__name__}({name}: {parameter.annotation})"


def test_the_wiring_leaves_out_no_port() -> None:
    optional = [p for p in inspect.signature(wire_hooks).parameters.values() if p.default is not p.empty]
    assert optional == []
