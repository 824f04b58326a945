"""Is this value a secret? Heuristics for values found next to a secret-like name or word.

The provider patterns need none of this: their prefixes (``ghp_``, ``AKIA``...) say what they are.
A value after ``password=`` or near "token" does, because code, docs and prose put placeholders,
expressions, paths and identifiers there far more often than secrets.
"""

from __future__ import annotations

import math
import re

MARKER_OPEN = "[REDACTED:"

# Values that stand for a secret rather than being one (lower-cased, exact).
_PLACEHOLDER_WORDS = frozenset(
    """
    password passwd pass pwd secret secrets token tokens key apikey api_key api-key credentials
    changeme change_me change-me changeit example examples placeholder redacted masked hidden
    none null nil true false undefined empty required optional default string str int bool any
    todo tbd fixme xxx test testing dummy fake sample foo bar baz qux value values mysecret
    mypassword mysecretpassword secretpassword supersecret yoursecret notasecret not_a_secret
    mytoken yourtoken bearer basic token_here password123 enabled disabled yes no on off
    """.split()
)
_PLACEHOLDER_PREFIXES = (
    "$", "%", "<", "{", "[", "#{", "@@", "__", "your", "my_", "my-", "insert", "replace", "enter_",
    "enter-", "put_", "put-", "example", "dummy", "fake", "sample", "placeholder", "changeme", "xxx",
    "***", "...", "…", "env:", "env.", "vault:", "secret:", "ref+", "op://", "arn:", "projects/",
)
_PLACEHOLDER_INFIXES = ("your_", "your-", "_here", "-here", "xxxx", "****", "...", "…", "<", ">", "${", "{{")
_MASKED = re.compile(r"[*xX.•#_\-]+|(.)\1+")
_DOTTED_CODE = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|\?\.|->|::)[A-Za-z_$][\w$]*)+[!;,]*")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_WORDS = re.compile(r"[A-Za-z]+(?:[-_.][A-Za-z]+)*")
_VERSION = re.compile(r"v?\d+(?:\.\d+)+(?:[-+.][0-9A-Za-z.]+)?")
_NUMBER = re.compile(r"[-+]?\d+(?:[.,_]\d+)*[a-zA-Z%]{0,3}")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_HEX = frozenset("0123456789abcdefABCDEF")
_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?")
_CODE_CHARS = frozenset("()[]{}")
_SYMBOLS = frozenset("!@#%^&*+=?~|;:,")
_DIGITS = frozenset("0123456789")
SWITCH_RATE = 0.22


def shannon_entropy(value: str) -> float:
    """Bits per character of ``value``'s own character distribution."""
    size = len(value)
    if not size:
        return 0.0
    counts: dict[str, int] = {}
    for char in value:
        counts[char] = counts.get(char, 0) + 1
    return -sum(n / size * math.log2(n / size) for n in counts.values())


def is_placeholder(value: str) -> bool:
    """``$TOKEN``, ``<token>``, ``{{ secrets.X }}``, ``****``, ``your-api-key-here``, ``changeme``..."""
    lowered = value.lower()
    if lowered in _PLACEHOLDER_WORDS or MARKER_OPEN in value:
        return True
    if lowered.startswith(_PLACEHOLDER_PREFIXES) or any(part in lowered for part in _PLACEHOLDER_INFIXES):
        return True
    return _MASKED.fullmatch(value) is not None


def is_code(value: str) -> bool:
    """An expression, a reference or a type rather than a literal: ``os.environ["X"]``, ``settings.key``."""
    if any(char in _CODE_CHARS for char in value):
        return True
    return _DOTTED_CODE.fullmatch(value) is not None


def is_path(value: str) -> bool:
    if value.startswith(("/", "~/", "./", "../", "file:")) or value[1:3] in (":\\", ":/"):
        return True
    return "/" in value and not looks_random(value.replace("/", ""), min_length=16)


def is_word_like(value: str) -> bool:
    """Identifiers and hyphen/dot-joined words: ``userPassword``, ``my-tls-secret``, ``files``."""
    return _IDENTIFIER.fullmatch(value) is not None and not any(c in _DIGITS for c in value) or (
        _WORDS.fullmatch(value) is not None
    )


def is_uninformative(value: str) -> bool:
    """Numbers, versions, timestamps and UUIDs: values a secret-like name often holds that are not secret."""
    return bool(
        _NUMBER.fullmatch(value)
        or _VERSION.fullmatch(value)
        or _TIMESTAMP.fullmatch(value)
        or _UUID.fullmatch(value)
    )


def is_hex(value: str) -> bool:
    return all(char in _HEX for char in value)


def looks_random(value: str, min_length: int = 20) -> bool:
    """A machine-made token rather than a word, identifier, path, hash-free number or date.

    Random tokens switch between lower case, upper case and digits every second character or so
    (about 0.6 switches per character for base62, 0.45 for lowercase hex); identifiers and prose switch
    once per word. Entropy guards against long runs of a few characters.
    """
    size = len(value)
    if size < min_length:
        return False
    lower = upper = digits = switches = 0
    previous = ""
    for char in value:
        if "a" <= char <= "z":
            lower += 1
            cls = "l"
        elif "A" <= char <= "Z":
            upper += 1
            cls = "u"
        elif "0" <= char <= "9":
            digits += 1
            cls = "d"
        else:
            cls = "s"
        # A capital after lower case starts a camelCase word; a digit next to a letter ends one.
        # Upper-to-lower (the rest of a capitalised word) is not counted.
        if (cls == "d") != (previous == "d") and "s" not in (cls, previous) and previous:
            switches += 1
        elif cls == "u" and previous == "l":
            switches += 1
        previous = cls
    letters = lower + upper
    if letters == 0 or digits > size * 0.7:
        return False
    if digits == 0 and (lower == 0 or upper == 0):
        return False
    alnum = letters + digits
    if alnum < size * 0.75 or switches < alnum * SWITCH_RATE:
        return False
    return shannon_entropy(value) >= min(3.6, math.log2(size) - 0.9)


def looks_like_secret_literal(value: str, *, quoted: bool, env_style: bool, min_length: int) -> bool:
    """The value assigned to a secret-like name: is it a literal secret worth redacting?

    ``quoted`` and ``env_style`` (``UPPER_NAME=value``) values are literals by construction; a bare
    value after a lower-case name is often an expression (``password = password``), so it must
    look like a password (a digit or a symbol in it) or a token.
    """
    if len(value) < min_length or is_placeholder(value) or is_uninformative(value):
        return False
    if "://" in value or is_path(value):
        return False
    if quoted:
        # Labels and messages ("Password must be 8 characters") are quoted too.
        return not (value.count(" ") >= 2 and _WORDS.fullmatch(value.replace(" ", "-")) is not None)
    if is_code(value):
        return False
    if env_style:
        return True
    if is_word_like(value):
        return False
    return any(c in _DIGITS or c in _SYMBOLS for c in value) or looks_random(value, min_length=16)
