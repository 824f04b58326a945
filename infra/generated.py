"""Sections of a document written by a program: the text between two HTML comment markers.

README.md's configuration table (``infra.config_table``) and its measured table
(``bench.readme_table``) are such sections; a test for each fails when the README's copy is not
what the generator writes now.
"""

from __future__ import annotations


def replace_section(text: str, start: str, end: str, body: str) -> str:
    """``text`` with what lies between the ``start`` and ``end`` markers replaced by ``body``."""
    before, found_start, rest = text.partition(start)
    _, found_end, after = rest.partition(end)
    if not found_start or not found_end:
        raise ValueError(f"no {start!r} ... {end!r} markers")
    return f"{before}{start}\n{body}{end}{after}"
