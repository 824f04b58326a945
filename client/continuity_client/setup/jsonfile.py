"""Read and write a user's JSON settings file without reformatting it.

A settings file belongs to the user: we keep its key order (Python dicts keep it), its
indentation, its separators, its escaping of non-ASCII and its final newline, so that our edit is
the only difference a ``git diff`` shows.
"""

from __future__ import annotations

import json
import os
import re

INDENT = re.compile(r"\n([ \t]+)[\"}\]]")
KEY_SEPARATOR = re.compile(r'"\s*(:\s*)')


class Style:
    __slots__ = ("ensure_ascii", "indent", "item_separator", "key_separator", "newline")

    def __init__(self, text: str = "") -> None:
        body = text.strip()
        multiline = "\n" in body
        found = INDENT.search(body)
        self.indent: str | None = (found.group(1) if found else "") if multiline else None
        key = KEY_SEPARATOR.search(body)
        self.key_separator = key.group(1).replace("\n", "") if key else ": "
        if multiline:
            self.item_separator = ","
        else:
            self.item_separator = ", " if re.search(r",\s", body) else ("," if body else ", ")
        if not body:
            self.indent, self.key_separator, self.item_separator = "  ", ": ", ","
        # \u escapes in a pure-ASCII file: keep escaping; raw non-ASCII: keep raw.
        self.ensure_ascii = body.isascii() and "\\u" in body
        self.newline = text.endswith("\n") or not body

    def dumps(self, data: object) -> str:
        text = json.dumps(
            data,
            indent=self.indent,
            separators=(self.item_separator, self.key_separator),
            ensure_ascii=self.ensure_ascii,
        )
        return text + ("\n" if self.newline else "")


def read(path: str) -> tuple[dict, Style, bytes | None]:
    """(data, style, original bytes or None when the file does not exist)."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except FileNotFoundError:
        return {}, Style(""), None
    text = raw.decode("utf-8-sig")
    if not text.strip():
        return {}, Style(""), raw
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError("the top level is not a JSON object")
    return data, Style(text), raw


def write_bytes(path: str, data: bytes) -> None:
    """Atomic replace that keeps the original file's mode (0600 for a new file's directory-mates)."""
    directory = os.path.dirname(path) or "."
    os.makedirs(directory, exist_ok=True)
    try:
        mode = os.stat(path).st_mode & 0o777
    except FileNotFoundError:
        mode = 0o644
    temporary = f"{path}.continuity-tmp"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.chmod(temporary, mode)
    os.replace(temporary, path)
