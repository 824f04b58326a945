"""What every harness's scripted session says, and what the tests look for in what it sent."""

from __future__ import annotations

RECOVERY = "## Session Recovery Context"
INHERITED = "## Inherited from Parent Session"
# The user's first words: a constraint the recovery and inherited blocks must carry on.
CONSTRAINT = "We must never edit the vendored folder. Let us add zstd support to the rollout reader."
KEPT = "never edit the vendored folder"
# What the model saves through the MCP server's session_digest.
DIGEST = {"summary": "Rollout reader: zstd support half done.", "next_steps": ["wire zstd into the reader"]}
DIGEST_SAVED = "zstd support half done"
SUBAGENT_TASK = "SUBAGENT_TASK: survey the readers."
MCP_TOOLS = ("session_digest", "session_search", "recover", "remember")
