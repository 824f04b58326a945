"""What a unit test may not do: open a socket, start a process, sleep, or call AWS (moto included).

``tests/unit/conftest.py`` installs it around every unit test, so a test that needs any of these
fails where it tries, naming the layer it belongs in, instead of slowing ``make unit`` down.
A conftest rather than pytest-socket: that plugin blocks sockets only, and a dependency more in the
shared environment buys nothing this module does not.
"""

from __future__ import annotations

import multiprocessing.process
import os
import socket
import subprocess
import threading
import time
from typing import Any

import pytest
from botocore.endpoint import Endpoint

WHERE = (
    "tests/integration (moto, in-process servers, workers), tests/e2e (the local stack) "
    "or tests/harness (real CLIs)"
)


class UnitTestEscaped(AssertionError):
    """A unit test reached outside the process or the clock."""


def _refusing(original: Any, what: str, spared: frozenset[int]) -> Any:
    """``original`` for the threads in ``spared``; for the test's own threads, a failure."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        if threading.get_ident() in spared:
            return original(*args, **kwargs)
        raise UnitTestEscaped(f"a unit test may not {what}: move the test to {WHERE}")

    return refuse


def install(monkeypatch: pytest.MonkeyPatch) -> None:
    """Block sockets, processes, sleeps and AWS calls until ``monkeypatch`` is undone.

    Threads already running are spared: in one ``make test`` run they are another layer's (a
    server's loop, a reader), and this test did not start them.
    """
    main = threading.main_thread().ident
    spared = frozenset(t.ident for t in threading.enumerate() if t.ident is not None and t.ident != main)

    def block(owner: Any, name: str, what: str) -> None:
        monkeypatch.setattr(owner, name, _refusing(getattr(owner, name), what, spared))

    for name in ("connect", "connect_ex", "bind", "listen"):
        block(socket.socket, name, "open a network connection")
    for name in ("create_connection", "create_server", "getaddrinfo"):
        block(socket, name, "open a network connection")
    for owner, name in [
        (subprocess, "Popen"),
        (os, "fork"),
        (os, "posix_spawn"),
        (os, "posix_spawnp"),
        (multiprocessing.process.BaseProcess, "start"),
    ]:
        block(owner, name, "start a process")
    # moto intercepts below this call, so refusing it refuses moto and real AWS alike.
    block(Endpoint, "make_request", "call AWS (moto or real)")

    sleep = time.sleep
    refuse_sleep = _refusing(sleep, "sleep (give the code a clock, or a sleep to inject)", spared)

    def sleep_only_to_yield(seconds: float) -> None:
        (sleep if seconds <= 0 else refuse_sleep)(seconds)  # sleep(0) only yields the thread

    monkeypatch.setattr(time, "sleep", sleep_only_to_yield)
