"""What every HTTP function admits, decided on the raw request before anything parses it.

The rules (docs/SECURITY.md, "Hostile input"):
- JSON nested deeper than ``MAX_JSON_DEPTH`` is refused (400): Python's parser recurses, and 1,000
  levels raise RecursionError, a 500.
- A number literal longer than ``MAX_NUMBER_DIGITS`` digits is refused (400): Python refuses to
  convert an integer of more than 4,300 digits (a ValueError, a 500), and no field needs more than 19.
  ``NaN`` and ``Infinity`` are refused too: they are not JSON, though Python's parser takes them.
- A lone surrogate (``"\\ud800"``) or NUL in any string of the body, the path or the query is
  replaced with U+FFFD, as a UTF-8 decoder does with a byte it cannot read: the rest of the user's
  text is kept, and nothing stored or served holds a character the store cannot encode.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from itertools import accumulate
from typing import Any

MAX_JSON_DEPTH = 64
MAX_NUMBER_DIGITS = 32
REPLACEMENT = "\ufffd"

_ESCAPE = re.compile(r"\\.", re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_BRACKET_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}
_LONG_NUMBER = re.compile(r"\d{" + str(MAX_NUMBER_DIGITS + 1) + ",}")
_NOT_JSON_NUMBER = re.compile(r"\b(?:NaN|Infinity)\b")
# What may hold a lone surrogate or NUL once parsed: their escapes, or the characters themselves.
_SUSPECT_TEXT = re.compile(r"\\u(?:0000|[dD][89a-fA-F][0-9a-fA-F]{2})|[\ud800-\udfff\x00]")
_UNSAFE_CHARACTER = re.compile("[\ud800-\udfff\x00]")


def body_text(event: dict[str, Any]) -> str | None:
    """The body as text (a base64 body decoded); None when it is not UTF-8 (the resolver says so)."""
    body = event.get("body") or ""
    if not event.get("isBase64Encoded"):
        return str(body)
    try:
        return base64.b64decode(body).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None


def refusal(text: str) -> str | None:
    """Why the JSON ``text`` is refused before it is parsed; None when it may be parsed."""
    structure = _outside_strings(text)
    if _depth(structure) > MAX_JSON_DEPTH:
        return f"JSON nested deeper than {MAX_JSON_DEPTH} levels"
    if _LONG_NUMBER.search(structure):
        return f"a number in the body has more than {MAX_NUMBER_DIGITS} digits"
    if _NOT_JSON_NUMBER.search(structure):
        return "NaN and Infinity are not JSON numbers"
    return None


def cleaned(event: dict[str, Any], text: str | None) -> dict[str, Any]:
    """``event`` with every lone surrogate and NUL in its body, path and query replaced with U+FFFD
    (the same event when it holds none, the usual case: nothing is parsed twice)."""
    changes: dict[str, Any] = {}
    if text and _SUSPECT_TEXT.search(text):
        body = _cleaned_body(text)
        if body is not None:
            changes |= {"body": body, "isBase64Encoded": False}
    for name in ("pathParameters", "queryStringParameters"):
        values = event.get(name) or {}
        if any(_UNSAFE_CHARACTER.search(str(v)) for v in values.values()):
            changes[name] = {k: clean_text(str(v)) for k, v in values.items()}
    for name in ("rawPath", "rawQueryString"):
        if _UNSAFE_CHARACTER.search(str(event.get(name) or "")):
            changes[name] = clean_text(str(event[name]))
    return {**event, **changes} if changes else event


def clean_text(text: str) -> str:
    """``text`` with each lone surrogate and NUL replaced with U+FFFD (a split pair is joined first)."""
    if not _UNSAFE_CHARACTER.search(text):
        return text
    joined = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return joined.replace("\x00", REPLACEMENT)


def _cleaned_body(text: str) -> str | None:
    """The body's JSON again with its strings cleaned; None when it is not JSON (answered 400) or
    holds nothing to clean (a surrogate pair written as two escapes, e.g. an emoji)."""
    try:
        value = json.loads(text)
    except ValueError:
        return None
    clean = _clean_value(value)
    return None if clean == value else json.dumps(clean, ensure_ascii=False)


def _clean_value(value: Any) -> Any:
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, list):
        return [_clean_value(item) for item in value]
    if isinstance(value, dict):
        return {clean_text(key): _clean_value(item) for key, item in value.items()}
    return value


def _outside_strings(text: str) -> str:
    """The JSON text outside its string literals: with every escape dropped, each quote left opens or
    closes a string (linear, with no backtracking whatever the text)."""
    return " ".join(_ESCAPE.sub("", text).split('"')[::2])


def _depth(structure: str) -> int:
    brackets = _NOT_BRACKET.sub("", structure)
    if brackets.count("[") + brackets.count("{") <= MAX_JSON_DEPTH:
        return 0  # cannot nest deeper than it has openings
    return max(accumulate(map(_BRACKET_STEP.__getitem__, brackets)), default=0)
