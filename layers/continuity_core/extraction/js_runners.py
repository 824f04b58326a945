"""vitest's and jest's verdict lines: which test files and cases (with their describe blocks) failed
and passed, and whether the totals say nothing failed (``parse_vitest``, ``parse_jest``)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from continuity_core.extraction.runner_output import Found

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


def parse_vitest(lines: Sequence[str]) -> Found:
    found = Found()
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


def parse_jest(lines: Sequence[str]) -> Found:
    found = Found()
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
