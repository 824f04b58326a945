"""Set-up: the user's settings, ``login``, ``install`` (hooks and MCP server) and ``doctor``."""
