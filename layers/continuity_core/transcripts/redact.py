"""Redaction of transcript text across appends: what is stored is what one redaction of the whole
transcript would leave, not what each delta's own redaction leaves.

A delta is redacted with the stored text before it (``CARRY_CHARS``, the carried tail) in front:
a secret whose name or first characters came with the previous delta is found whole, and the part
of it already stored is rewritten (same length) before the new text is stored. A secret the previous
delta ended inside (its stored redaction runs to that delta's end: ``open_kind``) is continued into
the new text (``continued_length``). Markers keep the secret's length, so offsets stay the client's.
"""

from __future__ import annotations

from dataclasses import dataclass

from continuity_core.redaction import continued_length, fill_spans, runs_on, secret_spans

# How far back a secret that ends in a new delta can begin, with the name or word that makes it one:
# the longest prefix a rule needs before it recognises a secret (``pypi-AgE`` + 50, a JWT's header,
# ``-----BEGIN … PRIVATE KEY-----`` + 40 base64 characters) and a name (≤ 64) with its separators,
# with room to spare. A secret recognised earlier than that is continued instead (``open_kind``).
CARRY_CHARS = 1024


@dataclass(frozen=True)
class AcrossAppends:
    """A delta redacted after the stored tail: the tail as it must be stored now (same length; more
    redacted when a secret straddles), the new text, and the kind of a redaction that runs to the
    new text's end (the next delta may continue that secret)."""

    tail: str
    text: str
    open_kind: str | None


def redact_after(tail: str, text: str, open_kind: str | None, cut: bool) -> AcrossAppends:
    """``text`` redacted with the stored ``tail`` before it. ``open_kind``: the kind of the redaction
    the tail ends inside, if any. ``cut``: the tail starts inside the transcript, not at its start;
    then its first word is context only (a secret's middle, cut, could look like a new one)."""
    start = _after_first_space(tail) if cut else 0
    joined = tail[start:] + text
    spans = [(s + start, e + start, kind) for s, e, kind in secret_spans(joined)]
    if open_kind is not None and (run := continued_length(open_kind, text)):
        spans.append((len(tail), len(tail) + run, open_kind))
    if not spans:
        return AcrossAppends(tail, text, None)
    whole = tail + text
    last_start, last_end, last_kind = max(spans, key=lambda span: span[1])
    open_kind = None
    if runs_on(last_kind, whole[last_start:last_end], whole[last_end:]):
        # What is left after it could be its continuation: redacted with it, and the next delta
        # goes on from here.
        spans.append((last_end, len(whole), last_kind))
        open_kind = last_kind
    redacted = fill_spans(whole, spans)
    return AcrossAppends(redacted[: len(tail)], redacted[len(tail) :], open_kind)


def _after_first_space(text: str) -> int:
    for index, char in enumerate(text):
        if char.isspace():
            return index + 1
    return len(text)
