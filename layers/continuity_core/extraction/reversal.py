"""Evidence that a choice was replaced, read from grammar and tool calls rather than cue phrases.

- ``set_aside``: the words a sentence dismisses — the object of a setting-aside verb or a negation
  ("scrap the hand-rolled build", "not webpack", "skip HDR") or what is said to be out ("pg is out",
  "offset is too slow").
- ``taken_up``: the words it adopts — the object of a verb that adds or uses something ("add a proper
  HDR10 rung", "enable the cache").
- ``names``: whether a word names a value of an older statement: the same word, an abbreviation of
  it (its start: "pg" for ``pgRouting``), or the stem of a file or identifier it named ("build" for
  ``build.mjs``).
- ``removed_packages``: what a shell command uninstalls (npm, yarn, pnpm, pip, poetry, uv, cargo,
  go, brew, gem, composer).

Pure text; ``checkpoints/supersession.py`` decides what the evidence replaces.
"""

from __future__ import annotations

import re
import shlex
from functools import lru_cache

from continuity_core.extraction.salience import background
from continuity_core.extraction.terms import STOPWORDS

_WORD = re.compile(r"[^\W_][\w'\u2019+#-]*(?:\.[\w-]+)*", re.UNICODE)
# Negations and verbs that set their object aside.
_DISMISSING = frozenset(
    {
        "no",
        "not",
        "never",
        "without",
        "forget",
        "scrap",
        "scrapped",
        "drop",
        "dropped",
        "ditch",
        "ditched",
        "skip",
        "skipped",
        "nvm",
        "nevermind",
        "remove",
        "removed",
        "abandon",
        "abandoned",
        "kill",
        "rip",
        "don't",
        "dont",
        "nope",
    }
)
# After the value: "X is out", "X is too slow", "X isn't …", "X won't …".
_OUT = re.compile(
    r"^(?:is|are|was) (?:too|out|gone|dead|overkill)\b|^(?:isn'?t|aren'?t|won'?t|doesn'?t)\b", re.IGNORECASE
)
# Verbs that take their object up.
_ADOPTING = frozenset(
    {
        "add",
        "adding",
        "added",
        "use",
        "using",
        "enable",
        "enabling",
        "enabled",
        "support",
        "supporting",
        "include",
        "including",
        "introduce",
        "bring",
        "adopt",
        "keep",
    }
)
REACH = 3  # content words after a verb (or before "is out") that are its object
ABBREVIATION_RARITY = 0.5  # a word this rare may stand for a longer name it starts ("pg")
STEM_CHARS = 4  # a part of a file or identifier name this long names it
# A clause ends at punctuation: "no webpack, esbuild is fine" sets aside webpack alone.
_CLAUSE = re.compile(r"[,;:!?()\u2014\u2013]|\.(?:\s|$)|\s-\s|\bbut\b", re.IGNORECASE)
_FILLER = STOPWORDS | frozenset({"the", "a", "an", "this", "that", "it", "them", "those", "these", "our"})


def words(text: str) -> list[str]:
    """Its words, lower-case, trailing punctuation off."""
    return [w.lower().replace("\u2019", "'").rstrip(".-'") for w in _WORD.findall(text)]


def _content(said: list[str]) -> list[str]:
    return [w for w in said if w and w not in _FILLER and not w.isdigit()]


def set_aside(text: str) -> frozenset[str]:
    """The words ``text`` dismisses (questions dismiss nothing: "no redis?" asks)."""
    return _objects(text, dismissing=True)


def taken_up(text: str) -> frozenset[str]:
    """The words ``text`` adopts: the objects of its adding or using verbs (none in a question)."""
    return _objects(text, dismissing=False)


@lru_cache(maxsize=8192)  # every older fact is read again for each new message
def _objects(text: str, *, dismissing: bool) -> frozenset[str]:
    """The objects of its dismissing (or adopting) words, clause by clause; with ``dismissing``, also
    what is said to be out ("pg is out"). A negated adopting verb ("don't add") adopts nothing."""
    if text.rstrip().endswith("?"):
        return frozenset()
    verbs = _DISMISSING if dismissing else _ADOPTING
    found: set[str] = set()
    for clause in _CLAUSE.split(text):
        said = words(clause)
        for at, word in enumerate(said):
            negated = not dismissing and at > 0 and said[at - 1] in _DISMISSING
            if word in verbs and not negated:
                found |= set(_content(said[at + 1 :])[:REACH])
            elif dismissing and _OUT.match(" ".join(said[at + 1 : at + 4])):
                found |= set(_content(said[max(0, at - 1) : at + 1]))
    return frozenset(found)


@lru_cache(maxsize=8192)
def name_parts(text: str) -> frozenset[str]:
    """The parts of the files and identifiers ``text`` names: ``build.mjs`` → build;
    ``auto_grouping`` → auto, grouping (parts of ``STEM_CHARS`` letters or more)."""
    parts: set[str] = set()
    for name in re.findall(r"\b\w+(?:[_.-]\w+)+\b", text):
        parts |= {p for p in re.split(r"[_.-]", name.lower()) if len(p) >= STEM_CHARS and p.isalpha()}
    return frozenset(parts)


def names(word: str, values: frozenset[str] | set[str], parts: frozenset[str] | set[str]) -> bool:
    """Whether ``word`` names one of ``values`` (an older statement's telling words and tokens,
    lower-case) or ``parts`` (its file and identifier parts)."""
    if word in values or word in parts:
        return True
    # an abbreviation is no everyday word ("work" does not stand for ``workflow_dispatch``)
    if not word.isalpha() or len(word) < 2 or background().rarity(word) < ABBREVIATION_RARITY:
        return False
    return any(v.startswith(word) and len(v) >= len(word) + 2 for v in values)


_INSTALLERS = re.compile(
    r"(?:^|&&|;|\|\||\|)\s*(?:sudo\s+)?"
    r"(?:(npm|pnpm|yarn|bun)\s+(?:uninstall|remove|rm|un)|(pip3?|uv\s+pip|python3?\s+-m\s+pip)\s+uninstall|"
    r"(poetry|uv|cargo|pdm|rye|composer|gem|brew)\s+(?:remove|uninstall|rm))\s+([^;&|]+)",
    re.IGNORECASE,
)
_INSTALLING = re.compile(
    r"\b(?:npm|pnpm|yarn|bun)\s+(?:install|add|i)\b|\bpip3?\s+install\b|\b(?:poetry|uv|cargo)\s+add\b", re.I
)
_GO_NONE = re.compile(r"\bgo\s+get\s+([\w./-]+)@none\b")


def removed_packages(command: str) -> set[str]:
    """The packages ``command`` uninstalls (names lower-case, scope and version off), unless it installs
    them again ("npm remove x && npm i x@2" upgrades, it does not remove)."""
    removed: set[str] = set()
    for match in _INSTALLERS.finditer(command):
        try:
            args = shlex.split(match.group(4))
        except ValueError:
            args = match.group(4).split()
        removed |= {_package(a) for a in args if a and not a.startswith("-")}
    removed |= {_package(m.group(1)) for m in _GO_NONE.finditer(command)}
    installing = _INSTALLING.search(command)
    if removed and installing is not None:
        again = {_package(w) for w in command[installing.end() :].split()}
        removed -= again
    return {p for p in removed if p}


def _package(arg: str) -> str:
    """``@scope/name@1.2`` → name; ``requests==2.31`` → requests; ``github.com/x/y`` → y."""
    name = arg.strip().lower().rsplit("/", 1)[-1]
    return re.split(r"[@=<>~!\[]", name, maxsplit=1)[0]
