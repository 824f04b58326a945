"""The hook's own entry point, run by path by the installed hook commands:
``<python> -I -S <this file> hook <event> --harness H``.

``-S`` skips ``site`` (its ``.pth`` files: an editable install's finder alone imports pathlib, re
and urllib.parse) and ``-I`` the user's ``PYTHON*`` variables and user site: a third of the
interpreter's start-up, paid on every prompt. Neither puts this package on ``sys.path``, so this
file does: the folder that holds ``continuity_client`` (site-packages, or the source tree of an
editable install). What the hook may import beyond the standard library (``zstandard`` for Codex's
compressed rollouts) brings ``site`` back first (``transcript_cursor``).

A hook ends with ``os._exit`` once its output is flushed: every file it wrote is closed by then
(the spool is fsync'd), and the interpreter's tear-down would only keep the harness waiting.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from continuity_client.cli import main  # after the path above

code = main()
for stream in (sys.stdout, sys.stderr):
    try:  # noqa: SIM105 - contextlib would be one more import on the hook path
        stream.flush()
    except (OSError, ValueError, AttributeError):  # a closed pipe: nothing more to say there
        pass
os._exit(code)
