"""The verdict lines of go test, cargo test (and cargo nextest) and ctest: which tests (or packages)
failed and passed, and whether the summary says nothing failed (``parse_go``, ``parse_cargo``,
``parse_ctest``)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from continuity_core.extraction.runner_output import Found

# --- go test -----------------------------------------------------------------------------------------

_GO_VERDICT = re.compile(r"^\s*--- (FAIL|PASS|SKIP): (\S+) \(")
_GO_PACKAGE = re.compile(r"^(ok|FAIL)\s+(\S+)\s+(?:[\d.]+s|\(cached\))")
_GO_PACKAGE_BROKEN = re.compile(r"^FAIL\s+(\S+) \[(?:build|setup) failed\]$")
_GO_NO_TESTS = re.compile(r"^\?\s+\S+\s+\[no test files\]$")


def parse_go(lines: Sequence[str]) -> Found:
    found = Found()
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
CARGO_RESULT = re.compile(r"^test result: (ok|FAILED)\. (\d+) passed; (\d+) failed;")
_CARGO_RUNNING = re.compile(r"^running \d+ tests?$")
_CARGO_STDOUT = re.compile(r"^---- (.+?) stdout ----$")
_CARGO_FAILURE_ITEM = re.compile(r"^    (\S+)$")
_NEXTEST = re.compile(
    r"^\s*(PASS|FAIL|FLAKY|SIGSEGV|SIGABRT|SIGKILL|SIGBUS|SIGILL|SIGFPE|ABORT|TIMEOUT|LEAK|LEAK-FAIL)"
    r"(?: \d+/\d+)? \[\s*[\d.]+m?s\] (?:\(\s*\d+/\d+\) )?(\S+) (\S.*)$"
)
NEXTEST_SUMMARY = re.compile(r"^\s*Summary \[.*\] (\d+) tests? run: (.*)$")
_NEXTEST_STARTING = re.compile(r"^\s*Starting \d+ tests? across \d+ binar")


def parse_cargo(lines: Sequence[str]) -> Found:
    found = Found()
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
        elif m := CARGO_RESULT.match(line):
            found.shape = True
            results.append((m.group(1) == "ok" and m.group(3) == "0", int(m.group(2))))
        elif m := _CARGO_STDOUT.match(line):
            found.fail(m.group(1))
        elif m := _NEXTEST.match(line):
            found.shape = True
            verdict, _binary, test = m.groups()
            found.ok(test) if verdict in ("PASS", "FLAKY", "LEAK") else found.fail(test)
        elif m := NEXTEST_SUMMARY.match(line):
            found.shape = True
            counts = m.group(2)
            clean = not re.search(r"\d+ (failed|timed out|exec failed)", counts)
            results.append((clean, int(m.group(1))))
        elif _CARGO_RUNNING.match(line) or _NEXTEST_STARTING.match(line):
            found.shape = True
    found.all_passed = bool(results) and all(clean for clean, _ in results) and sum(n for _, n in results) > 0
    return found


# --- ctest -----------------------------------------------------------------------------------------

_CTEST_CASE = re.compile(r"^\s*\d+/\d+ Test\s+#\d+: (\S+) \.*\s*(\*\*\*)?(Passed|\S.*?)\s+[\d.]+ sec$")
_CTEST_LISTED = re.compile(r"^\s+\d+ - (\S+) \((.+)\)$")
CTEST_SUMMARY = re.compile(r"^(\d+)% tests passed, (\d+) tests? failed out of (\d+)$")
_CTEST_PROJECT = re.compile(r"^Test project \S")


def parse_ctest(lines: Sequence[str]) -> Found:
    found = Found()
    summaries: list[tuple[int, int]] = []
    listing = False
    for line in lines:
        if m := _CTEST_CASE.match(line):
            found.shape = True
            name, _stars, verdict = m.groups()
            found.ok(name) if verdict == "Passed" else found.fail(name)
        elif m := CTEST_SUMMARY.match(line):
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
