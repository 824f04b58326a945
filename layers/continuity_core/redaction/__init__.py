"""Secret redaction for everything Continuity stores and serves.

``redact(text)`` replaces API keys, tokens, private keys, passwords in URLs and secret assignments
with ``[REDACTED:<kind>]``; ``redact_with_report`` also counts them per kind (for metrics);
``redact_value`` walks a ``model_dump()``. See docs/REDACTION.md for what is detected and why.
"""

from continuity_core.redaction.engine import (
    KINDS,
    continued_length,
    fill_spans,
    marker,
    redact,
    redact_same_length,
    redact_strings,
    redact_value,
    redact_with_report,
    runs_on,
    secret_spans,
)

__all__ = [
    "KINDS",
    "continued_length",
    "fill_spans",
    "marker",
    "redact",
    "redact_same_length",
    "redact_strings",
    "redact_value",
    "redact_with_report",
    "runs_on",
    "secret_spans",
]
