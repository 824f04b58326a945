"""Project path normalisation the server can do: lexical only (it cannot see the agent's disk)."""

from __future__ import annotations

import ntpath
import posixpath
import re

from continuity_core.redaction import redact

_WINDOWS_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")


def normalize_project(path: str | None) -> str | None:
    """Collapse ``.``/``..``/duplicate separators and trailing slashes; keep case on POSIX; redact
    secrets as in free text. The one form of a project that is stored, shown and looked up (its
    keys hold only its hash: ``kernel/dynamo_items.project_hash``).

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
        return redact(normalized[0].lower() + normalized[1:])
    normalized = posixpath.normpath(text)
    # POSIX keeps a leading "//" as implementation-defined; fold it to one root.
    if normalized.startswith("//"):
        normalized = "/" + normalized.lstrip("/")
    return redact(normalized)


# Not the project's own files, wherever they sit: dependencies, build output, caches.
_NOT_OWN = re.compile(
    r"(?:^|/)(?:node_modules|site-packages|dist-packages|\.venv|venv|vendor|\.cargo|\.m2|\.gradle|"
    r"__pycache__|\.git|\.tox|\.mypy_cache|\.pytest_cache|\.next|bower_components|Pods)(?:/|$)"
    r"|^(?:/usr|/opt|/etc|/var|/tmp|/private|/nix|/System|/Library|/Applications)/|(?:^|/)go/pkg/mod/"
)
_EXTENSIONLESS_FILES = frozenset(
    [
        "Makefile",
        "Dockerfile",
        "Containerfile",
        "Gemfile",
        "Rakefile",
        "Procfile",
        "Justfile",
        "Vagrantfile",
        "Brewfile",
        "LICENSE",
        "README",
        "CODEOWNERS",
        "Jenkinsfile",
        "Podfile",
        "Cartfile",
        "Pipfile",
    ]
)


def project_file(path: str, roots: list[str]) -> str | None:
    """``path`` as the project's own file, relative to the project root it sits under; None for a
    URL, a directory, a route, a file elsewhere (another checkout, a home directory, the system),
    a dependency or build output."""
    text = path.strip().rstrip(".,:;)").removeprefix("@")  # Claude Code's @-mention of a file
    if not text or "://" in text or text.endswith("/"):
        return None
    if text.startswith(("/", "~")):
        for root in roots:
            prefix = root.rstrip("/") + "/"
            if root and text.startswith(prefix) and len(text) > len(prefix):
                text = text[len(prefix) :]
                break
        else:
            return None
    text = text.removeprefix("./")
    if _NOT_OWN.search(text) or _NOT_OWN.search("/" + text):
        return None
    return text


def names_a_file(path: str) -> bool:
    """The last part of ``path`` looks like a file (an extension, or a well-known bare name), not a
    directory or a route."""
    name = path.rstrip("/").rsplit("/", 1)[-1]
    stem, dot, extension = name.rpartition(".")
    return (bool(dot) and bool(stem) and extension.isalnum() and not extension.isdigit()) or (
        name in _EXTENSIONLESS_FILES
    )
