"""The service's errors any feature may raise, each answered by ``kernel/http.py`` with its own
JSON 4xx or 503 (never a 500)."""

from __future__ import annotations


class StorageUnavailableError(Exception):
    """The store throttled or failed; the caller may retry later."""


class KeyTooLongError(ValueError):
    """A path or key too long for the store's keys: the caller's input, answered 422."""


class InvalidPageTokenError(ValueError):
    """A ``next_token`` that this caller's previous page did not hand out."""


class IdempotencyKeyConflictError(ValueError):
    """An idempotency key sent again with a different body: answered 409, never the first result."""

    def __init__(self, key: str) -> None:
        shown = key if len(key) <= 64 else key[:64] + "…"
        super().__init__(
            f"idempotency key {shown!r} was already used for a different request; "
            "send this one with a new key"
        )


class FlushConflictError(Exception):
    """The session kept changing under the writer; the message is retried by SQS."""


class SessionDeletedError(Exception):
    """The session was deleted (``DELETE /api/sessions/{key}``): its tombstone refuses every write
    until it expires, so a hook spooled before the delete stores nothing when it arrives."""

    def __init__(self, session_key: str) -> None:
        super().__init__(f"session {session_key!r} was deleted (continuity forget); nothing was stored")
        self.session_key = session_key


class TranscriptGapError(Exception):
    """An append starts past the stored end; the client resends from ``stored_length``."""

    def __init__(self, stored_length: int) -> None:
        super().__init__(f"transcript gap: the service holds {stored_length} characters")
        self.stored_length = stored_length
