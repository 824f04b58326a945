"""Code the session removed: what was said about it no longer describes the code.

An agent's finding about ``foo()`` ("`foo()` swallows the timeout") stands until the session removes
or replaces ``foo``. The transcript says so in a commit message ("Remove foo(): …", from ``git commit``'s
output) or in the agent's own words ("I removed `foo()`", "deleted the `LegacyCache` class", "replaced
`parse_v1` with `parse`"). The findings, questions and the agent's decisions that name what was
removed (as code: backticked, or called with parentheses) end, superseded by that statement.
Files are not ended here (a deleted file is ``rolling``'s), nor the user's rules.
"""

from __future__ import annotations

import re

from continuity_core.checkpoints.digest_work import Statement, WorkingDigest, end_fact
from continuity_core.models.session_digest import FactKind, FactSource, FactStatus

_REMOVAL = re.compile(
    r"\b(?:remov(?:e|ed|es|ing)|delet(?:e|ed|es|ing)|drop(?:ped|s)?|replac(?:e|ed|es|ing)|got rid of|"
    r"rip(?:ped)? out|strip(?:ped)? out|eliminat(?:e|ed|es))\b",
    re.IGNORECASE,
)
# What names code: a backticked identifier, or a name called with parentheses.
_CODE_NAME = re.compile(r"`([A-Za-z_][\w.]*)(?:\(\))?`|\b([A-Za-z_][\w.]*)\(\)")
_SAID_OF_CODE = (FactKind.FINDING, FactKind.QUESTION, FactKind.DECISION)
WINDOW_CHARS = 80  # a name counts as removed when it follows the removal verb within this much


def removed_names(text: str) -> set[str]:
    """The code names a sentence says were removed or replaced: each named just after a removal verb."""
    names: set[str] = set()
    for verb in _REMOVAL.finditer(text):
        after = text[verb.end() : verb.end() + WINDOW_CHARS]
        after = re.split(r"[.;:!?\n]|\bwith\b|\bby\b", after, maxsplit=1)[0]  # "replaced X with Y": X only
        for found in _CODE_NAME.finditer(after):
            name = found.group(1) or found.group(2)
            if name and len(name) > 1:
                names.add(name)
    return names


def end_what_names(work: WorkingDigest, names: set[str], statement: Statement) -> None:
    """What the session said of code it then removed: ended, superseded by the statement that says so."""
    if not names:
        return
    named = re.compile(r"(?<![\w.])(?:" + "|".join(re.escape(n) for n in sorted(names)) + r")(?![\w])")
    for index, fact in enumerate(work.facts):
        if (
            fact.status is FactStatus.ACTIVE
            and fact.kind in _SAID_OF_CODE
            and not (fact.kind is FactKind.DECISION and fact.source is FactSource.PROMPT)
            and (fact.prompt or 0) <= (statement.prompt or 0)
            and fact.text.strip() != statement.text.strip()
            and named.search(fact.text)
            and not removed_names(fact.text) & names  # the statement of the removal itself
        ):
            end_fact(work, index, FactStatus.SUPERSEDED, statement.text, statement)
