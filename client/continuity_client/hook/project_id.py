"""The project a session belongs to: its repository, not the folder it was opened in.

The same repository on a laptop, a desktop, in a container or in two worktrees is one project, so
a session on one recovers the work of another. The id, first rule that applies:

1. ``CONTINUITY_PROJECT`` (the environment): that id, as written.
2. A ``.continuity-project`` file in the folder or a parent, up to the repository root (the nearest
   wins). It is committed, so every clone agrees on it. Holding an id (its first line): that id.
   Empty, in a sub-folder: that sub-folder is a project of its own inside the repository
   (a monorepo package), ``<repository id>/<path inside the repository>``.
3. The repository's remote (``origin``, else the first one), normalised: scheme, credentials, port,
   ``.git`` and case removed (``git@GitHub.com:Acme/Shop.git`` → ``github.com/acme/shop``).
4. The real path of the folder (of the repository root inside a repository without a remote).

A sub-folder without its own file belongs to the repository's project: a harness opened in
``packages/api`` shares the project of one opened at the root unless the package says otherwise.

Read from ``.git`` directly (no ``git`` subprocess: the hook path has milliseconds): a worktree's
``.git`` is a file naming its gitdir, whose ``commondir`` leads to the main repository's config;
its own ``HEAD`` gives the branch. Credentials in a remote never leave this function.

On the hook path: imports only ``os``.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing costs milliseconds at import; mypy reads this as True
if TYPE_CHECKING:
    from collections.abc import Mapping

PROJECT_ENV = "CONTINUITY_PROJECT"
PROJECT_FILE = ".continuity-project"
MAX_ID_CHARS = 512  # an id that long is no id: ignored
MAX_CONFIG_BYTES = 256 * 1024


class ProjectIdentity:
    """The project id, where it came from, and what the folder is in it."""

    __slots__ = ("branch", "id", "path", "root", "source")

    def __init__(self, id: str, path: str, root: str, branch: str | None, source: str) -> None:
        self.id = id
        self.path = path  # the real path of the folder the id was derived for
        self.root = root  # the repository root (the folder itself outside a repository)
        self.branch = branch
        self.source = source  # "environment", "file", "remote" or "path"


def _read(path: str, limit: int = 4096) -> str | None:
    try:
        with open(path, "rb") as handle:
            return handle.read(limit).decode("utf-8", "replace")
    except (OSError, ValueError):
        return None


def find_repository(start: str) -> tuple[str, str, str] | None:
    """(root, gitdir, common gitdir) of the repository holding ``start``, or None."""
    folder = start
    while True:
        dot_git = os.path.join(folder, ".git")
        if os.path.isdir(dot_git):
            return folder, dot_git, _common(dot_git)
        if os.path.isfile(dot_git):  # a worktree (or a submodule): "gitdir: <path>"
            text = (_read(dot_git) or "").strip()
            if text.startswith("gitdir:"):
                gitdir = os.path.normpath(os.path.join(folder, text[len("gitdir:") :].strip()))
                return folder, gitdir, _common(gitdir)
        parent = os.path.dirname(folder)
        if not parent or parent == folder:
            return None
        folder = parent


def _common(gitdir: str) -> str:
    pointer = (_read(os.path.join(gitdir, "commondir")) or "").strip()
    return os.path.normpath(os.path.join(gitdir, pointer)) if pointer else gitdir


def remotes(config_text: str) -> list[tuple[str, str]]:
    """(name, url) of each remote in a git config file, in file order."""
    found: list[tuple[str, str]] = []
    section = None
    for raw in config_text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            header = line[1 : line.find("]")] if "]" in line else line[1:]
            kind, _, name = header.partition(" ")
            quoted = name.strip()
            if kind.strip().lower() == "remote" and len(quoted) >= 2 and quoted[0] == quoted[-1] == '"':
                section = quoted[1:-1]
            else:
                section = None
            continue
        key, sep, value = line.partition("=")
        if section is not None and sep and key.strip().lower() == "url":
            url = value.strip()
            if len(url) >= 2 and url[0] == url[-1] == '"':
                url = url[1:-1]
            if url:
                found.append((section, url))
    return found


def chosen_remote(config_text: str) -> str | None:
    """``origin``'s url, else the first remote's."""
    listed = remotes(config_text)
    for name, url in listed:
        if name == "origin":
            return url
    return listed[0][1] if listed else None


def normalize_remote(url: str, root: str = "/") -> str | None:
    """``host/owner/repo`` in lower case: no scheme, credentials, port or ``.git``. A local remote
    (a path, ``file://``) is its absolute path without ``.git``. None when nothing is left."""
    text = url.strip()
    if not text:
        return None
    host = ""
    if "://" in text:
        scheme, _, rest = text.partition("://")
        if scheme.lower() == "file":
            path = rest
        else:
            authority, _, path = rest.partition("/")
            host = _host(authority.rpartition("@")[2])
    elif ":" in text and "/" not in text.partition(":")[0] and len(text.partition(":")[0]) > 1:
        # scp-like: [user@]host:path (a single letter before ":" is a Windows drive)
        authority, _, path = text.partition(":")
        host = _host(authority.rpartition("@")[2])
    else:
        drive = len(text) > 2 and text[1] == ":" and text[0].isalpha()  # C:/repos/shop.git
        path = text if os.path.isabs(text) or drive else os.path.join(root, text)
    parts = [p for p in path.replace("\\", "/").split("/") if p and p != "."]
    if parts and parts[-1].lower().endswith(".git"):
        parts[-1] = parts[-1][: -len(".git")]
    parts = [p for p in parts if p]
    if not host:  # a local remote: its absolute path
        return os.path.normpath("/" + "/".join(parts)).lower() if parts else None
    return "/".join([host, *parts]).lower()


def _host(authority: str) -> str:
    if authority.startswith("["):  # [IPv6]:port
        return authority[: authority.find("]") + 1] if "]" in authority else authority
    return authority.partition(":")[0]


def branch_of(gitdir: str) -> str | None:
    """The checked-out branch (None when detached or unreadable)."""
    head = (_read(os.path.join(gitdir, "HEAD"), 1024) or "").strip()
    prefix = "ref: refs/heads/"
    if not head.startswith(prefix):
        return None
    return head[len(prefix) :] or None


def explicit_id(text: str | None) -> str | None:
    """An id as a person wrote it: its first line, trimmed; None when empty, too long or not text."""
    if text is None:
        return None
    line = text.strip().splitlines()[0].strip() if text.strip() else ""
    if not line or len(line) > MAX_ID_CHARS or any(ord(c) < 32 or ord(c) == 127 for c in line):
        return None
    return line


def _project_file(folder: str, root: str) -> tuple[str, str] | None:
    """(folder holding the nearest ``.continuity-project``, its text), from ``folder`` up to ``root``."""
    current = folder
    while True:
        text = _read(os.path.join(current, PROJECT_FILE), MAX_ID_CHARS + 2)
        if text is not None:
            return current, text
        if current == root:
            return None
        parent = os.path.dirname(current)
        if not parent or parent == current:
            return None
        current = parent


def derive(folder: str, env: Mapping[str, str]) -> ProjectIdentity:
    """The project of ``folder`` (a real path), by the rules in the module's docstring."""
    found = find_repository(folder)
    root = found[0] if found else folder
    branch = branch_of(found[1]) if found else None
    given = explicit_id(env.get(PROJECT_ENV))
    if given:
        return ProjectIdentity(given, folder, root, branch, "environment")
    marker = _project_file(folder, root)
    named = explicit_id(marker[1]) if marker else None
    if named:
        return ProjectIdentity(named, folder, root, branch, "file")
    base, source = None, "path"
    if found:
        root_marker = _project_file(root, root) if marker and marker[0] != root else None
        base = explicit_id(root_marker[1]) if root_marker else None
        source = "file" if base else source
        if base is None:
            url = chosen_remote(_read(os.path.join(found[2], "config"), MAX_CONFIG_BYTES) or "")
            base = normalize_remote(url, root) if url else None
            source = "remote" if base else source
    if base is None:
        base = root
    if marker and marker[0] != root:
        # An empty marker in a sub-folder: a project of its own inside the repository.
        inside = os.path.relpath(marker[0], root).replace(os.sep, "/")
        return ProjectIdentity(f"{base.rstrip('/')}/{inside}", folder, root, branch, source)
    return ProjectIdentity(base, folder, root, branch, source)
