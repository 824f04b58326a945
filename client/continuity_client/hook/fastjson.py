"""``loads`` and ``dumps`` for the hook path, without ``import json``.

``import json`` imports ``re`` (and with it ``enum``, ``functools`` and the regular expression
compiler) for two patterns its C scanner never uses: about 9 ms of a hook's start-up, as much as
the bare interpreter's. This drives ``_json``, the C accelerator ``json`` itself uses, directly:
the same parser and encoder, so the same values and the same text (``json.dumps``'s defaults:
ASCII, ``", "`` and ``": "``). Where ``_json`` is missing (not CPython), it is ``json``.

A malformed document raises ``ValueError`` as ``json`` does (with the scanner's position where it
gives one: its own error needs ``json.decoder``, and without it CPython raises a ``SystemError``,
turned into ``ValueError("malformed JSON")`` here).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing costs milliseconds at import; mypy reads this as True
if TYPE_CHECKING:
    from typing import Any

WHITESPACE = " \t\n\r"

try:
    import _json
except ImportError:  # pragma: no cover - CPython has it
    _json = None  # type: ignore[assignment]


def _constant(name: str) -> float:
    return float(name.replace("Infinity", "inf"))  # NaN, Infinity, -Infinity, as json reads them


class _Context:
    """What the C scanner reads from a ``json.JSONDecoder``."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = staticmethod(_constant)


def _unserializable(value: object) -> object:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


if _json is not None:
    _scan = _json.make_scanner(_Context())  # type: ignore[arg-type] # duck-typed decoder

    def loads(data: str | bytes | bytearray) -> Any:
        text = data.decode("utf-8") if isinstance(data, (bytes, bytearray)) else data
        text = text.strip(WHITESPACE)
        try:
            value, end = _scan(text, 0)
        except StopIteration as stop:
            raise ValueError(f"Expecting value: line 1 column {stop.value + 1}") from None
        except SystemError:
            # The scanner's own error needs ``json.decoder``, which the hook path never imports:
            # CPython then reports "returned NULL without setting an exception".
            raise ValueError("malformed JSON") from None
        if end != len(text):
            raise ValueError(f"Extra data: column {end + 1}")
        return value

    def dumps(
        value: object,
        *,
        separators: tuple[str, str] = (", ", ": "),
        ensure_ascii: bool = True,
        sort_keys: bool = False,
    ) -> str:
        item_separator, key_separator = separators
        strings = _json.encode_basestring_ascii if ensure_ascii else _json.encode_basestring
        encoder = _json.make_encoder(
            {}, _unserializable, strings, None, key_separator, item_separator, sort_keys, False, True
        )
        return "".join(encoder(value, 0))

else:  # pragma: no cover
    import json

    def loads(data: str | bytes | bytearray) -> Any:
        return json.loads(data)

    def dumps(
        value: object,
        *,
        separators: tuple[str, str] = (", ", ": "),
        ensure_ascii: bool = True,
        sort_keys: bool = False,
    ) -> str:
        return json.dumps(value, separators=separators, ensure_ascii=ensure_ascii, sort_keys=sort_keys)
