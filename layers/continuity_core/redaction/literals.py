"""Is this value a secret? Heuristics for values found next to a secret-like name or word.

The provider patterns need none of this: their prefixes (``ghp_``, ``AKIA``...) say what they are.
A value after ``password=`` or near "token" does, because code, docs and prose put placeholders,
expressions, types, paths and identifiers there far more often than secrets. Tuned against the
corpus and against every ``.py/.json/.md/...`` file of this project's virtualenv (240 MB).
"""

from __future__ import annotations

import math
import re

MARKER_OPEN = "[REDACTED:"

# Values that stand for a secret rather than being one (lower-cased, exact).
_PLACEHOLDER_WORDS = frozenset(
    {
        "password", "passwd", "pass", "pwd", "secret", "secrets", "token", "tokens", "key", "apikey",
        "api_key", "api-key", "credentials", "changeme", "change_me", "change-me", "changeit", "example",
        "examples", "placeholder", "redacted", "masked", "hidden", "text", "none", "null", "nil", "true",
        "false", "undefined", "empty", "required", "optional", "default", "string", "str", "int", "bool",
        "any", "bytes", "float", "dict", "list", "final", "secretstr", "classvar", "todo", "tbd", "fixme",
        "xxx", "test", "testing", "dummy", "fake", "sample", "foo", "bar", "baz", "qux", "value", "values",
        "mysecret", "mypassword", "mysecretpassword", "secretpassword", "supersecret", "yoursecret",
        "notasecret", "not_a_secret", "mytoken", "yourtoken", "bearer", "basic", "token_here", "enabled",
        "disabled", "yes", "no", "on", "off",
    }
)  # fmt: skip
_PLACEHOLDER_PREFIXES = (
    "$", "%", "<", "{", "[", "#{", "@@", "__", "*", ":", "your", "my_", "my-", "insert", "replace",
    "enter_", "enter-", "put_", "put-", "dummy", "fake", "sample", "placeholder", "changeme",
    "xxx", "...", "…", "env:", "env.", "vault:", "secret:", "ref+", "op://", "arn:", "projects/",
)  # fmt: skip
# "example" covers AWS's documented AKIAIOSFODNN7EXAMPLE / wJalr...EXAMPLEKEY in generic contexts;
# the provider patterns still redact them (cheaper than arguing about documentation).
_PLACEHOLDER_INFIXES = (
    "your_", "your-", "_here", "-here", "xxxx", "****", "...", "…", "<", ">", "${", "{{", "$(", "`",
    "%20", "example",
)  # fmt: skip
_PLACEHOLDER_INFIX = re.compile("|".join(re.escape(part) for part in _PLACEHOLDER_INFIXES))
# "token123", "password1", "test-secret": a placeholder word with a counter.
_PLACEHOLDER_NUMBERED = re.compile(
    r"(?:(?:my|test|dummy|fake|example|sample|demo|some)[-_]?)?"
    r"(?:token|secret|password|passwd|pass|key|apikey|api[-_]key|test|dummy|fake|example|sample|demo|foo|bar)"
    r"[-_]?\d{0,6}",
    re.IGNORECASE,
)
_MASKED = re.compile(r"[*xX.•#_\-]+|(.)\1+")
_DOTTED_CODE = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|\?\.|->|::)[A-Za-z_$][\w$]*)+[!;,]*")
# ``module.Type``, ``Jobs[-1].JobId``: references, also when quoted (forward-referenced types).
_REFERENCE = re.compile(r"[A-Za-z_][\w]*(?:\[[^\]]*\])?(?:\.[A-Za-z_][\w]*(?:\[[^\]]*\])?)*\.[A-Za-z_]+")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NAME_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_LETTERS_AND_JOINS = re.compile(r"_*[A-Za-z][A-Za-z_.\-]*")
_SINGLE_WORD = re.compile(r"[a-z]+|[A-Z][a-z]+|[A-Z]+")
_VERSION = re.compile(r"v?\d+(?:\.\d+)+(?:[-+.][0-9A-Za-z.]+)?")
_NUMBER = re.compile(r"[-+]?\d+(?:[.,_]\d+)*[a-zA-Z%]{0,3}")
_COLOUR = re.compile(r"#[0-9a-fA-F]{3,8}")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?")
_EXTENSION = re.compile(r"/[\w.-]*\.[a-z][a-z0-9]{0,7}$")
_PATH_SEGMENT = re.compile(r"[a-z0-9_.@+~-]+|[A-Z][a-z0-9_.@+~-]+")
_SECRET_WORD = re.compile("pass|pwd|secret|token|key|cred|auth")
_HEX = frozenset("0123456789abcdefABCDEF")
_CODE_CHAR = re.compile(r"[()\[\]{}]")
_DIGIT_OR_SYMBOL = re.compile(r"[0-9!@#%^&*+=?~|;:,]")
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
    if lowered in _PLACEHOLDER_WORDS or MARKER_OPEN in value or _PLACEHOLDER_NUMBERED.fullmatch(value):
        return True
    if lowered.startswith(_PLACEHOLDER_PREFIXES) or _PLACEHOLDER_INFIX.search(lowered):
        return True
    return _MASKED.fullmatch(value) is not None


def is_code(value: str) -> bool:
    """An expression, a reference or a type rather than a literal: ``os.environ["X"]``, ``settings.key``."""
    if _CODE_CHAR.search(value):
        return True
    return _DOTTED_CODE.fullmatch(value) is not None


def is_reference(value: str) -> bool:
    return _REFERENCE.fullmatch(value) is not None


def is_path(value: str) -> bool:
    """``/etc/passwd``, ``~/.ssh/id_rsa``, ``src/auth/token.ts``, ``prod/db-creds``; base64 with a ``/``
    in it is not (its segments are mixed-case noise, not words)."""
    if value.startswith(("~/", "./", "../", "file:")) or value[1:3] in (":\\", ":/"):
        return True
    if "/" not in value:
        return False
    if _EXTENSION.search(value):
        return True
    segments = [segment for segment in value.split("/") if segment]
    wordy = sum(len(segment) for segment in segments if _PATH_SEGMENT.fullmatch(segment))
    if wordy * 2 < sum(len(segment) for segment in segments):
        return False
    return value.startswith("/") or len(segments) >= 2


def is_word_like(value: str) -> bool:
    """Words and identifiers made of words: ``files``, ``userPassword``, ``my-tls-secret``,
    ``PUBLIC_KEY_OR_PASSWORD``. Not ``hf_LsSUPfOVIUFRqRift...`` (letters only, but noise)."""
    if not _LETTERS_AND_JOINS.fullmatch(value):
        return False
    parts = _NAME_PART.findall(value)
    if len(parts) <= 1:
        return True
    singles = sum(1 for part in parts if len(part) == 1)
    return singles <= 1 and sum(len(part) for part in parts) >= 3 * len(parts)


def names_a_secret(value: str) -> bool:
    """An identifier about a secret is a variable, not its value: ``o_auth2_credentials``, ``ec2Creds``."""
    return _IDENTIFIER.fullmatch(value) is not None and _SECRET_WORD.search(value.lower()) is not None


def is_uninformative(value: str) -> bool:
    """Numbers, versions, colours, timestamps and UUIDs: what a secret-like name often holds instead."""
    return bool(
        _NUMBER.fullmatch(value)
        or _VERSION.fullmatch(value)
        or _COLOUR.fullmatch(value)
        or _TIMESTAMP.fullmatch(value)
        or _UUID.fullmatch(value)
    )


def is_hex(value: str) -> bool:
    return all(char in _HEX for char in value)


def looks_random(value: str, min_length: int = 20) -> bool:
    """A machine-made token rather than a word, identifier, path, number or date.

    Random tokens switch between digits and letters, or start a new capital after lower case, about
    every second character (0.45 per character for base62, 0.47 for hex); identifiers and prose
    once per word (0.15-0.2 for camelCase). Entropy guards against long runs of a few characters.
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
        # A digit next to a letter, or a capital after lower case; upper-to-lower (the rest of a
        # capitalised word) is not a switch.
        digit_edge = (cls == "d") != (previous == "d") and "s" not in (cls, previous) and bool(previous)
        switches += digit_edge or (cls == "u" and previous == "l")
        previous = cls
    letters = lower + upper
    if letters == 0 or digits > size * 0.7:
        return False
    if digits == 0 and (lower == 0 or upper == 0):
        return False
    alnum = letters + digits
    if alnum < size * 0.75 or switches < alnum * SWITCH_RATE or _made_of_words(value, letters):
        return False
    return shannon_entropy(value) >= min(3.6, math.log2(size) - 0.9)


def _made_of_words(value: str, letters: int) -> bool:
    """``twoWayMediaS3KeyPrefix``, ``_aws_secretsmanager_64b8a1c5``: most letters sit in word-sized
    runs (a run of random base62 averages under two letters)."""
    runs = [part for part in _NAME_PART.findall(value) if not part.isdigit()]
    words = [
        len(part) for part in runs if len(part) >= 3 and _vowel_share(part) >= (0.2 if len(part) < 6 else 0.3)
    ]
    return sum(words) >= 0.6 * letters and len(words) * 2 >= len(runs) - 2


def _vowel_share(part: str) -> float:
    return sum(1 for char in part.lower() if char in "aeiouy") / len(part)


def looks_like_secret_literal(
    value: str, *, quoted: bool, env_style: bool, min_length: int, password: bool = False
) -> bool:
    """The value assigned to a secret-like name: is it a literal secret worth redacting?

    ``quoted`` and ``env_style`` (``UPPER_NAME=value``) values are literals by construction, but a
    compound identifier there is a name (``"input_token": "nextToken"``) and a token or key is never
    a single word. A bare value after a lower-case name is often an expression (``password =
    password``), so it must look like a password (a digit or a symbol in it) or a token.
    """
    if len(value) < min_length or value != value.strip() or is_placeholder(value) or is_uninformative(value):
        return False
    if "://" in value or is_path(value) or is_reference(value) or names_a_secret(value):
        return False
    if quoted and " " in value:
        return False  # labels, messages, expressions: "Password must be 8 characters", "a || b"
    if not quoted and is_code(value):
        return False
    if is_word_like(value):
        # A single plain word is a (weak) password, never a token; compound identifiers are names.
        return password and (quoted or env_style) and _SINGLE_WORD.fullmatch(value) is not None
    if value.startswith("-"):
        return False  # the next command-line flag
    if quoted or env_style:
        return True
    return _DIGIT_OR_SYMBOL.search(value) is not None or looks_random(value, min_length=16)
