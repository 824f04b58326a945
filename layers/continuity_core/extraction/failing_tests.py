"""The tests currently failing, run after run: a test reported failing is added with the prompt it
first failed at, one reported passing is removed, and a run whose summary says nothing failed removes
every failing test of its runner that falls under its scope (``track``, ``falls_under``,
``same_test``); kept in a pydantic model as plain records (``to_records``, ``from_records``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from continuity_core.extraction.verdicts import TestRun

MAX_FAILING = 50  # tests tracked as failing at once; beyond that the first ones are kept


@dataclass(frozen=True)
class Failing:
    """A test currently failing, as first shown failing by the run at ``since_prompt``."""

    test: str
    runner: str
    since_prompt: int


# --- which failing tests a run covers -----------------------------------------------------------------

_PATH_LIKE = re.compile(r"[/\\]|::|\.(?:py|rs|go|[cm]?[jt]sx?|rb|java|kt)(?::\d+|\[[\d:,]+\])?$")
_BOUNDARY = "/:.[ >#"


def _normal_path(path: str) -> str:
    path = path.replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    for tail in ("/...", "/"):
        if path.endswith(tail):
            path = path[: -len(tail)]
    return path


def _covers_path(scope: str, test: str) -> bool:
    path, test = _normal_path(scope), _normal_path(test)
    if not path:
        return True
    # An absolute path names the test from the filesystem's root, the runner from the project's:
    # `pytest /home/ana/shop/tests/test_cart.py` reports `tests/test_cart.py::…`.
    tails = [path[m.end() :] for m in re.finditer("/", path)] if scope.startswith(("/", "~")) else []
    for candidate in (path, *(tail for tail in tails if tail)):
        for start in [0, *(m.end() for m in re.finditer("/", test))]:
            if test.startswith(candidate, start):
                end = start + len(candidate)
                if end == len(test) or test[end] in _BOUNDARY:
                    return True
    return False


def _normal_name(name: str) -> str:
    name = re.sub(r"::| > | \u203a |[#./\\]", "/", name.lower())
    return name.replace("()", "").replace("*", "")


def _matches_filter(pattern: str, test: str, runner: str) -> bool:
    if runner in ("gradle", "maven"):
        pattern = re.sub(r"^(?:[a-z_]\w*\.)+(?=[A-Z*])", "", pattern)  # a Java package
    alternatives = [a.strip("^$ ") for a in pattern.split("|")] if runner in ("go", "ctest") else [pattern]
    name = _normal_name(test)
    return any(a and _normal_name(a) in name for a in alternatives)


def falls_under(test: str, scope: Sequence[str], runner: str = "") -> bool:
    """Whether a run restricted to ``scope`` ran ``test`` (when unsure: no).

    Paths and packages are alternatives, name filters are alternatives, and a test must match one
    of each kind the scope has; "not X" excludes what X names; anything else (an expression, a
    marker, a label, a package flag) cannot be matched against a name, so it covers nothing.
    """
    paths: list[str] = []
    filters: list[str] = []
    for element in scope:
        if element.startswith("not ") and " " not in element[4:].strip():
            excluded = element[4:].strip()
            if _covers_path(excluded, test) or _matches_filter(excluded, test, runner):
                return False
        elif element.startswith("-") or re.search(r"\s", element):
            return False
        elif _PATH_LIKE.search(element) or element.endswith("...") or element == ".":
            paths.append(element)
        else:
            filters.append(element)
    if paths and not any(_covers_path(p, test) for p in paths):
        return False
    return not filters or any(_matches_filter(f, test, runner) for f in filters)


# --- the tests currently failing ---------------------------------------------------------------------


def track(failing: Sequence[Failing], run: TestRun | None, prompt: int) -> tuple[Failing, ...]:
    """The failing set after ``run`` (seen at ``prompt``).

    A test the run reports failing is added (keeping the prompt it first failed at); a test it
    reports passing is removed; a run whose summary says nothing failed removes every failing test
    of the same runner that falls under its scope.
    """
    if run is None:
        return tuple(failing)
    kept: list[Failing] = []
    for entry in failing:
        if entry.runner == run.runner and not any(same_test(entry.test, t) for t in run.failed):
            if any(same_test(entry.test, t) for t in run.passed):
                continue
            if run.all_passed and falls_under(entry.test, run.scope, run.runner):
                continue
        kept.append(entry)
    for test in run.failed:
        if not any(e.runner == run.runner and same_test(e.test, test) for e in kept):
            kept.append(Failing(test=test, runner=run.runner, since_prompt=prompt))
    return tuple(kept[:MAX_FAILING])


def same_test(one: str, other: str) -> bool:
    """One test named from two folders: a run from ``test/`` says ``test_x.py::t``, a run from the
    project's root ``test/test_x.py::t`` (whole path parts only: ``a_test.py`` is not ``test.py``)."""
    if one == other:
        return True
    shorter, longer = sorted((one, other), key=len)
    return longer.endswith(shorter) and longer[-len(shorter) - 1] in "/\\"


def to_records(failing: Iterable[Failing]) -> list[dict[str, str | int]]:
    """Plain records ``{test, runner, prompt}`` for a pydantic model to hold."""
    return [{"test": f.test, "runner": f.runner, "prompt": f.since_prompt} for f in failing]


def from_records(records: Iterable[Mapping[str, object]]) -> tuple[Failing, ...]:
    """The failing set back from ``to_records``'s records (malformed ones are skipped)."""
    failing: list[Failing] = []
    for record in records:
        test, runner, prompt = record.get("test"), record.get("runner"), record.get("prompt")
        if isinstance(test, str) and isinstance(runner, str) and isinstance(prompt, int):
            failing.append(Failing(test=test, runner=runner, since_prompt=prompt))
    return tuple(failing)
