"""Run a function in-process as Lambda runs it: under its role's grant and with its own environment.

On Lambda each function has its own process, environment and module state. Tests call every
handler in one process, so ``as_function`` gives each invocation what it would have there:

* its role's grant: the access guard checks every AWS call (``infra/local/access_guard.py``);
* only its own environment variables: those CDK gives another function and not this one are
  hidden for the invocation (the queue URL from ``read_api``, the bucket from ``tokens``, ...),
  and Lambda's own ``AWS_LAMBDA_FUNCTION_NAME`` / ``AWS_LAMBDA_FUNCTION_MEMORY_SIZE`` are set.

Its own services need nothing here: each handler module holds what its composition root built
(``continuity_core/roots``), so no function uses what another built from its own variables, and
each stays warm across its invocations as on Lambda (``tests/support/cold_starts.py`` resets them).

Several threads may run the same function at once (concurrency tests), and a function may be
invoked from inside another on the same thread (race tests stage a hook during the writer's run);
two different functions on two threads at once cannot each see only their own environment in one
process, and that is refused.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from infra import wiring
from infra.local import access_guard
from infra.local.context import function_name

_lock = threading.Lock()


@dataclass
class _Frame:
    """A function's invocations in progress: the threads running it, what its environment hid."""

    key: str
    saved: dict[str, str]  # the environment before it started
    threads: dict[int, int] = field(default_factory=dict)  # thread id -> invocations in it


_frames: list[_Frame] = []  # nested: a function invoked (in-process) from inside another one


@contextmanager
def as_function(key: str) -> Iterator[None]:
    _enter(key)
    try:
        with access_guard.running_as(key):
            yield
    finally:
        _leave(key)


def _enter(key: str) -> None:
    thread = threading.get_ident()
    with _lock:
        top = _frames[-1] if _frames else None
        if top is not None and top.key == key:
            top.threads[thread] = top.threads.get(thread, 0) + 1
            return
        if top is not None and thread not in top.threads:
            raise RuntimeError(
                f"{key} started while {top.key} runs on another thread: one process cannot give two "
                "functions each their own environment at once (run them one after the other)"
            )
        saved = _apply_environment(key)
        _frames.append(_Frame(key, saved, {thread: 1}))


def _leave(key: str) -> None:
    thread = threading.get_ident()
    with _lock:
        top = _frames[-1]
        assert top.key == key, f"{key} ended while {top.key} runs"
        top.threads[thread] -= 1
        if not top.threads[thread]:
            del top.threads[thread]
        if top.threads:
            return
        _frames.pop()
        _replace_environment(top.saved)


def _apply_environment(key: str) -> dict[str, str]:
    """The test's environment less what CDK gives other functions only, plus Lambda's own
    variables; returns the environment it replaces (a nested function's starts from the test's
    too, not from the function it runs inside)."""
    saved = dict(os.environ)
    guard = access_guard.installed()
    if guard is None or not guard.knows(key):
        return saved
    spec = wiring.function(key)
    base = _frames[0].saved if _frames else saved
    hidden = _declared_elsewhere(guard, key)
    wanted = {name: value for name, value in base.items() if name not in hidden}
    wanted["AWS_LAMBDA_FUNCTION_NAME"] = function_name(spec)
    wanted["AWS_LAMBDA_FUNCTION_MEMORY_SIZE"] = str(spec.memory_mb)
    _replace_environment(wanted)
    return saved


def _replace_environment(wanted: dict[str, str]) -> None:
    for name in [name for name in os.environ if name not in wanted]:
        del os.environ[name]
    os.environ.update({name: value for name, value in wanted.items() if os.environ.get(name) != value})


def _declared_elsewhere(guard: access_guard.AccessGuard, key: str) -> set[str]:
    """Variables CDK gives some other function but not this one."""
    everyone = {name for other in guard.access.functions.values() for name in other.environment}
    return everyone - set(guard.environment(key))
