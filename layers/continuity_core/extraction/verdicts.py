"""Test verdicts out of a tool call's command and output: which tests fail, which pass, what broke.

``parse_run(command, output)`` reads one ``Tool Bash: <command>`` / ``Result: <output>`` pair of a
readable transcript and says, for the common test runners (pytest, unittest, go test, cargo test
and nextest, vitest, jest, gradle, maven surefire, ctest, rspec), which tests the run names as
failing and as passing, whether a summary line says nothing failed, up to three short error lines
(compile errors, exceptions, assertion messages) and what the command restricted the run to (its
scope: paths, packages, name filters). ``track`` folds one run into the set of tests currently
failing, each with the prompt that first showed it failing.

Everything is read line by line, because long outputs arrive trimmed: the first 500 characters, a
marker like ``… [+N chars; verdict lines follow]``, then the lines of the rest that carry verdicts
and the output's last line. Any subset of the lines gives what those lines say and nothing more: a
test name only ever comes from a line shaped like the runner's own verdict line, never from prose
that happens to say FAILED or ERROR.

Pure: no I/O, nothing done at import beyond compiling the patterns.

One module: one parser per test runner, each a few dozen lines over the same line reader
(``_lines``, ``_Found``), beside the scope reading that says which tests a run covered; a runner is
added as one more function here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

RUNNERS = ("pytest", "unittest", "go", "cargo", "vitest", "jest", "gradle", "maven", "ctest", "rspec")
MAX_ERRORS = 3
MAX_ERROR_CHARS = 160
MAX_FAILING = 50  # tests tracked as failing at once; beyond that the first ones are kept
MAX_LINE_CHARS = 1_000  # a longer line is no verdict line (minified JSON, a data dump): not read


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


@dataclass(frozen=True)
class Failing:
    """A test currently failing, as first shown failing by the run at ``since_prompt``."""

    test: str
    runner: str
    since_prompt: int


# --- the output, line by line ----------------------------------------------------------------------

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
# The trimming marker; the text before it on its line is a cut-off fragment and is not read.
_MARKER = re.compile(r"(?:…|\.\.\.) \[\+\d+ chars(?:;[^\]]*)?\]")


def _lines(output: str) -> list[str]:
    lines: list[str] = []
    for raw in _ANSI.sub("", output).splitlines():
        if len(raw) > MAX_LINE_CHARS:
            continue
        marker = _MARKER.search(raw)
        if marker:
            rest = raw[marker.end() :].strip()
            if rest:
                lines.append(rest)
            continue
        lines.append(raw.rstrip())
    return lines


@dataclass
class _Found:
    shape: bool = False
    failed: list[str] = field(default_factory=list)
    passed: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    all_passed: bool = False

    def fail(self, test: str) -> None:
        test = test.strip()
        if test and test not in self.failed:
            self.failed.append(test)

    def ok(self, test: str) -> None:
        test = test.strip()
        if test and test not in self.passed:
            self.passed.append(test)

    def error(self, text: str) -> None:
        text = re.sub(r"\s*[\r\n\t]+\s*", " ", text.strip())
        if len(text) > MAX_ERROR_CHARS:
            text = text[: MAX_ERROR_CHARS - 1].rstrip() + "…"
        if text and text not in self.errors:
            self.errors.append(text)


# --- error lines (every runner) ----------------------------------------------------------------------

_RUST_ERROR = re.compile(
    r"^error(?:\[E\d{4}\])?: "
    r"(?!test failed|could not compile|aborting due|test run failed|\d+ targets? failed)"
)
_CC_ERROR = re.compile(r"^\S+?:\d+(?::\d+)?: (?:fatal )?error: (.+)$")
_TS_ERROR = re.compile(r"\berror (TS\d+): (.+)$")
# `KeyError: 'coupon'`, `E   SyntaxError: invalid syntax`, `java.lang.IllegalStateException: empty`,
# `AssertionError: expected 90 to be 85`: the package is dropped.
_EXCEPTION = re.compile(
    r"^\s*(?:E\s+)?(?:[a-z_][\w]*\.)*((?:[A-Z][\w$]*)?(?:Error|Exception|Failure)[\w$]*): (\S.*)$"
)
# Gradle's default (short) exception format: `org.opentest4j.AssertionFailedError at CartTest.java:24`.
_JAVA_SHORT = re.compile(r"^\s+(?:[a-z_]\w*\.)+([A-Z][\w$]*(?:Error|Exception)[\w$]*) at (\S+)$")
_JAVAC = re.compile(r"\.java:\d+: error: (.+)$")
_MAVEN_JAVAC = re.compile(r"^\[ERROR\] \S+\.java:\[\d+(?:,\d+)?\] (.+)$")
_KOTLINC = re.compile(r"^e: (?:file://)?\S+\.kts?:\d+:\d+ (.+)$")
_GO_MESSAGE = re.compile(r"^\s*[\w./-]+\.go:\d+(?::\d+)?: (.+)$")
_GO_PANIC = re.compile(r"^panic: (.+?)(?: \[recovered\])?$")
_RUST_PANIC = re.compile(r"^thread '.*' panicked at (?:'(.*)', \S+|\S+:)$")


def _errors(lines: Sequence[str], runner: str, found: _Found) -> None:
    for n, line in enumerate(lines):
        text = line.strip()
        if not text:
            continue
        if runner == "go":
            if text.startswith("#"):
                continue
            panic = _GO_PANIC.match(text)
            message = _GO_MESSAGE.match(line)
            if panic:
                found.error(f"panic: {panic.group(1)}")
            elif message:
                found.error(message.group(1))
            continue
        if runner == "cargo":
            panic = _RUST_PANIC.match(text)
            if panic:
                found.error(panic.group(1) or _rust_panic_message(lines, n))
                continue
            if _RUST_ERROR.match(text):
                found.error(text)
                continue
        if runner == "rspec" and text.startswith("expected") and n + 1 < len(lines):
            got = lines[n + 1].strip()
            found.error(f"{text} {got}" if got.startswith("got:") else text)
            continue
        if runner == "jest" and text.startswith("Expected:") and n + 1 < len(lines):
            received = lines[n + 1].strip()
            found.error(f"{text}, {received}" if received.startswith("Received:") else text)
            continue
        match = (
            _MAVEN_JAVAC.match(text)
            or _JAVAC.search(text)
            or _KOTLINC.match(text)
            or _CC_ERROR.match(text)
            or _TS_ERROR.search(text)
        )
        if match:
            found.error(": ".join(match.groups()))
            continue
        exception = _EXCEPTION.match(line) or (_JAVA_SHORT.match(line) if runner == "gradle" else None)
        if exception:
            name, rest = exception.groups()
            found.error(f"{name}: {rest}" if exception.re is _EXCEPTION else f"{name} at {rest}")


def _rust_panic_message(lines: Sequence[str], n: int) -> str:
    """The message on the lines after ``thread '…' panicked at src/x.rs:1:2:`` (Rust 1.73+)."""
    message = lines[n + 1].strip() if n + 1 < len(lines) else ""
    for extra in lines[n + 2 : n + 4]:
        if re.match(r"^\s*(left|right): ", extra):
            message += ", " + extra.strip()
    return message or "panicked"


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


def _pytest(lines: Sequence[str]) -> _Found:
    found = _Found()
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


def _pytest_verdict(found: _Found, verdict: str, test: str) -> None:
    if verdict == "PASSED":
        found.ok(test)
    elif verdict in ("FAILED", "ERROR"):
        found.fail(test)


# --- unittest ----------------------------------------------------------------------------------------

_UNITTEST_FAILURE = re.compile(r"^(?:FAIL|ERROR|UNEXPECTED SUCCESS): (\w+) \(([\w.]+)\)")
_UNITTEST_VERBOSE = re.compile(r"^(\w+) \(([\w.]+)\)(?: \[.*\])?(?: \(.*\))? \.\.\. (ok|FAIL|ERROR)$")
_UNITTEST_RAN = re.compile(r"^Ran (\d+) tests? in [\d.]+s$")
_UNITTEST_OK = re.compile(r"^OK(?: \(.*\))?$")
_UNITTEST_FAILED = re.compile(r"^FAILED \((?:failures|errors|unexpected successes)=\d+.*\)$")


def _unittest_id(name: str, where: str) -> str:
    if where == "unittest.loader._FailedTest" or where.startswith("unittest.loader._FailedTest."):
        return name  # a module that failed to import: unittest names it by the module
    return where if where.endswith("." + name) else f"{where}.{name}"


def _unittest(lines: Sequence[str]) -> _Found:
    found = _Found()
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
        elif m := _UNITTEST_RAN.match(line):
            found.shape = True
            ran.append(int(m.group(1)))
        elif _UNITTEST_OK.match(line):
            ok = True
        elif _UNITTEST_FAILED.match(line):
            found.shape = failed = True
    found.all_passed = ok and not failed and (not ran or sum(ran) > 0) and (bool(ran) or found.shape)
    return found


# --- go test -----------------------------------------------------------------------------------------

_GO_VERDICT = re.compile(r"^\s*--- (FAIL|PASS|SKIP): (\S+) \(")
_GO_PACKAGE = re.compile(r"^(ok|FAIL)\s+(\S+)\s+(?:[\d.]+s|\(cached\))")
_GO_PACKAGE_BROKEN = re.compile(r"^FAIL\s+(\S+) \[(?:build|setup) failed\]$")
_GO_NO_TESTS = re.compile(r"^\?\s+\S+\s+\[no test files\]$")


def _go(lines: Sequence[str]) -> _Found:
    found = _Found()
    ok_packages = fail_lines = 0
    for line in lines:
        if m := _GO_VERDICT.match(line):
            found.shape = True
            verdict, test = m.groups()
            if verdict == "FAIL":
                found.fail(test)
            elif verdict == "PASS":
                found.ok(test)
        elif m := _GO_PACKAGE_BROKEN.match(line):
            found.shape = True
            fail_lines += 1
            found.fail(m.group(1))
        elif m := _GO_PACKAGE.match(line):
            found.shape = True
            if m.group(1) == "ok":
                ok_packages += 1
                found.ok(m.group(2))  # the package passed: clears its earlier build failure
            else:
                fail_lines += 1
        elif _GO_NO_TESTS.match(line):
            found.shape = True
        elif line == "FAIL":
            fail_lines += 1
    found.all_passed = ok_packages > 0 and fail_lines == 0 and not found.failed
    return found


# --- cargo test / cargo nextest ------------------------------------------------------------------

_CARGO_TEST = re.compile(r"^test (.+?) \.\.\. (ok|FAILED|ignored.*)$")
_CARGO_RESULT = re.compile(r"^test result: (ok|FAILED)\. (\d+) passed; (\d+) failed;")
_CARGO_RUNNING = re.compile(r"^running \d+ tests?$")
_CARGO_STDOUT = re.compile(r"^---- (.+?) stdout ----$")
_CARGO_FAILURE_ITEM = re.compile(r"^    (\S+)$")
_NEXTEST = re.compile(
    r"^\s*(PASS|FAIL|FLAKY|SIGSEGV|SIGABRT|SIGKILL|SIGBUS|SIGILL|SIGFPE|ABORT|TIMEOUT|LEAK|LEAK-FAIL)"
    r"(?: \d+/\d+)? \[\s*[\d.]+m?s\] (?:\(\s*\d+/\d+\) )?(\S+) (\S.*)$"
)
_NEXTEST_SUMMARY = re.compile(r"^\s*Summary \[.*\] (\d+) tests? run: (.*)$")
_NEXTEST_STARTING = re.compile(r"^\s*Starting \d+ tests? across \d+ binar")


def _cargo(lines: Sequence[str]) -> _Found:
    found = _Found()
    results: list[tuple[bool, int]] = []
    in_failure_list = False
    for line in lines:
        if line == "failures:":
            in_failure_list = True
            found.shape = True
            continue
        if in_failure_list:
            if m := _CARGO_FAILURE_ITEM.match(line):
                found.fail(m.group(1))
                continue
            if line.strip():
                in_failure_list = False
        if m := _CARGO_TEST.match(line):
            found.shape = True
            test, verdict = m.groups()
            if verdict == "ok":
                found.ok(test)
            elif verdict == "FAILED":
                found.fail(test)
        elif m := _CARGO_RESULT.match(line):
            found.shape = True
            results.append((m.group(1) == "ok" and m.group(3) == "0", int(m.group(2))))
        elif m := _CARGO_STDOUT.match(line):
            found.fail(m.group(1))
        elif m := _NEXTEST.match(line):
            found.shape = True
            verdict, _binary, test = m.groups()
            found.ok(test) if verdict in ("PASS", "FLAKY", "LEAK") else found.fail(test)
        elif m := _NEXTEST_SUMMARY.match(line):
            found.shape = True
            counts = m.group(2)
            clean = not re.search(r"\d+ (failed|timed out|exec failed)", counts)
            results.append((clean, int(m.group(1))))
        elif _CARGO_RUNNING.match(line) or _NEXTEST_STARTING.match(line):
            found.shape = True
    found.all_passed = bool(results) and all(clean for clean, _ in results) and sum(n for _, n in results) > 0
    return found


# --- vitest ----------------------------------------------------------------------------------------

_JS_FILE = r"\S+\.(?:test|spec|e2e|bench)\.[cm]?[jt]sx?"
_VITEST_FAIL = re.compile(rf"^\s*FAIL\s+(?:\|[^|]+\|\s+)?({_JS_FILE}(?: > .+?)?)(?: \[ .* \])?\s*$")
_VITEST_FILE = re.compile(rf"^\s?[✓\u276f\u00d7✗↓]\s+(?:\|[^|]+\|\s+)?({_JS_FILE})\s+\(\d+ tests?(.*?)\)")
_VITEST_CASE = re.compile(
    rf"^(\s*)([✓√\u00d7✗✕])\s+(?:\|[^|]+\|\s+)?((?:{_JS_FILE} > )?.+?)(?:\s+\d+(?:\.\d+)?m?s)?$"
)
_VITEST_TOTALS = re.compile(r"^\s*(Test Files|Tests)\s+(\d+ (?:failed|passed|skipped|todo).*)$")
_VITEST_RUN = re.compile(r"^\s*RUN\s+v\d+\.\d+")
_VITEST_SECTION = re.compile(r"^⎯+ Failed (?:Tests|Suites) \d+ ⎯+$")


def _vitest(lines: Sequence[str]) -> _Found:
    found = _Found()
    totals: list[str] = []
    current_file = None
    for line in lines:
        if m := _VITEST_TOTALS.match(line):
            found.shape = True
            totals.append(m.group(2))
        elif _VITEST_RUN.match(line) or _VITEST_SECTION.match(line):
            found.shape = True
        elif m := _VITEST_FAIL.match(line):
            found.shape = True
            found.fail(m.group(1))
        elif m := _VITEST_FILE.match(line):
            found.shape = True
            current_file = m.group(1)
            if "failed" not in m.group(2) and line.lstrip().startswith("✓"):
                found.ok(current_file)
        elif (m := _VITEST_CASE.match(line)) and (" > " in m.group(3) or current_file):
            indent, mark, name = m.groups()
            if re.match(_JS_FILE + " > ", name):
                test = name
            elif current_file and indent:
                test = f"{current_file} > {name}"
            else:
                continue
            found.shape = True
            found.ok(test) if mark in "✓√" else found.fail(test)
        elif not line.strip():
            current_file = None
    found.all_passed = bool(totals) and all("failed" not in t and re.search(r"\d+ passed", t) for t in totals)
    return found


# --- jest ------------------------------------------------------------------------------------------

_JEST_FILE = re.compile(r"^\s*(PASS|FAIL)\s+(\S+)(?:\s+\(\d[\d.]* m?s\))?$")
_JEST_SEPARATOR = " \u203a "  # jest joins describe blocks and the test's name with it
_JEST_TITLE = re.compile(r"^\s{2}● (.+)$")
_JEST_CASE = re.compile(
    r"^(\s+)([✓√✕\u00d7○✎])\s+(?:(?:skipped|todo)\s+)?(.+?)(?:\s+\(\d+(?:\.\d+)? m?s\))?$"
)
_JEST_GROUP = re.compile(r"^(\s+)([^\s✓√✕\u00d7○✎●].*)$")
_JEST_TOTALS = re.compile(r"^(Test Suites|Tests):\s+(.*\d+ total)$")


def _jest(lines: Sequence[str]) -> _Found:
    found = _Found()
    totals: list[str] = []
    current_file: str | None = None
    groups: list[tuple[int, str]] = []  # the describe blocks around the next ✓/✕ line, by indent
    for line in lines:
        if m := _JEST_TOTALS.match(line):
            found.shape = True
            totals.append(m.group(2))
        elif m := _JEST_FILE.match(line):
            found.shape = True
            current_file, groups = m.group(2), []
            if m.group(1) == "PASS":
                found.ok(current_file)
        elif m := _JEST_TITLE.match(line):
            title = m.group(1).strip()
            groups = []
            if title == "Test suite failed to run":
                if current_file:
                    found.fail(current_file)
            elif title != "Console" and current_file:
                found.shape = True
                found.fail(f"{current_file} > {title.replace(_JEST_SEPARATOR, ' > ')}")
        elif current_file and (m := _JEST_CASE.match(line)):
            indent, mark, name = len(m.group(1)), m.group(2), m.group(3)
            path = [g for i, g in groups if i < indent]
            test = " > ".join([current_file, *path, name])
            if mark in "✓√":
                found.ok(test)
            elif mark in "\u2715\u00d7":
                found.fail(test)
        elif current_file and (m := _JEST_GROUP.match(line)) and not _detail_line(line):
            indent = len(m.group(1))
            groups = [(i, g) for i, g in groups if i < indent] + [(indent, m.group(2).strip())]
        elif not line.strip():
            groups = []
    found.all_passed = bool(totals) and all(
        "failed" not in t and re.search(r"\d+ passed", t) for t in totals if not t.startswith("0 total")
    )
    return found


def _detail_line(line: str) -> bool:
    """Lines inside a failure's details (code frames, stacks, diffs) are not describe blocks."""
    text = line.strip()
    return bool(re.match(r"^(at |\d+ \||>|\||Expected|Received|expect\(|- |\+ )", text))


# --- gradle ----------------------------------------------------------------------------------------

_GRADLE_VERDICTS = ("FAILED", "PASSED", "SKIPPED")  # ending `Class > method() FAILED`
_GRADLE_TASK = re.compile(r"^> Task :\S*?[tT]est\w*(?: (FAILED|UP-TO-DATE|NO-SOURCE|FROM-CACHE))?$")
_GRADLE_COUNT = re.compile(r"^\d+ tests? completed, \d+ failed")
_GRADLE_BUILD = re.compile(r"^BUILD (SUCCESSFUL|FAILED) in ")


def _gradle(lines: Sequence[str], tests_requested: bool) -> _Found:
    found = _Found()
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
_SUREFIRE_BANNER = re.compile(r"^(?:\[INFO\] )?\s*T E S T S$")


def _maven(lines: Sequence[str]) -> _Found:
    found = _Found()
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
        elif _SUREFIRE_BANNER.match(line):
            found.shape = True
        elif not line.strip():
            old_results = False
    found.all_passed = (
        bool(totals) and all(bad == 0 for _, bad in totals) and sum(run for run, _ in totals) > 0
    )
    return found


# --- ctest -----------------------------------------------------------------------------------------

_CTEST_CASE = re.compile(r"^\s*\d+/\d+ Test\s+#\d+: (\S+) \.*\s*(\*\*\*)?(Passed|\S.*?)\s+[\d.]+ sec$")
_CTEST_LISTED = re.compile(r"^\s+\d+ - (\S+) \((.+)\)$")
_CTEST_SUMMARY = re.compile(r"^(\d+)% tests passed, (\d+) tests? failed out of (\d+)$")
_CTEST_PROJECT = re.compile(r"^Test project \S")


def _ctest(lines: Sequence[str]) -> _Found:
    found = _Found()
    summaries: list[tuple[int, int]] = []
    listing = False
    for line in lines:
        if m := _CTEST_CASE.match(line):
            found.shape = True
            name, _stars, verdict = m.groups()
            found.ok(name) if verdict == "Passed" else found.fail(name)
        elif m := _CTEST_SUMMARY.match(line):
            found.shape = True
            summaries.append((int(m.group(2)), int(m.group(3))))
        elif line.startswith("The following tests FAILED:"):
            found.shape = listing = True
        elif listing and (m := _CTEST_LISTED.match(line)):
            found.fail(m.group(1))
        elif _CTEST_PROJECT.match(line):
            found.shape = True
        else:
            listing = listing and line.startswith((" ", "\t"))
    found.all_passed = bool(summaries) and all(failed == 0 and total > 0 for failed, total in summaries)
    return found


# --- rspec -----------------------------------------------------------------------------------------

_RSPEC_RERUN = re.compile(r"^rspec (\./\S+?(?::\d+|\[[\d:,]+\])) # ")
_RSPEC_TOTALS = re.compile(r"^(\d+) examples?, (\d+) failures?(.*)$")
_RSPEC_LOAD_ERROR = re.compile(r"^An error occurred while loading (\./\S+?)\.?$")


def _rspec(lines: Sequence[str]) -> _Found:
    found = _Found()
    totals: list[tuple[int, int, str]] = []
    for line in lines:
        if m := _RSPEC_RERUN.match(line):
            found.shape = True
            found.fail(m.group(1))
        elif m := _RSPEC_TOTALS.match(line):
            found.shape = True
            totals.append((int(m.group(1)), int(m.group(2)), m.group(3)))
        elif m := _RSPEC_LOAD_ERROR.match(line):
            found.shape = True
            found.fail(m.group(1))
        elif line == "Failed examples:":
            found.shape = True
    found.all_passed = bool(totals) and all(
        examples > 0 and failures == 0 and "outside of examples" not in rest
        for examples, failures, rest in totals
    )
    return found


# --- which runner ----------------------------------------------------------------------------------

_PARSERS = {
    "pytest": _pytest,
    "unittest": _unittest,
    "go": _go,
    "cargo": _cargo,
    "vitest": _vitest,
    "jest": _jest,
    "maven": _maven,
    "ctest": _ctest,
    "rspec": _rspec,
}

# Lines only a runner's own output has, for a command that does not say which runner it is.
_SHAPES = (
    ("pytest", re.compile(r"^=+ (?:FAILURES|ERRORS|short test summary info|test session starts) =+$")),
    ("pytest", re.compile(r"^=+ (?:\d+ (?:failed|passed|errors?|skipped)(?:, )?).* in [\d.]+s.*=+$")),
    ("unittest", _UNITTEST_RAN),
    ("go", re.compile(r"^\s*--- (?:FAIL|PASS): \S+ \([\d.]+s\)$")),
    ("go", re.compile(r"^(?:ok|FAIL)\s+\S+\s+(?:[\d.]+s|\(cached\)|\[build failed\])")),
    ("cargo", _CARGO_RESULT),
    ("cargo", _NEXTEST_SUMMARY),
    ("vitest", re.compile(r"^\s*Test Files\s+\d+ (?:failed|passed)")),
    ("jest", re.compile(r"^Test Suites: .*\d+ total$")),
    ("gradle", re.compile(r"^\d+ tests? completed, \d+ failed|There were failing tests")),
    ("gradle", re.compile(r"^> Task :\S*?[tT]est\w*(?: FAILED)?$")),
    ("maven", re.compile(r"^\[(?:INFO|ERROR|WARNING)\] Tests run: \d+, Failures: \d+")),
    ("maven", _SUREFIRE_BANNER),
    ("ctest", _CTEST_SUMMARY),
    ("ctest", re.compile(r"^\s*\d+/\d+ Test\s+#\d+: ")),
    ("rspec", re.compile(r"^Failed examples:$")),
    ("rspec", _RSPEC_TOTALS),
)


def _runner_from_output(lines: Sequence[str], among: Iterable[str] = RUNNERS) -> str | None:
    allowed = set(among)
    for runner, shape in _SHAPES:
        if runner in allowed and any(shape.match(line) for line in lines):
            return runner
    return None


def parse_run(command: str, output: str) -> TestRun | None:
    """What a test run's output says, or None when the command and output are not a test run."""
    lines = _lines(output)
    invoked = _invocation(command)
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
        found = _gradle(lines, tests_requested=invoked is not None and invoked[0] == "gradle")
    else:
        found = _PARSERS[runner](lines)
    if invoked is None and not found.shape:
        return None
    if found.failed:
        found.all_passed = False
    if not found.all_passed:
        _errors(lines, runner, found)
    if not (found.shape or found.failed or found.errors):
        return None
    return TestRun(
        runner=runner,
        failed=tuple(found.failed),
        passed=tuple(t for t in found.passed if t not in found.failed),
        all_passed=found.all_passed,
        errors=tuple(found.errors[:MAX_ERRORS]),
        scope=_scope(runner, args) if invoked is not None and invoked[0] != "any" else (),
    )


# --- the command -----------------------------------------------------------------------------------

_SHELL_TOKEN = re.compile(
    r"""\s*(?:
        (?P<redirect>\d*(?:&>>?|>>|>&|<&|>\||>|<))
      | (?P<op>&&|\|\||[;|&()\n])
      | (?P<word>(?:[^\s'"\\;|&()<>]|\\.|'[^']*'|"(?:[^"\\]|\\.)*")+)
    )""",
    re.VERBOSE,
)
_QUOTED = re.compile(r"""'([^']*)'|"((?:[^"\\]|\\.)*)"|\\(.)""")


def _segments(command: str) -> list[list[str]]:
    """The simple commands of a shell line, each as its words (quotes removed, redirects dropped)."""
    segments: list[list[str]] = [[]]
    skip_next = False
    position = 0
    while position < len(command):
        m = _SHELL_TOKEN.match(command, position)
        if not m or m.end() == position:
            position += 1
            continue
        position = m.end()
        if m.group("redirect"):
            skip_next = True  # the redirect's target: `> out.log`, `2>&1`
        elif m.group("op"):
            segments.append([])
            skip_next = False
        elif m.group("word") is not None:
            if skip_next:
                skip_next = False
                continue
            word = _QUOTED.sub(lambda q: q.group(1) or q.group(2) or q.group(3) or "", m.group("word"))
            segments[-1].append(word)
    return [s for s in segments if s]


_ASSIGNMENT = re.compile(r"^[A-Za-z_]\w*=")
_WRAPPERS = {"env", "time", "sudo", "nice", "nohup", "command", "exec", "xvfb-run", "stdbuf", "caffeinate"}
_RUN_WRAPPERS = {"uv": "run", "poetry": "run", "pipenv": "run", "pdm": "run", "hatch": "run", "rye": "run"}
_PYTHON = re.compile(r"^(?:python|python3|python3\.\d+|py|pypy3?)$")
_GRADLE_TEST_TASK = re.compile(r"^(?::?[\w-]+:)*(?:test\w*|check|build|\w*[tT]est)$")
_MAVEN_TEST_GOALS = {"test", "verify", "install", "package", "integration-test", "surefire:test", "deploy"}
_JS_TOOLS = {"npm", "yarn", "pnpm", "bun"}


def _invocation(command: str) -> tuple[str, list[str]] | None:
    """The runner a command invokes and the words after it; "js" and "any" when only the output can say."""
    for words in _segments(command):
        found = _invoked(words)
        if found:
            return found
    return None


def _invoked(words: list[str]) -> tuple[str, list[str]] | None:
    i = 0
    while i < len(words):
        word, base = words[i], words[i].rsplit("/", 1)[-1]
        rest = words[i + 1 :]
        if _ASSIGNMENT.match(word) or base in _WRAPPERS:
            i += 1
        elif base == "timeout":
            i += 1
            while i < len(words) and words[i].startswith("-"):
                i += 1
            i += 1  # the duration
        elif base in _RUN_WRAPPERS and rest[:1] == [_RUN_WRAPPERS[base]]:
            i += 2
            while i < len(words) and words[i].startswith("-"):
                i += 1
        elif (base == "bundle" and rest[:1] == ["exec"]) or base in ("npx", "bunx", "pnpx"):
            i += 2 if base == "bundle" else 1
            while i < len(words) and words[i].startswith("-"):
                i += 1
        elif base in ("pytest", "py.test"):
            return "pytest", rest
        elif _PYTHON.match(base) or base == "coverage":
            return _python_module(rest)
        elif base == "go":
            return ("go", rest[1:]) if rest[:1] == ["test"] else None
        elif base == "cargo":
            rest = [w for w in rest if not w.startswith("+")]
            if rest[:1] in (["test"], ["t"]):
                return "cargo", rest[1:]
            return ("cargo", rest[2:]) if rest[:2] == ["nextest", "run"] else None
        elif base in ("vitest", "jest"):
            return base, rest
        elif base in _JS_TOOLS:
            return _js_script(base, rest)
        elif base in ("gradle", "gradlew", "gradlew.bat"):
            return ("gradle", rest) if any(_GRADLE_TEST_TASK.match(w) for w in rest) else None
        elif base in ("mvn", "mvnw", "mvnw.cmd"):
            goals = {w for w in rest if not w.startswith("-")}
            skipping = any(w.startswith(("-DskipTests", "-Dmaven.test.skip")) for w in rest)
            return ("maven", rest) if goals & _MAVEN_TEST_GOALS and not skipping else None
        elif base == "ctest":
            return "ctest", rest
        elif base in ("make", "ninja", "tox", "nox"):
            targets = {w for w in rest if not w.startswith("-")}
            runs_tests = base in ("tox", "nox") or bool({"test", "check", "tests"} & targets)
            return ("any", rest) if runs_tests else None
        elif base == "rspec" or (base == "rake" and rest[:1] == ["spec"]):
            return "rspec", rest if base == "rspec" else rest[1:]
        else:
            return None
    return None


def _python_module(words: list[str]) -> tuple[str, list[str]] | None:
    if words[:1] == ["manage.py"] and words[1:2] == ["test"]:
        return "unittest", words[2:]
    for n, word in enumerate(words):
        if word == "-m" and n + 1 < len(words):
            module = words[n + 1]
            if module == "pytest":
                return "pytest", words[n + 2 :]
            if module == "unittest":
                return "unittest", words[n + 2 :]
            return None
        if not word.startswith("-") and word != "run":
            return None
    return None


def _js_script(tool: str, words: list[str]) -> tuple[str, list[str]] | None:
    words = [w for w in words if w not in ("--silent", "-s", "--if-present")]
    if words[:1] in (["test"], ["t"]):
        return "js", [w for w in words[1:] if w != "--"]
    if words[:1] in (["run"], ["run-script"]) and words[1:2] and re.match(r"^test\b", words[1]):
        return "js", [w for w in words[2:] if w != "--"]
    if tool != "npm" and words[:1] in (["vitest"], ["jest"]):
        return words[0], words[1:]
    if tool == "pnpm" and words[:1] in (["exec"], ["dlx"]) and words[1:2] in (["vitest"], ["jest"]):
        return words[1], words[2:]
    return None


def _options(value: str = "", scope: str = "", exclude: str = "", opaque: str = "") -> dict[str, str]:
    kinds: dict[str, str] = {}
    for kind, names in (("value", value), ("scope", scope), ("exclude", exclude), ("opaque", opaque)):
        kinds.update(dict.fromkeys(names.split(), kind))
    return kinds


# Per runner, the options that take a value and what the value says about the run's scope: a name
# filter ("scope"), tests left out ("exclude": kept as "not X"), a restriction no test id can be
# matched against ("opaque": kept with its option, so such a run clears nothing by its scope), or
# nothing ("value").
_OPTIONS = {
    "pytest": _options(
        value="-c -o -p -n -W --rootdir --basetemp --maxfail --tb --durations --junitxml --junit-xml --cov "
        "--cov-report --cov-config --cov-fail-under --log-level --log-cli-level --import-mode --confcutdir "
        "--timeout --dist --count --reruns --randomly-seed --color --capture --override-ini --html",
        scope="-k",
        exclude="--deselect --ignore --ignore-glob",
        opaque="-m",
    ),
    "unittest": _options(value="-t", scope="-k -s", opaque="-p"),
    "go": _options(
        value="-count -timeout -p -parallel -tags -coverprofile -covermode -coverpkg -bench -benchtime -cpu "
        "-o -exec -shuffle -ldflags -gcflags -mod -C -fuzztime",
        scope="-run -list",
        exclude="-skip",
    ),
    "cargo": _options(
        value="--features -F --target --target-dir -j --jobs --manifest-path --profile --color "
        "--message-format -Z --config --test-threads --partition --retries",
        exclude="--skip",
        opaque="-p --package --test --bin --example --bench -E --filterset",
    ),
    "vitest": _options(
        value="-c --config -r --root --dir --reporter --outputFile --environment --pool --shard --mode",
        scope="-t --testNamePattern",
        opaque="--project",
    ),
    "jest": _options(
        value="-c --config --reporters -w --maxWorkers --shard --testTimeout --coverageReporters",
        scope="-t --testNamePattern --testPathPattern",
        opaque="--selectProjects",
    ),
    "gradle": _options(
        value="-x --exclude-task --max-workers -I --init-script -c --settings-file -g --gradle-user-home",
        scope="--tests",
        opaque="-p --project-dir",
    ),
    "maven": _options(
        value="-P --activate-profiles -f --file -s --settings -T --threads -rf --resume-from",
        opaque="-pl --projects",
    ),
    "ctest": _options(
        value="-C --build-config --test-dir --timeout --repeat -O --output-log --output-junit --stop-time",
        scope="-R --tests-regex",
        exclude="-E --exclude-regex",
        opaque="-L --label-regex -LE --label-exclude -I --tests-information",
    ),
    "rspec": _options(
        value="-f --format -o --out --seed --order -r --require -I --default-path",
        scope="-e --example",
        opaque="-t --tag --pattern --exclude-pattern",
    ),
}
_WHOLE_SUITE = {".", "./", "./...", "...", "all"}
_OPTIONAL_NUMBER = {"-j", "--parallel", "-n"}  # `ctest -j`, `-j 8`; `pytest -n auto`


def _scope(runner: str, words: list[str]) -> tuple[str, ...]:
    """What the command's arguments restrict the run to; empty for the whole suite."""
    kinds = _OPTIONS.get(runner, {})
    scope: list[str] = []
    positional: list[str] = []
    n = 0
    while n < len(words):
        word = words[n]
        n += 1
        if word == "--" or not word.startswith("-") or len(word) == 1:
            if word != "--":
                positional.append(word)
            continue
        option, value = word.split("=", 1) if "=" in word else (word, None)
        if runner == "maven" and option in ("-Dtest", "-Dit.test"):
            scope.extend(v for v in (value or "").split(",") if v)
            continue
        kind = kinds.get(option)
        if kind is None:
            if option in _OPTIONAL_NUMBER and n < len(words) and re.match(r"^(\d+|auto|logical)$", words[n]):
                n += 1
            continue
        if value is None:
            if n >= len(words):
                break
            value, n = words[n], n + 1
        if kind == "scope":
            scope.append(value)
        elif kind == "exclude":
            scope.append(f"not {value}")
        elif kind == "opaque":
            scope.append(f"{option} {value}")
    if runner == "unittest" and positional[:1] == ["discover"]:
        scope += positional[1:2] + [f"-p {p}" for p in positional[2:3]]
        positional = []
    elif runner == "vitest" and positional[:1] in (["run"], ["watch"], ["dev"], ["related"]):
        positional = positional[1:]
    elif runner == "go" and not positional:
        positional = ["."]  # the package in the working directory, not the whole module
    elif runner == "go":
        positional = [p for p in positional if p not in _WHOLE_SUITE]
    elif runner == "gradle":
        positional = [t for t in positional if re.match(r"^:?[\w-]+:[\w:-]+$", t)]  # :app:test
    elif runner in ("maven", "ctest"):
        positional = []
    if runner != "go":
        positional = [p for p in positional if p not in _WHOLE_SUITE]
    return tuple(dict.fromkeys(s for s in [*positional, *scope] if s))


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
