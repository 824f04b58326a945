"""What a token may do: a plain enum apart from the token models, so a function that checks its
caller's scope does not build those."""

from __future__ import annotations

from enum import StrEnum


class Scope(StrEnum):
    HOOKS = "hooks"  # hook events, digests, remembers, explicit checkpoints
    READ = "read"  # checkpoints, ledger, recovery, sessions, search
    ADMIN = "admin"  # its own agent's tokens and health
