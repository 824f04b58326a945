"""pytest's and unittest's verdict lines: which tests failed and passed, and whether the summary says
nothing failed (``parse_pytest``, ``parse_unittest``)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from continuity_core.extraction.runner_output import Found

# --- pytest ------------------------------------------------------------------------------------------

_PY_ID = r"[^\s:]+\.py(?:::[^\s\[]+(?:\[[^\]]*\])?)*"
_PYTEST_SUMMARY_ITEM = re.compile(rf"^(FAILED|ERROR|PASSED) ({_PY_ID})(?: - (.*))?$")
_PYTEST_VERBOSE = re.compile(
    rf"^({_PY_ID}) (PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)(?: \(.*\))?(?:\s+\[\s*\d+%\])?$"
)
_PYTEST_XDIST = re.compile(rf"^\[gw\d+\] \[\s*\d+%\] (PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) ({_PY_ID})$")
_PYTEST_SECTION = re.compile(r"^=+ (?:FAILURES|ERRORS|short test summary info|test session starts) =+$")
_PYTEST_TOTALS = re.compile(
    r"^=*\s*((?:\d+ (?:failed|passed|errors?|skipped|deselected|xfailed|xpassed|warnings?|rerun)(?:, )?)+)"
    r"(?: in [\d.]+s(?: \([\d:]+\))?)?\s*=*$"
)
_PYTEST_NONE = re.compile(r"^=*\s*no tests ran(?: in [\d.]+s)?\s*=*$")
_PYTEST_INTERRUPTED = re.compile(r"^!+ .*Interrupted: .* !+$")


def parse_pytest(lines: Sequence[str]) -> Found:
    found = Found()
    totals: list[str] = []
    for line in lines:
        if _PYTEST_SECTION.match(line) or _PYTEST_NONE.match(line) or _PYTEST_INTERRUPTED.match(line):
            found.shape = True
        if m := _PYTEST_TOTALS.match(line):
            if " in " in line or line.startswith("="):
                found.shape = True
                totals.append(m.group(1))
        elif m := _PYTEST_SUMMARY_ITEM.match(line):
            found.shape = True
            verdict, test, message = m.groups()
            if verdict == "PASSED":
                found.ok(test)
            else:
                found.fail(test)
                if message:
                    found.error(message)
        elif m := _PYTEST_VERBOSE.match(line):
            found.shape = True
            _pytest_verdict(found, m.group(2), m.group(1))
        elif m := _PYTEST_XDIST.match(line):
            found.shape = True
            _pytest_verdict(found, m.group(1), m.group(2))
    found.all_passed = bool(totals) and all(
        re.search(r"\d+ passed", t) and not re.search(r"\d+ (failed|errors?)\b", t) for t in totals
    )
    return found


def _pytest_verdict(found: Found, verdict: str, test: str) -> None:
    if verdict == "PASSED":
        found.ok(test)
    elif verdict in ("FAILED", "ERROR"):
        found.fail(test)


# --- unittest ----------------------------------------------------------------------------------------

_UNITTEST_FAILURE = re.compile(r"^(?:FAIL|ERROR|UNEXPECTED SUCCESS): (\w+) \(([\w.]+)\)")
_UNITTEST_VERBOSE = re.compile(r"^(\w+) \(([\w.]+)\)(?: \[.*\])?(?: \(.*\))? \.\.\. (ok|FAIL|ERROR)$")
UNITTEST_RAN = re.compile(r"^Ran (\d+) tests? in [\d.]+s$")
_UNITTEST_OK = re.compile(r"^OK(?: \(.*\))?$")
_UNITTEST_FAILED = re.compile(r"^FAILED \((?:failures|errors|unexpected successes)=\d+.*\)$")


def _unittest_id(name: str, where: str) -> str:
    if where == "unittest.loader._FailedTest" or where.startswith("unittest.loader._FailedTest."):
        return name  # a module that failed to import: unittest names it by the module
    return where if where.endswith("." + name) else f"{where}.{name}"


def parse_unittest(lines: Sequence[str]) -> Found:
    found = Found()
    ran: list[int] = []
    ok = failed = False
    for line in lines:
        if m := _UNITTEST_FAILURE.match(line):
            found.shape = True
            found.fail(_unittest_id(*m.groups()))
        elif m := _UNITTEST_VERBOSE.match(line):
            found.shape = True
            test = _unittest_id(m.group(1), m.group(2))
            found.ok(test) if m.group(3) == "ok" else found.fail(test)
        elif m := UNITTEST_RAN.match(line):
            found.shape = True
            ran.append(int(m.group(1)))
        elif _UNITTEST_OK.match(line):
            ok = True
        elif _UNITTEST_FAILED.match(line):
            found.shape = failed = True
    found.all_passed = ok and not failed and (not ran or sum(ran) > 0) and (bool(ran) or found.shape)
    return found
