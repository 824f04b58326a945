"""Gradle's and Maven surefire's verdict lines: which test methods failed and passed, and whether the
build or the module's totals say nothing failed (``parse_gradle``, ``parse_maven``)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from continuity_core.extraction.runner_output import Found

# --- gradle ----------------------------------------------------------------------------------------

_GRADLE_VERDICTS = ("FAILED", "PASSED", "SKIPPED")  # ending `Class > method() FAILED`
_GRADLE_TASK = re.compile(r"^> Task :\S*?[tT]est\w*(?: (FAILED|UP-TO-DATE|NO-SOURCE|FROM-CACHE))?$")
_GRADLE_COUNT = re.compile(r"^\d+ tests? completed, \d+ failed")
_GRADLE_BUILD = re.compile(r"^BUILD (SUCCESSFUL|FAILED) in ")


def parse_gradle(lines: Sequence[str], tests_requested: bool) -> Found:
    found = Found()
    ran_tests = tests_requested
    success = False
    for line in lines:
        test, _, verdict = line.rpartition(" ")
        if verdict in _GRADLE_VERDICTS and " > " in test and not line.startswith((" ", "\t", ">")):
            found.shape = True
            if verdict == "FAILED":
                found.fail(test)
            elif verdict == "PASSED":
                found.ok(test)
        elif _GRADLE_TASK.match(line):
            found.shape = ran_tests = True
        elif _GRADLE_COUNT.match(line) or "There were failing tests" in line:
            found.shape = True
        elif m := _GRADLE_BUILD.match(line):
            success = m.group(1) == "SUCCESSFUL"
    found.all_passed = success and ran_tests and not found.failed
    return found


# --- maven surefire --------------------------------------------------------------------------------

_SUREFIRE_COUNTS = re.compile(
    r"^(?:\[(?:INFO|ERROR|WARNING)\] )?Tests run: (\d+), Failures: (\d+), Errors: (\d+), Skipped: \d+(.*)$"
)
_SUREFIRE_CASE = re.compile(
    r"^\[ERROR\] (?:[a-z_]\w*\.)*([A-Z][\w$]*)\.([\w$]+)(?:\(.*?\))?(?:\[\d+\])?"
    r"\s+(?:--\s+)?Time elapsed: .*<<< (?:FAILURE|ERROR)!$"
)
_SUREFIRE_CASE_OLD = re.compile(
    r"^(?:\[ERROR\] )?([\w$]+)\((?:[a-z_]\w*\.)*([A-Z][\w$]*)\)\s+Time elapsed: .*<<< (?:FAILURE|ERROR)!$"
)
_SUREFIRE_RESULT = re.compile(r"^\[ERROR\]\s{2,}(?:[a-z_]\w*\.)*([A-Z][\w$]*)\.([\w$]+)(?::\d+|\s|$)")
_SUREFIRE_RESULT_OLD = re.compile(
    r"^(?:Failed tests|Tests in error|\s+)(?::\s+|\s+)([\w$]+)\((?:[a-z_]\w*\.)*([A-Z][\w$]*)\)"
)
SUREFIRE_BANNER = re.compile(r"^(?:\[INFO\] )?\s*T E S T S$")


def parse_maven(lines: Sequence[str]) -> Found:
    found = Found()
    totals: list[tuple[int, int]] = []
    old_results = False
    for line in lines:
        if m := _SUREFIRE_COUNTS.match(line):
            found.shape = True
            run, failures, errors, rest = m.groups()
            if "in " not in rest and "Time elapsed" not in rest:  # the module's totals, not a class's
                totals.append((int(run), int(failures) + int(errors)))
            elif int(failures) + int(errors):
                totals.append((0, int(failures) + int(errors)))
        elif m := _SUREFIRE_CASE.match(line):
            found.shape = True
            found.fail(".".join(m.groups()))
        elif m := _SUREFIRE_CASE_OLD.match(line):
            found.shape = True
            found.fail(f"{m.group(2)}.{m.group(1)}")
        elif line.startswith(("Failed tests:", "Tests in error:")):
            old_results = True
            if m := _SUREFIRE_RESULT_OLD.match(line):
                found.fail(f"{m.group(2)}.{m.group(1)}")
        elif old_results and (m := _SUREFIRE_RESULT_OLD.match(line)):
            found.fail(f"{m.group(2)}.{m.group(1)}")
        elif (m := _SUREFIRE_RESULT.match(line)) and not line.startswith("[ERROR]   Run "):
            found.fail(".".join(m.groups()))
        elif SUREFIRE_BANNER.match(line):
            found.shape = True
        elif not line.strip():
            old_results = False
    found.all_passed = (
        bool(totals) and all(bad == 0 for _, bad in totals) and sum(run for run, _ in totals) > 0
    )
    return found
