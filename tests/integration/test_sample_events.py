"""Every sample payload in events/ is accepted by the hook handler."""

import json
from pathlib import Path

import pytest

from tests.support.api import InProcessService

EVENTS = sorted((Path(__file__).parents[2] / "events").glob("*.json"))


def route_event(path: Path) -> str:
    return path.stem.removesuffix("-compact")


def test_there_is_a_sample_for_every_hook() -> None:
    from continuity_core.models.hooks import HookEvent

    assert {route_event(p) for p in EVENTS} == {e.value for e in HookEvent}


@pytest.mark.parametrize("sample", EVENTS, ids=lambda p: p.name)
def test_each_sample_is_accepted(service: InProcessService, sample: Path) -> None:
    status, body = service.hook(route_event(sample), json.loads(sample.read_text()))

    assert status == 200
    assert body == {} or body["hookSpecificOutput"]["additionalContext"]
