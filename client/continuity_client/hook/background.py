"""Start the detached process that delivers a hook the harness does not wait for.

``continuity hook --deliver SESSION KEY`` (``run``) sends the session's spooled records up to and
including KEY. It is started with ``posix_spawn`` (no fork of this process, no ``subprocess``
import: a millisecond) in a session of its own (``setsid``), so the harness neither waits for it
nor kills it with the hook's process group, and with /dev/null as its stdin, stdout and stderr, so
no pipe of the harness stays open: the harness sees the hook end when the hook itself exits. It
runs the interpreter that runs this hook, the same way the installed hooks do (``-I -S`` and
``hook_main.py``).

On the hook path: imports nothing.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # typing costs milliseconds at import; mypy reads this as True
if TYPE_CHECKING:
    from collections.abc import Mapping

HOOK_MAIN = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "hook_main.py")


def start(session: str, key: str, env: Mapping[str, str]) -> int:
    """Spawn the delivery of ``key``; its pid. Raises OSError (or NotImplementedError) when it
    cannot start: the caller then delivers in this process."""
    executable = sys.executable
    if not executable:
        raise OSError("no interpreter path to start the delivery with")
    argv = [executable, "-I", "-S", HOOK_MAIN, "hook", "--deliver", session, key]
    quiet = [
        (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDWR, 0),
        (os.POSIX_SPAWN_DUP2, 0, 1),
        (os.POSIX_SPAWN_DUP2, 0, 2),
    ]
    try:
        return os.posix_spawn(executable, argv, dict(env), file_actions=quiet, setsid=True)
    except NotImplementedError:  # no POSIX_SPAWN_SETSID here: a process group of its own
        return os.posix_spawn(executable, argv, dict(env), file_actions=quiet, setpgroup=0)
