"""Provider-specific patterns: a token format says what it is.

Adapted from gitleaks' default rule set (``config/gitleaks.toml``: aws-access-token, github-pat,
github-oauth, github-app-token, github-fine-grained-pat, gitlab-*, slack-*-token, slack-webhook-url,
openai-api-key, anthropic-api-key, stripe-access-token, gcp-api-key, npm-access-token,
pypi-upload-token, jwt, private-key) and detect-secrets' plugins (``npm.py`` for ``_authToken``,
``pypi_token.py`` for test.pypi). Two deliberate differences:

- every pattern starts with a literal, and the left word boundary is checked in Python: CPython's
  ``re`` skips to a literal prefix with a fast search, but ``\\b`` or a look-behind in front of it
  makes the engine try every position (3 GB/s against 80 MB/s on 5 MB of text);
- a boundary after a JSON string escape (``\\nAKIA...``) counts as a boundary, since transcripts are
  JSON lines.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from continuity_core.redaction.literals import is_placeholder, looks_random, shannon_entropy

Finding = tuple[int, int, int, str]  # start, end, priority, kind

PRIORITY_PROVIDER = 100


@dataclass(frozen=True)
class ProviderRule:
    pattern: re.Pattern[str]
    kind: str = ""  # "": the name of the group that matched (one scan for a shared prefix)
    group: int = 0  # the part to redact; 0 = the whole match
    left_boundary: bool = True
    after: str | None = None  # if set, the match must follow one of these characters or start a line
    accept: Callable[[str], bool] | None = None


# The more specific kind wins an overlap (``sk-ant-...`` is also ``sk-...``).
_PRIORITY = {"anthropic_key": PRIORITY_PROVIDER + 10}


def _left_boundary_ok(text: str, start: int) -> bool:
    if start == 0:
        return True
    before = text[start - 1]
    if not (before.isalnum() or before == "_"):
        return True
    # ``\n``, ``\t``, ``\r`` JSON escapes in front of the token.
    return before in "ntr" and start >= 2 and text[start - 2] == "\\"


def _after(text: str, start: int, chars: str) -> bool:
    return start == 0 or text[start - 1] in chars or (start >= 2 and text.startswith("\\n", start - 2))


def _digits(minimum: int) -> Callable[[str], bool]:
    return lambda value: sum(char.isdigit() for char in value) >= minimum


def _openai_like(value: str) -> bool:
    if "T3BlbkFJ" in value:
        return True
    if value.startswith(("sk-proj-", "sk-svcacct-", "sk-admin-")):
        return len(value) >= 40
    return looks_random(value[3:], min_length=32)


def _not_placeholder(value: str) -> bool:
    return not is_placeholder(value.strip("\"'"))


def _sk_family(value: str) -> bool:
    return not value.startswith("sk-") or value.startswith("sk-ant-") or _openai_like(value)


def _rules() -> tuple[ProviderRule, ...]:
    """One scan per literal prefix: an alternation of different prefixes (``(?:sk|rk)_``) has no
    literal prefix and scans 5-10x slower, so only same-prefix kinds share a pattern."""
    end = r"(?![A-Za-z0-9_])"
    return (
        ProviderRule(
            re.compile(r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}(?![A-Za-z0-9])"),
            "aws_access_key_id",
            accept=lambda value: shannon_entropy(value) >= 3.0,
        ),
        ProviderRule(re.compile(r"gh[pousr]_[A-Za-z0-9]{36,251}" + end), "github_token"),
        ProviderRule(re.compile(r"github_pat_[A-Za-z0-9_]{40,251}" + end), "github_token"),
        ProviderRule(
            re.compile(
                r"gl(?:pat|dt|ft|soat|rt|oas|agent|imt|ptt|ffct|cbt)-[A-Za-z0-9_\-]{20,300}"
                r"(?:\.[A-Za-z0-9]{2,}){0,2}(?![A-Za-z0-9_\-])"
            ),
            "gitlab_token",
        ),
        ProviderRule(re.compile(r"GR1348941[A-Za-z0-9_\-]{20,}(?![A-Za-z0-9_\-])"), "gitlab_token"),
        ProviderRule(
            re.compile(r"x(?:ox[abposre](?:\.xox[bp])?|app)-[A-Za-z0-9\-]{10,}"),
            "slack_token",
            accept=_digits(5),
        ),
        ProviderRule(
            re.compile(r"hooks\.slack\.com/(?:services|workflows|triggers)/([A-Za-z0-9_/+\-]{16,})"),
            "slack_webhook",
            group=1,
        ),
        ProviderRule(
            re.compile(
                r"sk(?:(?P<anthropic_key>-ant-[a-z]{2,10}\d{0,3}-[A-Za-z0-9_\-]{20,})"
                r"|(?P<stripe_key>_(?:live|test|prod)_[A-Za-z0-9]{10,247}(?![A-Za-z0-9]))"
                r"|(?P<openai_key>-(?:(?:proj|svcacct|admin|None)-)?[A-Za-z0-9_\-]{20,}))"
            ),
            accept=_sk_family,
        ),
        ProviderRule(re.compile(r"rk_(?:live|test|prod)_[A-Za-z0-9]{10,247}(?![A-Za-z0-9])"), "stripe_key"),
        ProviderRule(re.compile(r"whsec_[A-Za-z0-9+/=]{24,}"), "stripe_key"),
        ProviderRule(re.compile(r"AIza[0-9A-Za-z_\-]{35}(?![0-9A-Za-z_\-])"), "google_api_key"),
        ProviderRule(re.compile(r"GOCSPX-[0-9A-Za-z_\-]{20,}"), "google_api_key"),
        ProviderRule(re.compile(r"ya29\.[0-9A-Za-z_\-]{20,}"), "google_api_key"),
        ProviderRule(re.compile(r"npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])"), "npm_token"),
        ProviderRule(
            re.compile(r"_auth(?:Token)?[ \t]*=[ \t]*[\"']?([^\s\"'\\]{8,})"),
            "npm_token",
            group=1,
            left_boundary=False,
            after=":\n",  # .npmrc: ``//registry.npmjs.org/:_authToken=...`` or ``_auth=...`` on its own line
            accept=_not_placeholder,
        ),
        ProviderRule(re.compile(r"pypi-AgE[A-Za-z0-9_\-]{50,}"), "pypi_token"),
        ProviderRule(
            re.compile(
                r"eyJ[A-Za-z0-9_\-]{8,}={0,2}\.ey[A-Za-z0-9_\-]{8,}={0,2}(?:\.[A-Za-z0-9_\-]+={0,2}){0,3}"
            ),
            "jwt",
            left_boundary=False,
        ),
    )


_PRIVATE_KEY_BEGIN = re.compile(r"-----BEGIN[A-Z0-9 _\-]{0,40}?PRIVATE KEY(?: BLOCK)?-----")
# The armoured body: base64 lines, blank lines (also as JSON escapes) and RFC 1421 / OpenPGP headers.
_PRIVATE_KEY_BODY = re.compile(
    r"(?:[A-Za-z0-9+/=]+|[ \t\r\n]+|\\[nrt]|(?:Proc-Type|DEK-Info|Comment|Version|Hash):[^\n\\]*)*"
)
_PRIVATE_KEY_END = re.compile(r"-----END[A-Z0-9 _\-]{0,40}?PRIVATE KEY(?: BLOCK)?-----")
_BASE64 = re.compile(r"[A-Za-z0-9+/]{16,}")


def private_keys(text: str) -> Iterator[Finding]:
    """PEM / OpenSSH / PGP private key blocks, the END line optional (output is often cut short).

    A BEGIN line without a body (code that looks for one) is left alone.
    """
    for begin in _PRIVATE_KEY_BEGIN.finditer(text):
        body = _PRIVATE_KEY_BODY.match(text, begin.end())
        assert body is not None  # the body pattern matches the empty string
        if sum(len(run) for run in _BASE64.findall(body.group())) < 40:
            continue
        end = _PRIVATE_KEY_END.match(text, body.end())
        stop = end.end() if end else body.end()
        while not end and stop > begin.end() and text[stop - 1] in " \t\r\n":
            stop -= 1
        yield begin.start(), stop, PRIORITY_PROVIDER, "private_key"


# The rest of an END line cut short before the text (``…PRIVATE KEY-----``), and its start cut
# short at the text's end (``-----EN``).
_END_REST = re.compile(r"[A-Z0-9 _\-]{0,60}?-{1,5}(?![A-Za-z0-9\-])")
_END_START = re.compile(r"-{1,5}(?:E(?:N(?:D[A-Z0-9 _\-]{0,60})?)?)?|\\")


def private_key_rest(text: str) -> int:
    """How much of ``text`` is the rest of a private key block cut short before it: the rest of its
    END line, or the armoured body and the END line, if it is there."""
    body = _PRIVATE_KEY_BODY.match(text)
    assert body is not None  # the body pattern matches the empty string
    end = _PRIVATE_KEY_END.match(text, body.end())
    if end is not None:
        return end.end()
    rest = _END_REST.match(text)
    return rest.end() if rest is not None else body.end()


def private_key_goes_on(rest: str) -> bool:
    """Whether ``rest``, after a private key's body to the end of the text, could be followed by
    more of the block: it is more body, then nothing, a cut escape or the start of the END line."""
    body = _PRIVATE_KEY_BODY.match(rest)
    assert body is not None
    after = rest[body.end() :]
    return not after or _END_START.fullmatch(after) is not None


class ProviderScanner:
    def __init__(self) -> None:
        self._rules = _rules()

    def scan(self, text: str) -> Iterator[Finding]:
        for rule in self._rules:
            for match in rule.pattern.finditer(text):
                if rule.left_boundary and not _left_boundary_ok(text, match.start()):
                    continue
                if rule.after is not None and not _after(text, match.start(), rule.after):
                    continue
                start, end = match.span(rule.group)
                if rule.accept is not None and not rule.accept(text[start:end]):
                    continue
                kind = rule.kind or match.lastgroup or ""
                yield start, end, _PRIORITY.get(kind, PRIORITY_PROVIDER), kind
        if "PRIVATE KEY" in text:
            yield from private_keys(text)
