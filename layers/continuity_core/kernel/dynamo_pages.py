"""The one page-token codec: a query's ``LastEvaluatedKey`` as an opaque ``next_token``, and back.

A token carries the key attributes the caller's scope does not fix (the ledger's sort key; a session
listing's session and index sort key) and a short digest of that scope, not the scope itself:
tokens stay short however long the project path, and a token is refused outside the listing (tenant,
project) it came from. Decoding puts the caller's own scope values back, so a token can only ever
continue a listing inside the caller's partition. A token that is not base64url JSON of exactly the
expected attributes, each with its expected prefix, under the caller's scope digest, is
``InvalidPageTokenError`` (400 at the HTTP edge).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Mapping
from typing import Any

from continuity_core.kernel.errors import InvalidPageTokenError

_START_AGAIN = "; leave it out to start from the first page"


def encode_page_token(last_key: Mapping[str, Any], scope: Mapping[str, str]) -> str:
    """``last_key`` (typed, as DynamoDB answers it) without the attributes ``scope`` fixes."""
    key = {name: value["S"] for name, value in last_key.items() if name not in scope}
    text = json.dumps({"key": key, "scope": _digest(scope)}, sort_keys=True, separators=(",", ":"))
    return base64.urlsafe_b64encode(text.encode("utf-8")).decode("ascii").rstrip("=")


def decode_page_token(token: str, scope: Mapping[str, str], prefixes: Mapping[str, str]) -> dict[str, Any]:
    """The ``ExclusiveStartKey`` behind ``token``: its attributes (named by ``prefixes``, each
    starting with its prefix) and the ``scope``'s."""
    try:
        document = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
    except (binascii.Error, ValueError) as error:  # UnicodeDecodeError and JSON errors are ValueErrors
        raise InvalidPageTokenError("next_token is not one this API handed out" + _START_AGAIN) from error
    key = document.get("key") if isinstance(document, dict) else None
    if (
        not isinstance(key, dict)
        or document.get("scope") != _digest(scope)
        or set(key) != set(prefixes)
        or not all(isinstance(v, str) and v.startswith(prefixes[name]) for name, v in key.items())
    ):
        raise InvalidPageTokenError("next_token is not one this API handed out for this list" + _START_AGAIN)
    return {name: {"S": value} for name, value in {**key, **scope}.items()}


def _digest(scope: Mapping[str, str]) -> str:
    text = json.dumps(dict(scope), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
