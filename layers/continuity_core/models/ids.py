"""The identifier rules, declared once: what a session id, a sub-agent id, an agent (tenant) id and a
token name may hold. The ingest models validate with them and the router's path pattern is built
from them (``continuity_core.kernel.http``), so an id the service accepts is one it can route to.

The alphabets are what the harnesses send (docs/SECURITY.md#identifiers): Claude Code, Codex and
Gemini CLI send UUIDs; OpenCode ``ses_`` + hex + base62; OpenClaw session keys such as
``agent:main:telegram:group:-1001234567890:topic:42`` or ``agent:main:whatsapp:dm:+15551234567``
(Matrix rooms ``!room:server``, e-mail peers ``a@b``); a sub-agent's own session is
``{parent}:subagent:{agent id}`` (``names.SUBAGENT_KEY_PART``).

Left out, each for a reason: ``/`` (splits the path), ``?`` and ``#`` (end it), ``%`` (decoded once
more by some proxies), ``\\`` and quotes, white space and control characters (TAB, NUL, …), and
anything outside ASCII (routers and proxies disagree on it). An id that holds what the redaction
engine calls a secret is refused as well: ids are keys, never redacted, so a secret in one would
be stored and shown as it is.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Field, StringConstraints

# Ids the harnesses give sessions and sub-agents: a letter or digit first (never "." or ".."), then
# up to 255 of these.
SESSION_ID_CHARS = "A-Za-z0-9._:@+=!~-"
SESSION_ID_MAX = 256
SESSION_ID_PATTERN = rf"^[A-Za-z0-9][{SESSION_ID_CHARS}]{{0,{SESSION_ID_MAX - 1}}}$"
SESSION_ID_RULE = (
    f"1 to {SESSION_ID_MAX} characters of A-Z a-z 0-9 . _ : @ + = ! ~ -, starting with a letter or digit"
)

# A tenant: the first segment of every key (A#{agent}#…), so never a "#".
AGENT_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$"
AGENT_ID_RULE = "1 to 64 characters of A-Z a-z 0-9 _ . -, starting with a letter or digit"

# A token's name is a label people read (``laptop ci``): printable text, spaces included, no
# control characters.
TOKEN_NAME_MAX = 128
TOKEN_NAME_PATTERN = rf"^[^\x00-\x1f\x7f]{{1,{TOKEN_NAME_MAX}}}$"
TOKEN_NAME_RULE = f"1 to {TOKEN_NAME_MAX} printable characters (no control characters)"

# What the router matches for a session id in a path (``/api/sessions/<session_key>/…``): any
# segment. Wider than SESSION_ID_PATTERN on purpose: sessions stored before the rule (with a quote,
# a space, a TAB…) stay readable and deletable. Every accepted id matches it (a test holds this).
PATH_SEGMENT_PATTERN = r"[^/]+"

SECRET_RULE = "holds what looks like a secret ({kinds}); ids are stored and shown as they are"


def secret_kinds(text: str) -> list[str]:
    """The kinds of secret the redaction engine finds in ``text`` (none: an empty list)."""
    from continuity_core.redaction import redact_with_report

    _, report = redact_with_report(text)
    return sorted(report)


def _without_secret(value: str) -> str:
    kinds = secret_kinds(value)
    if kinds:
        # The message names the rule and the kind, never the value.
        raise ValueError(SECRET_RULE.format(kinds=", ".join(kinds)))
    return value


def _checked(pattern: str, rule: str) -> AfterValidator:
    compiled = re.compile(pattern)

    def check(value: str) -> str:
        if not compiled.fullmatch(value):
            raise ValueError(f"must be {rule}")
        return _without_secret(value)

    return AfterValidator(check)


def _documented(pattern: str, rule: str) -> Any:
    """The rule in the OpenAPI document (the check itself is ``_checked``'s, with its message)."""
    return Field(description=f"{rule}; no secret", json_schema_extra={"pattern": pattern})


# Annotated types for pydantic fields: the rule's own message on a mismatch, never the value.
SessionId = Annotated[
    str,
    StringConstraints(strip_whitespace=True),
    _checked(SESSION_ID_PATTERN, SESSION_ID_RULE),
    _documented(SESSION_ID_PATTERN, SESSION_ID_RULE),
]


def _blank_is_none(value: object) -> object:
    return None if isinstance(value, str) and not value.strip() else value


# An optional one: blank (some harnesses send "" for "none") is none; documented as such, so a
# client reading the OpenAPI document sends what is accepted (surrounding spaces are stripped).
OPTIONAL_SESSION_ID_PATTERN = rf"^\s*(?:[A-Za-z0-9][{SESSION_ID_CHARS}]{{0,{SESSION_ID_MAX - 1}}})?\s*$"
OptionalSessionId = Annotated[
    Annotated[
        str,
        StringConstraints(strip_whitespace=True),
        _checked(SESSION_ID_PATTERN, SESSION_ID_RULE),
        _documented(OPTIONAL_SESSION_ID_PATTERN, f"{SESSION_ID_RULE}, or blank for none"),
    ]
    | None,
    BeforeValidator(_blank_is_none),
]
AgentId = Annotated[
    str, _checked(AGENT_ID_PATTERN, AGENT_ID_RULE), _documented(AGENT_ID_PATTERN, AGENT_ID_RULE)
]
TokenName = Annotated[
    str, _checked(TOKEN_NAME_PATTERN, TOKEN_NAME_RULE), _documented(TOKEN_NAME_PATTERN, TOKEN_NAME_RULE)
]


def is_session_id(value: str) -> bool:
    """``value`` passes the session id rule (the alphabet and length; the secret check aside)."""
    return re.fullmatch(SESSION_ID_PATTERN, value) is not None
