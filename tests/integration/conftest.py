from collections.abc import Iterator

import pytest

from tests.support.api import InProcessService


@pytest.fixture
def service(aws: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Iterator[InProcessService]:
    """The handlers on moto; flush messages are delivered without the debounce delay."""
    monkeypatch.setenv("CONTINUITY_FLUSH_DELAY_SECONDS", "0")
    from tests.support.cold_starts import reset_functions

    reset_functions()
    yield InProcessService()
    reset_functions()


def prompt(session: str, n: int, cwd: str = "/work/app") -> dict[str, str]:
    return {
        "session_id": session,
        "cwd": cwd,
        "hook_event_name": "UserPromptSubmit",
        "prompt": f"step {n}: refactor the checkpoint writer",
    }
