"""Detach the delivery of a hook the harness does not wait for.

The hook forks (``detach``): the child is the delivery, already started and with everything it
needs imported (a new interpreter would cost the machine another Python start-up, on the cores the
harness is using for the prompt), in a session of its own (``setsid``), so the harness neither
waits for it nor kills it with the hook's process group, and with /dev/null as its stdin, stdout
and stderr, so no pipe of the harness stays open: the harness sees the hook end when the hook
itself exits. Only the forking thread lives on in the child; the hook's watchdog thread does not
(the delivery starts its own). The parent has opened no network connection and loaded no system
framework by then, which is what makes a fork without exec unsafe on macOS.

On the hook path: imports nothing.
"""

from __future__ import annotations

import os


def detach() -> int:
    """Fork the delivery: 0 in the delivery, the delivery's pid in the hook. Raises OSError when it
    cannot fork (the hook then delivers itself)."""
    pid = os.fork()
    if pid:
        return pid
    try:
        os.setsid()
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        if null > 2:
            os.close(null)
    except OSError:
        os._exit(0)  # the hook is in the spool: the session's next hook delivers it
    return 0
