"""The agent's commands over the agent API: ``status``, ``checkpoint``, ``recover`` and ``mcp``."""
