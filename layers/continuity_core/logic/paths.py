"""Project path normalisation the server can do: lexical only (it cannot see the agent's disk)."""

from __future__ import annotations

import ntpath
import posixpath
import re

_WINDOWS_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")


def normalize_project(path: str | None) -> str | None:
    """Collapse ``.``/``..``/duplicate separators and trailing slashes; keep case on POSIX.

    The client sends ``project_normalized`` (realpath resolved on the agent's machine); this is
    the fallback when it is absent.
    """
    if path is None:
        return None
    text = path.strip()
    if not text:
        return None
    if _WINDOWS_DRIVE.match(text) or text.startswith("\\\\"):
        normalized = ntpath.normpath(text).replace("\\", "/")
        return normalized[0].lower() + normalized[1:]
    normalized = posixpath.normpath(text)
    # POSIX keeps a leading "//" as implementation-defined; fold it to one root.
    if normalized.startswith("//"):
        normalized = "/" + normalized.lstrip("/")
    return normalized
