"""Test verdicts out of a tool call's command and output: which tests fail, which pass, what broke.

``parse_run(command, output)`` reads one ``Tool Bash: <command>`` / ``Result: <output>`` pair of a
readable transcript and says, for the common test runners (pytest, unittest, go test, cargo test
and nextest, vitest, jest, gradle, maven surefire, ctest, rspec), which tests the run names as
failing and as passing, whether a summary line says nothing failed, up to three short error lines
(compile errors, exceptions, assertion messages) and what the command restricted the run to (its
scope: paths, packages, name filters). ``failing_tests.track`` folds one run into the set of tests
currently failing, each with the prompt that first showed it failing.

Everything is read line by line, because long outputs arrive trimmed: the first 500 characters, a
marker like ``… [+N chars; verdict lines follow]``, then the lines of the rest that carry verdicts
and the output's last line. Any subset of the lines gives what those lines say and nothing more: a
test name only ever comes from a line shaped like the runner's own verdict line, never from prose
that happens to say FAILED or ERROR.

Pure: no I/O, nothing done at import beyond compiling the patterns.

The entry point and its result are here, and which runner a run is; the rest is beside it:
``runner_output.py`` (the line reader and the error lines), one parser module per family of runners
(``python_runners.py``, ``native_runners.py``: go, cargo, ctest; ``js_runners.py``, ``jvm_runners.py``:
gradle, maven; ``ruby_runners.py``), ``runner_commands.py`` (the runner a command invokes and its
scope) and ``failing_tests.py`` (the failing set). A runner is added as one more parser in its family's
module.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from continuity_core.extraction.js_runners import parse_jest, parse_vitest
from continuity_core.extraction.jvm_runners import SUREFIRE_BANNER, parse_gradle, parse_maven
from continuity_core.extraction.native_runners import (
    CARGO_RESULT,
    CTEST_SUMMARY,
    NEXTEST_SUMMARY,
    parse_cargo,
    parse_ctest,
    parse_go,
)
from continuity_core.extraction.python_runners import UNITTEST_RAN, parse_pytest, parse_unittest
from continuity_core.extraction.ruby_runners import RSPEC_TOTALS, parse_rspec
from continuity_core.extraction.runner_commands import invocation, run_scope
from continuity_core.extraction.runner_output import output_lines, read_errors

RUNNERS = ("pytest", "unittest", "go", "cargo", "vitest", "jest", "gradle", "maven", "ctest", "rspec")
MAX_ERRORS = 3


@dataclass(frozen=True)
class TestRun:
    """What one test run's output says."""

    __test__ = False  # not a pytest test class, despite the name

    runner: str
    failed: tuple[str, ...] = ()
    passed: tuple[str, ...] = ()
    all_passed: bool = False
    errors: tuple[str, ...] = ()
    scope: tuple[str, ...] = ()


# --- which runner ----------------------------------------------------------------------------------

_PARSERS = {
    "pytest": parse_pytest,
    "unittest": parse_unittest,
    "go": parse_go,
    "cargo": parse_cargo,
    "vitest": parse_vitest,
    "jest": parse_jest,
    "maven": parse_maven,
    "ctest": parse_ctest,
    "rspec": parse_rspec,
}

# Lines only a runner's own output has, for a command that does not say which runner it is.
_SHAPES = (
    ("pytest", re.compile(r"^=+ (?:FAILURES|ERRORS|short test summary info|test session starts) =+$")),
    ("pytest", re.compile(r"^=+ (?:\d+ (?:failed|passed|errors?|skipped)(?:, )?).* in [\d.]+s.*=+$")),
    ("unittest", UNITTEST_RAN),
    ("go", re.compile(r"^\s*--- (?:FAIL|PASS): \S+ \([\d.]+s\)$")),
    ("go", re.compile(r"^(?:ok|FAIL)\s+\S+\s+(?:[\d.]+s|\(cached\)|\[build failed\])")),
    ("cargo", CARGO_RESULT),
    ("cargo", NEXTEST_SUMMARY),
    ("vitest", re.compile(r"^\s*Test Files\s+\d+ (?:failed|passed)")),
    ("jest", re.compile(r"^Test Suites: .*\d+ total$")),
    ("gradle", re.compile(r"^\d+ tests? completed, \d+ failed|There were failing tests")),
    ("gradle", re.compile(r"^> Task :\S*?[tT]est\w*(?: FAILED)?$")),
    ("maven", re.compile(r"^\[(?:INFO|ERROR|WARNING)\] Tests run: \d+, Failures: \d+")),
    ("maven", SUREFIRE_BANNER),
    ("ctest", CTEST_SUMMARY),
    ("ctest", re.compile(r"^\s*\d+/\d+ Test\s+#\d+: ")),
    ("rspec", re.compile(r"^Failed examples:$")),
    ("rspec", RSPEC_TOTALS),
)


def _runner_from_output(lines: Sequence[str], among: Iterable[str] = RUNNERS) -> str | None:
    allowed = set(among)
    for runner, shape in _SHAPES:
        if runner in allowed and any(shape.match(line) for line in lines):
            return runner
    return None


def parse_run(command: str, output: str) -> TestRun | None:
    """What a test run's output says, or None when the command and output are not a test run."""
    lines = output_lines(output)
    invoked = invocation(command)
    runner: str | None
    if invoked is None:
        runner, args = _runner_from_output(lines), []
    elif invoked[0] == "js":
        runner, args = _runner_from_output(lines, ("vitest", "jest")), invoked[1]
    elif invoked[0] == "any":
        runner, args = _runner_from_output(lines), []
        runner = runner or "ctest"
    else:
        runner, args = invoked
    if runner is None:
        return None
    if runner == "gradle":
        found = parse_gradle(lines, tests_requested=invoked is not None and invoked[0] == "gradle")
    else:
        found = _PARSERS[runner](lines)
    if invoked is None and not found.shape:
        return None
    if found.failed:
        found.all_passed = False
    if not found.all_passed:
        read_errors(lines, runner, found)
    if not (found.shape or found.failed or found.errors):
        return None
    return TestRun(
        runner=runner,
        failed=tuple(found.failed),
        passed=tuple(t for t in found.passed if t not in found.failed),
        all_passed=found.all_passed,
        errors=tuple(found.errors[:MAX_ERRORS]),
        scope=run_scope(runner, args) if invoked is not None and invoked[0] != "any" else (),
    )
