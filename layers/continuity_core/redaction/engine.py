"""Find every secret, merge overlapping findings, replace each with ``[REDACTED:<kind>]``."""

from __future__ import annotations

import bisect
import functools
import re
from typing import Any, TypeVar, cast

from continuity_core.redaction.context import CONTEXT_RULES, keyword_hits, name_class
from continuity_core.redaction.literals import MARKER_OPEN, looks_like_secret_literal
from continuity_core.redaction.providers import (
    Finding,
    ProviderScanner,
    private_key_goes_on,
    private_key_rest,
)

KINDS = (
    "aws_access_key_id",
    "aws_secret_access_key",
    "github_token",
    "gitlab_token",
    "slack_token",
    "slack_webhook",
    "openai_key",
    "anthropic_key",
    "stripe_key",
    "google_api_key",
    "npm_token",
    "pypi_token",
    "jwt",
    "private_key",
    "authorization_header",
    "url_password",
    "env_secret",
    "high_entropy",
)

# What can continue a secret cut short at the end of the text before: every provider token, value,
# password and credential character, up to whitespace, a quote, a JSON escape or a closing bracket
# (what ends a value in the rules that found it). A bound like theirs.
_CONTINUATION = re.compile(r"""[^\s"'`<>\\,;(){}\[\]|]{1,4096}""")

T = TypeVar("T")
_MARKER = re.compile(r"\[REDACTED:[a-z_]{1,40}\]")


def marker(kind: str) -> str:
    return f"{MARKER_OPEN}{kind}]"


def _marker_spans(text: str) -> list[tuple[int, int]]:
    return [match.span() for match in _MARKER.finditer(text)]


def _outside_markers(findings: list[Finding], markers: list[tuple[int, int]]) -> list[Finding]:
    """Markers are never re-redacted: a finding that reaches into one keeps only what precedes it."""
    ends = [end for _, end in markers]
    kept = []
    for start, end, priority, kind in findings:
        index = bisect.bisect_right(ends, start)  # the first marker ending after the finding starts
        if index < len(markers) and markers[index][0] < end:
            end = max(start, markers[index][0])
        if end > start:
            kept.append((start, end, priority, kind))
    return kept


def _merge(findings: list[Finding]) -> list[tuple[int, int, str]]:
    """Overlapping findings become one span, named after the most specific kind among them."""
    merged: list[tuple[int, int, str]] = []
    findings.sort()
    current_start, current_end, best_priority, best_kind = findings[0]
    for start, end, priority, kind in findings[1:]:
        if start < current_end:
            current_end = max(current_end, end)
            if priority > best_priority:
                best_priority, best_kind = priority, kind
            continue
        merged.append((current_start, current_end, best_kind))
        current_start, current_end, best_priority, best_kind = start, end, priority, kind
    merged.append((current_start, current_end, best_kind))
    return merged


class Redactor:
    def __init__(self) -> None:
        self._providers = ProviderScanner()

    def findings(self, text: str) -> list[Finding]:
        found = list(self._providers.scan(text))
        lowered = text.lower()
        if len(lowered) != len(text):  # a few non-ASCII letters lower-case to two characters
            lowered = "".join(char if len(char.lower()) != 1 else char.lower() for char in text)
        hits = keyword_hits(text, lowered)
        for rule in CONTEXT_RULES:
            found.extend(rule(text, lowered, hits))
        if found and MARKER_OPEN in text:
            found = _outside_markers(found, _marker_spans(text))
        return found

    def spans(self, text: str) -> list[tuple[int, int, str]]:
        """Where the secrets are: ``(start, end, kind)``, overlapping findings merged, in order."""
        found = self.findings(text)
        return _merge(found) if found else []

    def redact_same_length(self, text: str) -> tuple[str, dict[str, int]]:
        """Like ``redact_with_report``, but each secret's replacement has the secret's length
        (the marker padded with ``*``, or cut), so character offsets into the text still hold."""
        spans = self.spans(text)
        if not spans:
            return text, {}
        return fill_spans(text, spans), _counts(spans)

    def redact_with_report(self, text: str) -> tuple[str, dict[str, int]]:
        found = self.findings(text)
        if not found:
            return text, {}
        parts: list[str] = []
        report: dict[str, int] = {}
        position = 0
        for start, end, kind in _merge(found):
            parts.append(text[position:start])
            parts.append(marker(kind))
            report[kind] = report.get(kind, 0) + 1
            position = end
        parts.append(text[position:])
        return "".join(parts), report


def _counts(spans: list[tuple[int, int, str]]) -> dict[str, int]:
    report: dict[str, int] = {}
    for _, _, kind in spans:
        report[kind] = report.get(kind, 0) + 1
    return report


def fill_spans(text: str, spans: list[tuple[int, int, str]]) -> str:
    """``text`` with each span replaced by a marker of the span's length (``fitted_marker``)."""
    parts: list[str] = []
    position = 0
    for start, end, kind in sorted(spans):
        start = max(start, position)  # spans from different scans may overlap: the first one wins
        if end <= start:
            continue
        parts.append(text[position:start])
        parts.append(fitted_marker(kind, end - start))
        position = end
    parts.append(text[position:])
    return "".join(parts)


def continued_length(kind: str, text: str) -> int:
    """How many leading characters of ``text`` continue a secret of ``kind`` that the text before
    it ended inside (``ghp_…`` cut after 40 of its 46 characters): redacted with it."""
    if kind == "private_key":
        return private_key_rest(text)
    match = _CONTINUATION.match(text)
    return match.end() if match else 0


def runs_on(kind: str, secret: str, rest: str) -> bool:
    """Whether a secret of ``kind`` (found as ``secret``, with only ``rest`` after it to the end of
    the text) may go on in text that comes later: nothing follows it, or only what could continue
    it (a JWT's last ``.``, a key body's escaped line break cut after its backslash)."""
    if kind == "private_key":
        return not secret.rstrip().endswith("-----") and private_key_goes_on(rest)  # no END line yet
    return continued_length(kind, rest + "n") > len(rest)


def secret_spans(text: str) -> list[tuple[int, int, str]]:
    """Where ``redact`` would replace something: ``(start, end, kind)``, in order."""
    return default_redactor().spans(text)


def fitted_marker(kind: str, length: int) -> str:
    """A marker of exactly ``length`` characters: the full one padded, or a shorter form."""
    for candidate in (marker(kind), "[REDACTED]"):
        if len(candidate) <= length:
            return candidate + "*" * (length - len(candidate))
    return "*" * length


def redact_same_length(text: str) -> tuple[str, dict[str, int]]:
    """For text addressed by character offsets (live transcripts): see ``Redactor.redact_same_length``."""
    return default_redactor().redact_same_length(text)


@functools.cache
def default_redactor() -> Redactor:
    """Built on first use: the provider patterns compile then (about 1 ms, once per cold start)."""
    return Redactor()


def redact_with_report(text: str) -> tuple[str, dict[str, int]]:
    """``text`` with every secret replaced by ``[REDACTED:<kind>]``, and how many of each kind."""
    return default_redactor().redact_with_report(text)


def redact(text: str) -> str:
    """``text`` with every secret replaced by ``[REDACTED:<kind>]``. Idempotent."""
    return default_redactor().redact_with_report(text)[0]


def _redact_field(name: str, value: str, report: dict[str, int]) -> str:
    """A string held by a secret-like field (``{"password": "hunter2"}``) is secret as a whole:
    the name that makes it one is not in the string."""
    redacted, counts = redact_with_report(value)
    cls = name_class(name)
    if not counts and cls is not None:
        literal = value.strip()
        if looks_like_secret_literal(
            literal, quoted=True, env_style=True, min_length=4, password=cls == "password"
        ):
            kind = (
                "aws_secret_access_key"
                if "secretaccesskey" in name.lower().replace("_", "")
                else "env_secret"
            )
            counts = {kind: 1}
            redacted = marker(kind)
    for kind, count in counts.items():
        report[kind] = report.get(kind, 0) + count
    return redacted


def redact_value(value: T, report: dict[str, int] | None = None) -> T:
    """Redact every string in ``value`` (str, list, tuple, dict values; e.g. a pydantic
    ``model_dump()``). Other values are returned as they are. Counts go to ``report`` if given."""
    counts = report if report is not None else {}
    return cast(T, _walk(value, counts, None))


def _walk(value: Any, report: dict[str, int], name: str | None) -> Any:
    if isinstance(value, str):
        if name is not None:
            return _redact_field(name, value, report)
        redacted, counts = redact_with_report(value)
        for kind, count in counts.items():
            report[kind] = report.get(kind, 0) + count
        return redacted
    if isinstance(value, dict):
        return {
            key: _walk(item, report, key if isinstance(key, str) else None) for key, item in value.items()
        }
    if isinstance(value, list | tuple):
        walked = [_walk(item, report, name) for item in value]
        return walked if isinstance(value, list) else tuple(walked)
    return value


def redact_strings(value: T, report: dict[str, int] | None = None) -> T:
    """Like ``redact_value`` but by content only: field names are ignored.

    For the service's own documents, whose field names (``session_key``, ``token_id``) say nothing
    about whether the value is secret."""
    counts = report if report is not None else {}
    return cast(T, _walk_strings(value, counts))


def _walk_strings(value: Any, report: dict[str, int]) -> Any:
    if isinstance(value, str):
        redacted, counts = redact_with_report(value)
        for kind, count in counts.items():
            report[kind] = report.get(kind, 0) + count
        return redacted
    if isinstance(value, dict):
        return {key: _walk_strings(item, report) for key, item in value.items()}
    if isinstance(value, list | tuple):
        walked = [_walk_strings(item, report) for item in value]
        return walked if isinstance(value, list) else tuple(walked)
    return value
