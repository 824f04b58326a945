"""What a unit test may not do: open a socket, start a process, sleep, or call AWS (moto included).

``tests/unit/conftest.py`` installs it around every unit test, so a test that needs any of these
fails where it tries, naming the layer it belongs in, instead of slowing ``make unit`` down.
A conftest rather than pytest-socket: that plugin blocks sockets only, and a dependency more in the
shared environment buys nothing the forty lines here do not.
"""

from __future__ import annotations

import multiprocessing.process
import os
import socket
import subprocess
import time
from typing import Any, NoReturn

import pytest
from botocore.endpoint import Endpoint

WHERE = (
    "tests/integration (moto, in-process servers, workers), tests/e2e (the local stack) "
    "or tests/harness (real CLIs)"
)


class UnitTestEscaped(AssertionError):
    """A unit test reached outside the process or the clock."""


def _refuse(what: str) -> Any:
    def refuse(*_args: Any, **_kwargs: Any) -> NoReturn:
        raise UnitTestEscaped(f"a unit test may not {what}: move the test to {WHERE}")

    return refuse


def _refuse_sleep(seconds: float) -> None:
    if seconds > 0:  # sleep(0) only yields the thread
        _refuse(f"sleep ({seconds} s; give the code a clock or a sleep to inject)")()


def install(monkeypatch: pytest.MonkeyPatch) -> None:
    """Block sockets, processes, sleeps and AWS calls until ``monkeypatch`` is undone."""
    network = _refuse("open a network connection")
    for name in ("connect", "connect_ex", "bind", "listen"):
        monkeypatch.setattr(socket.socket, name, network)
    monkeypatch.setattr(socket, "create_connection", network)
    monkeypatch.setattr(socket, "create_server", network)
    monkeypatch.setattr(socket, "getaddrinfo", network)
    process = _refuse("start a process")
    monkeypatch.setattr(subprocess, "Popen", process)
    monkeypatch.setattr(os, "fork", process)
    monkeypatch.setattr(os, "posix_spawn", process)
    monkeypatch.setattr(os, "posix_spawnp", process)
    monkeypatch.setattr(multiprocessing.process.BaseProcess, "start", process)
    monkeypatch.setattr(time, "sleep", _refuse_sleep)
    # moto intercepts below this call, so refusing it refuses moto and real AWS alike.
    monkeypatch.setattr(Endpoint, "make_request", _refuse("call AWS (moto or real)"))
