"""Is this URL the Continuity service, and does it take this token? For ``login`` (before it saves
anything) and ``doctor``.

The URL is the service's base: hooks add ``/api/hooks/...`` to it. A URL ending in ``/api`` (the
common slip) would make every hook a 404 that is dropped, so ``login`` drops the suffix, and
``doctor`` reports it as a failure when the URL comes from the environment or an older config.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from continuity_client.hook.transport import Response, TransportError, request

PROBE_TIMEOUT_S = 5.0
API_SUFFIX = "/api"
BASE_URL_FIX = (
    "use the service's base URL, without /api (as `make deploy` prints it, or http://127.0.0.1:8787)"
)


def normalise_url(url: str) -> tuple[str, str | None]:
    """(the base URL, a note when something was dropped): no trailing slash, no trailing ``/api``."""
    base = url.strip().rstrip("/")
    if base.lower().endswith(API_SUFFIX):
        base = base[: -len(API_SUFFIX)].rstrip("/")
        return base, f"dropped the trailing /api: the URL is the service's base ({base})"
    return base, None


def base_url_problem(url: str) -> str | None:
    if url.rstrip("/").lower().endswith(API_SUFFIX):
        return f"the URL {url} ends in /api: every hook would go to /api/api/... and be dropped"
    return None


class ProbeError(Exception):
    """What is wrong, in words, and how to fix it."""

    def __init__(self, message: str, fix: str = "") -> None:
        super().__init__(message)
        self.fix = fix


def health(url: str, env: Mapping[str, str], timeout: float = PROBE_TIMEOUT_S) -> Response:
    """``GET /api/health``, which only the service answers ``{"status": "ok"}``; ProbeError otherwise."""
    try:
        answer = request("GET", url, "/api/health", None, {}, timeout, env)
    except TransportError as error:
        fix = "check the URL and your network (is the service running?)"
        if "CERTIFICATE" in str(error).upper():
            fix = "install CA certificates for this Python (or set SSL_CERT_FILE)"
        raise ProbeError(f"cannot reach {url}: {error}", fix) from None
    try:
        body = json.loads(answer.body or b"{}")
    except ValueError:
        body = None
    if answer.status != 200 or not isinstance(body, dict) or body.get("status") != "ok":
        raise ProbeError(
            f"no Continuity service at {url}: GET /api/health answered {answer.status}", BASE_URL_FIX
        )
    return answer


def token_accepted(url: str, token: str, env: Mapping[str, str], timeout: float = PROBE_TIMEOUT_S) -> str:
    """What the token may do, in words; ProbeError when the service refuses it.

    Two probes that store nothing: ``GET /api/checkpoints?limit=1`` (the ``read`` scope: 422, the
    project is missing) and an explicit checkpoint of a session that does not exist (the ``hooks``
    scope: 404). A token without the scope gets 403 from the service; a refusal by the authorizer
    has API Gateway's shape (``{"message": ...}``)."""
    read = _scope_probe(url, token, "GET", "/api/checkpoints?limit=1", None, env, timeout)
    hooks = _scope_probe(url, token, "POST", f"/api/sessions/{PROBE_SESSION}/checkpoint", b"{}", env, timeout)
    can = [what for what, allowed in ((HOOKS_CAN, hooks), (READ_CAN, read)) if allowed]
    lacks = [what for what, allowed in ((HOOKS_LACK, hooks), (READ_LACK, read)) if not allowed]
    said = "token accepted by the service: it " + (" and ".join(can) if can else "has neither scope")
    return said + "".join(f"; {lack}" for lack in lacks)


PROBE_SESSION = "continuity-login-scope-probe"  # never a harness's session key
HOOKS_CAN = "may post hooks (scope hooks)"
READ_CAN = "may read what the service holds (scope read)"
HOOKS_LACK = "it lacks the hooks scope: this machine's hooks would be refused"
READ_LACK = "it lacks the read scope: status, recover, preview and search would be refused"


def _scope_probe(
    url: str, token: str, method: str, path: str, body: bytes | None, env: Mapping[str, str], timeout: float
) -> bool:
    """Whether the token passes the authorizer and the route's scope check."""
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    try:
        answer = request(method, url, path, body, headers, timeout, env)
    except TransportError as error:
        raise ProbeError(f"token check failed: {error}") from None
    try:
        parsed = json.loads(answer.body or b"{}")
    except ValueError:
        parsed = {}
    from_service = isinstance(parsed, dict) and "error" in parsed
    if answer.status in (401, 403) and not from_service:
        raise ProbeError(
            f"the service refused the token ({answer.status})", "check the token (`continuity token list`)"
        )
    if answer.status >= 500:
        raise ProbeError(f"token check: the service answered {answer.status}", "try again shortly")
    return answer.status != 403
