"""A test runner's output read line by line, and the error lines every runner shares.

Long outputs arrive trimmed: the first 500 characters, a marker like ``… [+N chars; verdict lines
follow]``, then the lines of the rest that carry verdicts and the output's last line. ``output_lines``
drops the cut-off fragment before the marker (and colour codes, and lines too long to be a verdict);
``Found`` is what a runner's parser collects from them; ``read_errors`` keeps up to a few short error
lines (compile errors, exceptions, assertion messages, panics) of a run that did not pass.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

MAX_ERROR_CHARS = 160


MAX_LINE_CHARS = 1_000  # a longer line is no verdict line (minified JSON, a data dump): not read


_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
# The trimming marker; the text before it on its line is a cut-off fragment and is not read.
_MARKER = re.compile(r"(?:…|\.\.\.) \[\+\d+ chars(?:;[^\]]*)?\]")


def output_lines(output: str) -> list[str]:
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
class Found:
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


def read_errors(lines: Sequence[str], runner: str, found: Found) -> None:
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
