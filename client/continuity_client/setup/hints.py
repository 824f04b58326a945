"""Install commands that fit how this client was installed.

``pip install 'continuity-client[mcp]'`` only works for a client from a package index; one installed
from the wheel file (`make client`), from the source folder or with pipx needs its own command. The
installer leaves where it came from in ``direct_url.json`` (PEP 610); pipx is seen in the prefix.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
import urllib.parse

DISTRIBUTION = "continuity-client"


def installed_from() -> dict | None:
    """The distribution's ``direct_url.json`` (a wheel file, a folder), None from an index."""
    try:
        from importlib.metadata import PackageNotFoundError, distribution

        text = distribution(DISTRIBUTION).read_text("direct_url.json")
    except (PackageNotFoundError, OSError):
        return None
    try:
        found = json.loads(text) if text else None
    except ValueError:
        return None
    return found if isinstance(found, dict) else None


def extra_hint(extra: str, origin: dict | None = None, prefix: str | None = None) -> str:
    """The command that adds ``extra`` (``mcp``, ``zstd``) to this client, as it was installed."""
    origin = installed_from() if origin is None else origin
    prefix = sys.prefix if prefix is None else prefix
    source = DISTRIBUTION
    url = str(origin.get("url") or "") if origin else ""
    if url.startswith("file://"):
        source = urllib.parse.unquote(urllib.parse.urlsplit(url).path)
    elif url:
        source = url
    editable = bool(origin and (origin.get("dir_info") or {}).get("editable"))
    requirement = shlex.quote(f"{source}[{extra}]")
    if f"{os.sep}pipx{os.sep}" in prefix + os.sep or f"{os.sep}.pipx{os.sep}" in prefix:
        return f"pipx install --force {requirement}"
    pip = f"{shlex.quote(sys.executable)} -m pip install"
    return f"{pip} -e {requirement}" if editable else f"{pip} {requirement}"
