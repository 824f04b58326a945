"""GET /dashboard and its static files: the web app bundled with this function.

The files are read once per cold start from ``static/`` beside this module (the function's code
asset), so the deployed dashboard is exactly what was built with the stack, from the API's own
origin. Only files in that folder are served, by name: nothing from the path reaches the file
system. Every answer carries the Content-Security-Policy that keeps stored text from running:
scripts, styles and requests to this origin only, no inline script, no framing.
"""

from __future__ import annotations

import hashlib
import mimetypes
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

STATIC = Path(__file__).resolve().parent / "static"
INDEX = "index.html"
ENTRY = "app.js"  # the module index.html loads
FAVICON = "favicon.svg"  # also the answer to /favicon.ico

SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; "
        "frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    # Revalidate every time (an ETag makes it a 304): a deploy shows at once, nothing stale.
    "Cache-Control": "no-cache",
}
_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}


@dataclass(frozen=True)
class Asset:
    body: str
    content_type: str
    etag: str


@lru_cache(maxsize=1)
def assets() -> dict[str, Asset]:
    """Every file under ``static/`` by its path there (``app.js``, ``pages/sessions.js``)."""
    found = {}
    for path in sorted(STATIC.rglob("*")):
        if not path.is_file():
            continue
        body = path.read_text(encoding="utf-8")
        kind = _TYPES.get(path.suffix) or mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        if kind.startswith("text/") and "charset" not in kind:
            kind += "; charset=utf-8"
        found[path.relative_to(STATIC).as_posix()] = _asset(body, kind)
    if INDEX in found:
        found[INDEX] = _asset(with_preloads(found[INDEX].body, found), found[INDEX].content_type)
    return found


def with_preloads(index: str, found: dict[str, Asset]) -> str:
    """``index.html`` with a ``modulepreload`` link for every module but the entry point: the
    browser fetches them all beside ``app.js`` instead of after reading it, one round trip less
    before a page can ask for its data (each file is a request to this function)."""
    modules = [name for name in found if name.endswith(".js") and name != ENTRY]
    links = "".join(f'  <link rel="modulepreload" href="/dashboard/{name}">\n' for name in modules)
    return index.replace("</head>", links + "</head>", 1)


def _asset(body: str, content_type: str) -> Asset:
    return Asset(body, content_type, '"' + hashlib.sha256(body.encode()).hexdigest()[:32] + '"')


def _answer(status: int, headers: dict[str, str], body: str = "") -> dict[str, Any]:
    return {"statusCode": status, "headers": {**SECURITY_HEADERS, **headers}, "body": body}


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    method = (event.get("requestContext") or {}).get("http", {}).get("method", "GET").upper()
    name = ((event.get("pathParameters") or {}).get("proxy") or INDEX).strip("/") or INDEX
    if event.get("rawPath") == "/favicon.ico":
        name = FAVICON
    asset = assets().get(name)
    if method not in ("GET", "HEAD"):
        return _answer(405, {"Content-Type": "application/json", "Allow": "GET, HEAD"}, _error(405))
    if asset is None:
        return _answer(404, {"Content-Type": "application/json"}, _error(404))
    headers = {"Content-Type": asset.content_type, "ETag": asset.etag}
    if (event.get("headers") or {}).get("if-none-match") == asset.etag:
        return _answer(304, headers)
    return _answer(200, headers, "" if method == "HEAD" else asset.body)


def _error(status: int) -> str:
    code, detail = {404: ("not_found", "no such file"), 405: ("method_not_allowed", "GET only")}[status]
    return f'{{"error": "{code}", "detail": "{detail}"}}'
