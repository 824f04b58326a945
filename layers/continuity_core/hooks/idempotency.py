"""A hook's idempotency key: what makes a hook sent again "the same request", and the answer when
it is not (409 naming the key)."""

from __future__ import annotations

import hashlib
import json

from continuity_core.kernel.errors import IdempotencyKeyConflictError
from continuity_core.models.hooks import Hook
from continuity_core.redaction import redact

# What the client may legitimately change when it sends a hook again under the same key: the
# transcript's new part and the figures read with it (a resend after a 409 gap and a follow-up carry
# another part; a hook the watchdog spooled before the part was read carries none), what the service
# derives (``redactions``), and the key itself. Everything else is the request.
VOLATILE_FIELDS = frozenset(
    {"idempotency_key", "transcript", "transcript_chars", "context_tokens", "compacted", "redactions"}
)


def hook_fingerprint(hook: Hook) -> str:
    """The sha256 of the hook's canonical JSON without its volatile fields: equal for a replay."""
    fields = hook.model_dump(mode="json", exclude=set(VOLATILE_FIELDS))
    canonical = json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


def key_reused(idempotency_key: str) -> IdempotencyKeyConflictError:
    """The 409 for a key sent again with another body: the key as the client sent it, redacted (a
    key may hold anything a client puts in it) and cut at 64 characters."""
    return IdempotencyKeyConflictError(redact(idempotency_key))
