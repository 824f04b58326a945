"""Continuity's agent-side client: the ``continuity`` command.

Grouped by the path a command takes, each a subpackage:

- ``hook``: what ``continuity hook <event>`` runs inside the agent's loop (the run, the harness
  adapters, the transcript reader and cursor, context usage, the spool, the transport) and the
  local state it keeps; ``continuity flush`` replays that spool by hand.
- ``setup``: the user's settings (``config``), ``login``, ``install`` of hooks and of the MCP
  server into a harness's settings, ``doctor``.
- ``agent``: the agent's own commands over the agent API: ``status``, ``checkpoint``,
  ``recover`` for people, ``continuity mcp`` for the agent.
- ``admin``: ``token`` administration and ``local`` (the repository's local stack).

``cli`` dispatches. Nothing is imported at package import: the hook path loads only the modules
it needs, so the agent's loop is not kept waiting.
"""

__version__ = "0.1.0"
