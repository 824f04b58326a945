"""Continuity's agent-side client: the ``continuity`` command.

Imports nothing at package import: the hook path (``continuity hook ...``) loads only the
modules it needs, so the agent's loop is not kept waiting.
"""

__version__ = "0.1.0"
