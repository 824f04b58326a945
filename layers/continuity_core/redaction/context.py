"""Secrets recognised by their context: a secret-like name, a header, a URL, a nearby word.

Every rule starts from a keyword found in the lower-cased text by a pattern with a literal prefix
(CPython's ``re`` skips to a literal at ~1.5 GB/s), then looks at a few dozen characters around it
with anchored matches. A case-insensitive regex over the whole text would run at 5-20 MB/s.

One module: every rule is a small function over the same keyword scan and the same name classes
(``name_class``, ``_value_span``), kept together so a new rule sees what the others already allow.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator

from continuity_core.redaction.literals import (
    is_hex,
    is_path,
    is_placeholder,
    is_uninformative,
    is_word_like,
    looks_like_secret_literal,
    looks_random,
    names_a_secret,
)
from continuity_core.redaction.providers import Finding

PRIORITY_AWS_SECRET = 90
PRIORITY_AUTHORIZATION = 60
PRIORITY_URL = 50
PRIORITY_ENV = 40
PRIORITY_ENTROPY = 10

# --- secret-like names -------------------------------------------------------------------------

NAME_KEYWORDS = frozenset({"password", "pass", "pwd", "secret", "token", "key", "cred"})
# Each keyword, at the end of a word, with the longer words it also stands for. One scan per
# keyword (a literal prefix: 3-4 ms for 5 MB) instead of one alternation (5-10x slower).
_KEYWORD_PATTERNS = tuple(
    re.compile(pattern + r"(?![a-z])")
    for pattern in (
        r"pass(?:word|wd|phrase|code)?",
        r"pwd",
        r"secrets?",
        r"token",
        r"key",
        r"cred(?:s|entials?)?",
        r"auth(?:orization)?",
        r"bearer",
    )
)
_KEYWORD_OF = {
    **dict.fromkeys(("passwd", "passphrase", "passcode"), "password"),
    "secrets": "secret",
    **dict.fromkeys(("creds", "credential", "credentials"), "cred"),
}
_NAME_LIMIT = 64
_NAME_TAIL = re.compile(r"[A-Za-z0-9_.\-]*")
_NAME_RUN = re.compile(r"[a-z0-9_.\-]*")  # on lower-cased text
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_PASSWORD_WORDS = frozenset({"password", "passwd", "pwd", "pass", "pw", "passphrase", "passcode"})
_SECRET_WORDS = frozenset({"secret", "token", "credentials", "credential", "creds", "apikey"})
_SECRET_SUFFIXES = ("password", "passwd", "secret", "token", "apikey", "secretkey", "privatekey", "accesskey")
# ``<qualifier>_key`` is a secret in code; ``FOO_KEY`` in an environment block is one unless it is
# one of these (object keys, table keys, public halves).
_KEY_QUALIFIERS = frozenset(
    {
        "api", "secret", "private", "access", "signing", "sign", "encryption", "encrypt", "decryption",
        "master", "client", "auth", "app", "application", "account", "service", "license", "admin",
        "webhook", "hmac", "session", "crypto", "deploy", "consumer", "subscription", "storage",
        "shared", "root", "aes", "jwt", "cookie", "server",
    }
)  # fmt: skip
_KEY_NOT_SECRET = frozenset(
    {
        "public", "publishable", "pub", "primary", "sort", "partition", "hash", "range", "cache",
        "idempotency", "routing", "object", "bucket", "s3", "foreign", "lookup", "kms", "gpg", "pgp",
        "ssh", "dedup", "dedupe", "message", "row", "column", "map", "dict", "header", "attr", "field",
        "stream", "trace", "env", "config", "setting", "state", "param", "lock", "index",
    }
)  # fmt: skip
_TOKEN_NOT_SECRET = frozenset({"page", "next", "continuation", "pagination", "cursor", "sync", "max", "min"})
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9_]*")
_SEPARATOR = re.compile(r"(\\?[\"'`])?\]?[ \t]*(:=|=>|=|:)(?!=)[ \t]*")
# ``set("smtp.password", "value")``, ``setenv('TOKEN', 'value')``: a quoted name, a comma, a quoted value.
_QUOTED_PAIR = re.compile(r"(\\?[\"'])[ \t]*(,)[ \t]*(?=\\?[\"'])")
_CLI_SEPARATOR = re.compile(r"[ \t]+|=")
_ANNOTATED = re.compile(r"[ \t]*=[^=]")
_AWS_SECRET_VALUE = re.compile(r"[A-Za-z0-9/+]{40}")
_AWS_WORD = re.compile(r"(?<![a-z])aws")
# A bare value runs to a space, quote, escape, separator or closing bracket (and in a query string
# to the next parameter); 256 characters at most, so that no input makes the scan quadratic.
_BARE_VALUE = re.compile(r"[^ \t\r\n\"'`\\,;<>)\]}]{1,256}")
_BARE_QUERY_VALUE = re.compile(r"[^ \t\r\n\"'`\\,;<>)\]}&#]{1,256}")


# A keyword and the name it sits in: (keyword index, keyword, name start, name end).
Hit = tuple[int, str, int, int]


def keyword_hits(text: str, lowered: str) -> list[Hit]:
    """Every keyword that ends a word (``token``, ``apiKey``, ``password``; not ``tokenizer`` or
    ``PASSED``), with the span of the name it ends (``AWS_SECRET_ACCESS_KEY``), in text order."""
    hits = []
    reverse = lowered[::-1]  # names are found backwards with a C-speed match in the reversed text
    size = len(text)
    head = _NAME_RUN.match
    tail = _NAME_TAIL.match
    for pattern in _KEYWORD_PATTERNS:
        for match in pattern.finditer(lowered):
            index, after = match.span()
            back = size - index
            start = index - head(reverse, back, back + _NAME_LIMIT).end() + back  # type: ignore[union-attr]
            end = tail(text, after, after + _NAME_LIMIT).end()  # type: ignore[union-attr]
            while end > start and text[end - 1] in ".-":
                end -= 1
            hits.append((index, _KEYWORD_OF.get(match.group(), match.group()), start, end))
    hits.sort()
    return hits


@functools.lru_cache(maxsize=4096)
def name_words(name: str) -> tuple[str, ...]:
    return tuple(word.lower() for word in _WORD.findall(name))


@functools.lru_cache(maxsize=4096)
def name_class(name: str) -> str | None:
    """``"password"``, ``"secret"`` or None for a name that does not hold a secret."""
    words = name_words(name)
    if not words:
        return None
    last = words[-1]
    before = words[-2] if len(words) > 1 else ""
    if last in _PASSWORD_WORDS or last.endswith(("password", "passwd")):
        return "password"
    if last == "token" and before in _TOKEN_NOT_SECRET:
        return None
    if last in _SECRET_WORDS or last.endswith(_SECRET_SUFFIXES):
        return "secret"
    if last == "key" and before:
        if before in _KEY_QUALIFIERS:
            return "secret"
        if _ENV_NAME.fullmatch(name) and before not in _KEY_NOT_SECRET and "id" not in words:
            return "secret"
    return None


def _is_aws_secret_name(name: str) -> bool:
    flat = name.lower().replace("_", "").replace("-", "").replace(".", "")
    return "secretaccesskey" in flat or ("aws" in flat and "secret" in flat)


def _occurrences(text: str, needles: Iterable[str]) -> Iterator[int]:
    for needle in needles:
        index = text.find(needle)
        while index != -1:
            yield index
            index = text.find(needle, index + len(needle))


def _line_end(text: str, start: int, limit: int) -> int:
    stop = min(len(text), start + limit)
    newline = text.find("\n", start, stop)
    if newline != -1:
        stop = newline
    escaped = text.find("\\n", start, stop)
    return escaped if escaped != -1 else stop


def _value_span(text: str, start: int, bare: re.Pattern[str]) -> tuple[int, int, bool] | None:
    """The value at ``start``: a quoted string (also JSON-escaped ``\\"...\\"``) or a bare word."""
    size = len(text)
    if start >= size:
        return None
    if text.startswith('\\"', start):
        close = text.find('\\"', start + 2, _line_end(text, start + 2, 512) + 2)
        return (start + 2, close, True) if close != -1 else None
    quote = text[start]
    if quote in "\"'`":
        line_end = _line_end(text, start + 1, 512)
        close = text.find(quote, start + 1, line_end)
        while close != -1 and text[close - 1] == "\\" and quote != "`":
            close = text.find(quote, close + 1, line_end)
        return (start + 1, close, True) if close != -1 else None
    match = bare.match(text, start)
    return (start, match.end(), False) if match else None


def assignments(text: str, lowered: str, hits: list[Hit]) -> Iterator[Finding]:
    """``NAME=value``, ``"name": "value"``, ``name: value``, ``--name value``, ``<name>value</name>``
    where the name is secret-like and the value a literal (not a placeholder, expression or path)."""
    previous = covered = -1
    for _, keyword, start, end in hits:
        if start == previous or start < covered or keyword not in NAME_KEYWORDS:
            continue  # the same name again, or a name inside a value already found
        previous = start
        dashes = 0
        while start < end and text[start] == "-":
            start += 1
            dashes += 1
        name = text[start:end]
        cls = name_class(name)
        if cls is None:
            continue
        found = _assigned_value(text, start, end, name, dashes)
        if found is None:
            continue
        value_start, value_end, quoted, operator = found
        if not quoted and operator == ":" and (_ANNOTATED.match(text, value_end) or name.lower() == "pass"):
            continue  # ``API_KEY: Final = ...``: a type annotation; ``PASS: test_name``: a test result
        value = text[value_start:value_end]
        env_style = operator in ("=", ":") and _ENV_NAME.fullmatch(name) is not None
        if env_style and operator == ":" and value.isalpha() and value[0].isupper() and value[1:].islower():
            continue  # ``GNUTLS_NULL_PASSWORD: Added`` (a changelog), not ``DB_PASSWORD: postgres``
        minimum = 4 if cls == "password" or env_style else 6
        if not looks_like_secret_literal(
            value, quoted=quoted, env_style=env_style, min_length=minimum, password=cls == "password"
        ):
            continue
        covered = value_end
        near_aws = _is_aws_secret_name(name) or _AWS_WORD.search(lowered, max(0, start - 200), start)
        if near_aws and _AWS_SECRET_VALUE.fullmatch(value):
            yield value_start, value_end, PRIORITY_AWS_SECRET, "aws_secret_access_key"
        else:
            yield value_start, value_end, PRIORITY_ENV, "env_secret"


def _assigned_value(
    text: str, start: int, end: int, name: str, dashes: int
) -> tuple[int, int, bool, str] | None:
    before = text[start - 1] if start else ""
    bare = _BARE_QUERY_VALUE if before in ("?", "&") else _BARE_VALUE
    if before == "<" and text.startswith(">", end):  # <password>value</password>
        close = text.find("</", end + 1, end + 512)
        return (end + 1, close, True, ">") if close > end + 1 else None
    if dashes == 2:  # --password value, --token=value
        separator = _CLI_SEPARATOR.match(text, end)
        if separator is None:
            return None
        span = _value_span(text, separator.end(), bare)
        return (*span, "=") if span else None
    separator = _SEPARATOR.match(text, end)
    if separator is None:
        return _call_argument(text, start, end)
    operator = separator.group(2)
    if operator == ":":
        if before == ":" or text.startswith("::", separator.start(2)):
            return None  # arn:aws:...:secret:name, C++ scopes
        if separator.group(1) is None and separator.end() == separator.end(2):
            return None  # YAML and prose put a space after the colon; URNs and times do not
    span = _value_span(text, separator.end(), bare)
    if span is None:
        return None
    return (*span, operator)


def _call_argument(text: str, start: int, end: int) -> tuple[int, int, bool, str] | None:
    """``set("smtp.password", "value")``: only as a call's first two arguments, so that lists of
    names (``("password", "token")``) are not taken for assignments; the caller then judges the
    value as it would a bare one (``","`` operator)."""
    opening = start - 1
    if opening > 0 and text[opening - 1] == "\\":
        opening -= 1
    if opening < 1 or text[opening - 1] not in "([{":
        return None
    pair = _QUOTED_PAIR.match(text, end)
    if pair is None:
        return None
    span = _value_span(text, pair.end(), _BARE_VALUE)
    return (span[0], span[1], False, ",") if span else None


# --- Authorization headers, URLs with passwords, curl -u -----------------------------------------

_AUTHORIZATION = re.compile(
    r"(?i:authorization)\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?[ \t]*(?:(?i:(bearer|basic|token|bot))[ \t]+)?"
)
_BEARER = re.compile(r"[Bb]earer[ \t]+")
_CREDENTIAL = re.compile(r"[^ \t\r\n\"'`\\,;<>)\]}]{1,4096}")
_BASIC_VALUE = re.compile(r"[A-Za-z0-9+/]{8,}={0,2}")


def _credential(text: str, start: int) -> tuple[int, int]:
    match = _CREDENTIAL.match(text, start)
    return start, match.end() if match else start


def _credential_ok(value: str, scheme: str | None) -> bool:
    if len(value) < 8 or is_placeholder(value) or "{" in value or "(" in value:
        return False
    if scheme == "basic":
        return _BASIC_VALUE.fullmatch(value) is not None or ":" in value
    if scheme is None:  # a raw header value: only if it is a token
        return looks_random(value, min_length=16)
    return not is_word_like(value) and not names_a_secret(value)  # "Bearer wrong-token", "Bearer accessToken"


def authorization_headers(text: str, lowered: str, hits: list[Hit]) -> Iterator[Finding]:
    """``Authorization: Bearer|Basic|Token <credential>`` (header, JSON, curl -H) and a bare
    ``Bearer <token>``. The scheme stays; placeholders (``$TOKEN``, ``<token>``, ``{token}``) too."""
    for index, keyword, _, _ in hits:
        if keyword == "authorization":
            match = _AUTHORIZATION.match(text, index)
            if match is None:
                continue
            scheme = match.group(1).lower() if match.group(1) else None
            start, end = _credential(text, match.end())
            if _credential_ok(text[start:end], scheme):
                yield start, end, PRIORITY_AUTHORIZATION, "authorization_header"
        elif keyword == "bearer":
            yield from _bearer(text, index)


def _bearer(text: str, index: int) -> Iterator[Finding]:
    if index == 0 or not text[index - 1].isalnum():
        match = _BEARER.match(text, index)
        if match is not None:
            start, end = _credential(text, match.end())
            value = text[start:end]
            if _credential_ok(value, "bearer") and not is_path(value) and looks_random(value, min_length=16):
                yield start, end, PRIORITY_AUTHORIZATION, "authorization_header"


_URL_USERINFO = re.compile(
    r"(?::/|:\\/\\/)/([^\s:/@?#\[\]\"'<>\\]{0,128}):([^\s/?#\"'<>\\]{1,256})@(?=[A-Za-z0-9\[_])"
)
_SCHEME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-")


def url_passwords(text: str, lowered: str, hits: list[Hit]) -> Iterator[Finding]:
    """``scheme://user:password@host``: the password goes, the user and host stay."""
    for index in _occurrences(text, ("://", ":\\/\\/")):
        if not index or text[index - 1] not in _SCHEME_CHARS:
            continue
        match = _URL_USERINFO.match(text, index)
        if match is None:
            continue
        password = match.group(2)
        if len(password) < 4 or ":" in password or is_placeholder(password):
            continue  # documentation's ``https://a:b@host``; ``cvs://:pserver:user@host``
        yield match.start(2), match.end(2), PRIORITY_URL, "url_password"


_CURL_USER = re.compile(r"(?:-u|--user)(?:[ \t]+|=)\\?[\"']?([^\s:\"'`\\]{1,128}):([^\s\"'`\\]{1,256})")


def curl_users(text: str, lowered: str, hits: list[Hit]) -> Iterator[Finding]:
    """``curl -u user:password``: basic credentials on a command line."""
    for index in _occurrences(text, ("-u",)):  # one scan finds ``-u`` and ``--user``
        start = index - 1 if index and text[index - 1] == "-" else index
        if start and not text[start - 1].isspace():
            continue
        match = _CURL_USER.match(text, start)
        if match is None:
            continue
        user, password = match.group(1), match.group(2)
        if is_placeholder(password) or is_placeholder(user) or password.isdigit() or len(password) < 4:
            continue
        yield match.start(2), match.end(2), PRIORITY_AUTHORIZATION, "authorization_header"


# --- high-entropy strings near a secret-like word ---------------------------------------------

# A bare "pass" is mostly the verb or a test result ("PASS: test_x"): names only, see NAME_KEYWORDS.
ENTROPY_KEYWORDS = frozenset({"password", "pwd", "secret", "token", "key", "cred", "auth", "bearer"})
_STRONG = frozenset({"password", "pwd", "secret", "token", "cred", "bearer"})
_KEY_STRONG_BEFORE = ("api", "secret", "private", "access", "license", "signing", "master", "client")
_KEY_PUBLIC_BEFORE = ("public", "pub", "ssh", "gpg", "pgp", "host")
# Starts at a run's beginning (the look-behind), 20+ characters: what looks_random() can accept.
_CANDIDATE = re.compile(r"(?<![A-Za-z0-9+/_\-.~=])[A-Za-z0-9+/_\-.~]{20,}={0,2}")
_HASH_WORDS = (
    "sha",
    "md5",
    "hash",
    "digest",
    "commit",
    "checksum",
    "integrity",
    "etag",
    "rev ",
    "fingerprint",
)
_DOTTED_NAME = re.compile(r"[\w$]+(?:\.[\w$]+)*\.[A-Za-z_]+")
_NOT_SECRET_LAST = frozenset(
    {
        "id", "ids", "arn", "name", "names", "url", "uri", "path", "file", "prefix", "suffix", "type",
        "size", "length", "count", "header", "field", "param", "policy", "rotation", "version",
        "expiry", "ttl", "format", "alias", "ref", "manager", "store", "vault",
    }
)  # fmt: skip
_NOT_SECRET_NAMES = frozenset({"next", "page", "continuation", "pagination", "cursor", "purchase", "client"})
# Another clause or line (also a JSON-escaped one: ``\n``, or a gap ending in the escape's ``\``).
_GAP_STOP = re.compile(r"[,;{}\n]|\\n|\\$")
_GAP_KEYWORD = re.compile("|".join(sorted(ENTROPY_KEYWORDS)))
_GAP_WORD = re.compile(r"[A-Za-z]{2,}")
_WINDOW = 64


def _strength(lowered: str, index: int, keyword: str) -> str | None:
    """``"strong"``, ``"weak"`` or None (a public key: nothing secret follows)."""
    if keyword != "key":
        return "strong" if keyword in _STRONG else "weak"
    before = lowered[max(0, index - 12) : index]
    if any(word in before for word in _KEY_PUBLIC_BEFORE):
        return None
    return "strong" if any(word in before for word in _KEY_STRONG_BEFORE) else "weak"


@functools.lru_cache(maxsize=4096)
def _not_secret_name(name: str) -> bool:
    """NextToken, page_token, kms_key_id, s3_key_prefix: opaque or identifying, not secret."""
    words = name_words(name)
    return bool(words) and (words[-1] in _NOT_SECRET_LAST or any(word in _NOT_SECRET_NAMES for word in words))


def _gap_ok(gap: str) -> bool:
    """Between the word and the value: separators and a few words of the same clause, none of them
    another secret-like word (that one's own hit decides: "token cache key: <md5>" is about a key)."""
    if len(gap) > 48 or ". " in gap or gap.count('"') > 2 or _GAP_STOP.search(gap):
        return False
    lowered = gap.lower()
    return len(_GAP_WORD.findall(lowered)) <= 6 and not _GAP_KEYWORD.search(lowered)


def _entropy_candidate_ok(value: str, strength: str, context_before: str) -> bool:
    if is_placeholder(value) or is_uninformative(value) or value.startswith("AAAA"):
        return False
    if any(word in context_before for word in _HASH_WORDS):
        return False
    if is_hex(value.replace("-", "")):
        return strength == "strong" and len(value) >= 32 and len(value) not in (40, 64)
    if "/" in value and is_path(value):
        return False
    if _DOTTED_NAME.fullmatch(value):
        return False  # module.attribute: ``_aws_kms_ff87d74a.IKey``
    if strength == "weak" and (value.lower() == value or value.upper() == value):
        return False  # after "key" or "auth" alone, only a mixed-case token is evidence enough
    return looks_random(value, min_length=20)


def high_entropy_strings(text: str, lowered: str, hits: list[Hit]) -> Iterator[Finding]:
    """A random-looking string (20+ characters) right after a secret-like word, in prose or in an
    assignment whose name alone was not secret-like enough (``auth: 8f7dA...``, "my API key is ...")."""
    done = -1
    size = len(text)
    for index, keyword, name_start, name_end in hits:
        if keyword not in ENTROPY_KEYWORDS or name_end <= done:
            continue
        window_end = min(size, name_end + _WINDOW)
        match = _CANDIDATE.search(text, name_end, window_end)
        if match is None or (name_start and text[name_start - 1] == ":"):
            continue  # most hits: nothing long enough follows; arn:...:secret:name
        strength = _strength(lowered, index, keyword)
        if strength is None or _not_secret_name(text[name_start:name_end]):
            continue
        while match is not None:
            start = match.start()
            if not _gap_ok(text[name_end:start]):
                break
            full = _CANDIDATE.match(text, start)  # beyond the window if the value is long
            assert full is not None
            value = full.group().rstrip(".-_~")
            # Judged on its first 256 characters: a megabyte of base64 after "secret:" costs no more.
            if not is_placeholder(value[:256]) and _entropy_candidate_ok(
                value[:256], strength, lowered[max(0, start - 24) : start]
            ):
                end = start + len(value)
                if _AWS_SECRET_VALUE.fullmatch(value) and _AWS_WORD.search(
                    lowered, max(0, index - 40), index + 40
                ):
                    yield start, end, PRIORITY_AWS_SECRET, "aws_secret_access_key"
                else:
                    yield start, end, PRIORITY_ENTROPY, "high_entropy"
                done = end
                break
            match = _CANDIDATE.search(text, full.end(), window_end)


CONTEXT_RULES = (assignments, authorization_headers, url_passwords, curl_users, high_entropy_strings)
