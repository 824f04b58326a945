"""Checks: what a test, lint, type, format or build command last said, in one short line.

``check_of(command, output)`` reads one command and its (trimmed) output — a ``Tool Bash:`` call or
a hook's command — and answers the check it ran (the command without redirections, pagers and
paths after the tool: ``uv run pytest -m browser``), its verdict in the runner's own words
(``138 passed``, ``0 errors, 0 warnings``, ``All checks passed!``, ``14 doctests, 73 tests, 0
failures``) and whether it passed. Output with no verdict line is no check (a ``git status``).

``command_head(command)`` is the part of a command that names how the project does things (the
tool, its subcommand and flags, not the paths it was given): the project's commands are read off
what the session ran.

Pure: no I/O; the patterns compile at first use.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from functools import lru_cache

VERDICT_CHARS = 140
VERDICTS = 2  # the distinct verdict lines of one run shown
# A count that says how a run went, a tool's all-clear, a build's or a job's end.
_VERDICT = (
    r"\b\d+ (?:passed|failed|failures?|errors?|warnings?|skipped|tests?|doctests?|examples?|"
    r"diagnostics?|files? (?:reformatted|left unchanged|would be reformatted|changed))\b"
    r"|\bAll checks passed\b|\bno issues\b|\bJob (?:succeeded|failed)\b"
    r"|\bBUILD (?:SUCCESS|SUCCESSFUL|FAILED|FAILURE)\b|\bFound \d+ (?:errors?|diagnostics?|issues?)\b"
    r"|\bfound (?:no|\d+) [\w -]*?(?:issues?|suggestions?|opportunities)\b|\bSuccess: no issues found\b"
    r"|\bready in \d|\bVITE v[\d.]+\s+ready\b"
    r"|^(?:ok|FAIL)\s+\S+\s+[\d.]+s$|^test result: \w+|\bCompiled successfully\b|\bcompilation failed\b"
)
_FAILED = re.compile(
    r"\b(?:[1-9]\d* (?:[Ff]ailed|[Ff]ailures?|[Ee]rrors?|diagnostics?)"
    r"|[Ff]ound [1-9]\d* (?:errors?|issues?|problems?|warnings?)\b|FAILED|FAILURE|"
    r"Job failed|[1-9]\d* files? would be reformatted|compilation failed|^FAIL\b|test result: FAILED)"
)
_JOB_TAG = re.compile(r"^(?:\[[^\]]{1,60}\]\s*)+\|?\s*")  # act's "[CI/test-1]   | "
_NOISE = re.compile(r"^[=\-_*#~ ]+|[=\-_*#~ ]+$|\x1b\[[0-9;]*m")
_REDIRECT = re.compile(r"\s*(?:\d?>&\d|\d?>>?\s*\S+|\|\s*(?:tail|head|grep|less|cat|tee)\b.*)$")
_STATUS = re.compile(r"^(?:completed successfully|failed[^:]*|[a-z][\w -]*error[^:]*):\s*")
# Tools whose runs are checks of the project (tests, lint, types, format, build).
_CHECK_WORDS = frozenset(
    [
        "pytest",
        "tox",
        "nox",
        "unittest",
        "ruff",
        "pyright",
        "mypy",
        "ty",
        "flake8",
        "pylint",
        "black",
        "isort",
        "jest",
        "vitest",
        "mocha",
        "eslint",
        "tsc",
        "biome",
        "prettier",
        "cargo",
        "go",
        "mix",
        "credo",
        "dialyzer",
        "rspec",
        "rubocop",
        "gradle",
        "mvn",
        "make",
        "ctest",
        "act",
        "npm",
        "pnpm",
        "yarn",
        "bun",
        "deno",
        "phpunit",
        "swift",
        "xcodebuild",
        "dotnet",
        "sbt",
        "lein",
    ]
)
_NAMED_CHECK = re.compile(r"\b(?:test|tests|lint|check|typecheck|build|verify|ci)\b")
_SETUP_WORDS = frozenset(["cd", "export", "source", "set", "env", "time", "timeout"])
_GENERIC = frozenset(
    [
        "ls",
        "cat",
        "grep",
        "rg",
        "find",
        "head",
        "tail",
        "sed",
        "awk",
        "echo",
        "pwd",
        "wc",
        "sort",
        "uniq",
        "cp",
        "mv",
        "rm",
        "mkdir",
        "touch",
        "chmod",
        "which",
        "curl",
        "wget",
        "open",
        "less",
        "more",
        "diff",
        "tree",
        "file",
        "stat",
        "ps",
        "kill",
        "sleep",
        "true",
        "false",
        "printf",
        "xargs",
        "jq",
        "git",
        "gh",
    ]
)


@dataclass(frozen=True)
class CheckRun:
    target: str  # the command, as a person would type it again
    verdict: str  # the runner's own words
    passed: bool


@lru_cache(maxsize=1)
def _verdict_pattern() -> re.Pattern[str]:
    return re.compile(_VERDICT, re.IGNORECASE | re.MULTILINE)


def _bare(part: str) -> str:
    while (bare := _REDIRECT.sub("", part).strip()) != part:
        part = bare
    return part


def _segment(command: str, together: int = 1) -> str:
    """The part of a ``cd x && … && y`` chain that runs checks (the last ``together`` that do, joined:
    their outputs are one output)."""
    parts = [_bare(p.strip()) for p in re.split(r"\s*(?:&&|;|\|\||\n)\s*", command) if p.strip()]
    checks = [
        p for p in parts if _words(p) and _words(p)[0] in _CHECK_WORDS | {"uv", "poetry", "npx", "bunx"}
    ]
    return " && ".join((checks or parts or [command])[-together:])


def _words(command: str) -> list[str]:
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    while words and (words[0] in _SETUP_WORDS or re.match(r"^\w+=", words[0])):
        words = words[1:]
    return [w.rsplit("/", 1)[-1] if i == 0 else w for i, w in enumerate(words)]


def check_of(command: str, output: str) -> CheckRun | None:
    """The check ``command`` ran and what its ``output`` says of it; None when it says no verdict."""
    target = _segment(command.strip(), together=3)
    head = command_head(target)
    if head is None or not (runs_checks(head) or _NAMED_CHECK.search(target)):
        return None
    lines = [_NOISE.sub("", _STATUS.sub("", line.strip())).strip() for line in output.splitlines()]
    found = [line for line in lines if line and len(line) < 400 and _verdict_pattern().search(line)]
    if not found:
        return None
    verdict = _summary(found)
    return CheckRun(" ".join(target.split())[:160], verdict, not _FAILED.search(verdict))


def _summary(found: list[str]) -> str:
    """The run's last verdicts (the summary comes last; a CI job prints its steps' verdicts, tagged
    by job: each said once), a failing one always among them."""
    distinct = list(dict.fromkeys(_NOISE.sub("", _JOB_TAG.sub("", line)).strip() for line in found))
    failing = [line for line in distinct if _FAILED.search(line)]
    last = distinct[-VERDICTS:]
    if failing and failing[-1] not in last:
        last = [failing[-1], *last[1:]]
    text = "; ".join(last)
    return text if len(text) <= VERDICT_CHARS else text[: VERDICT_CHARS - 1].rstrip() + "…"


def command_head(command: str) -> str | None:
    """How the project runs a tool: ``uv run pytest -m tui test/x.py -v`` → ``uv run pytest -m tui``;
    None for plain shell commands (ls, grep, git status …)."""
    words = _words(_segment(command))
    if not words or words[0] in _GENERIC:
        return None
    head: list[str] = []
    for index, word in enumerate(words):
        if index and _names_a_path(word):
            break
        if word in ("-v", "-vv", "-q", "-x", "--verbose", "--quiet", "-s"):
            continue
        head.append(word)
        if len(head) >= 6:
            break
    return " ".join(head) if head else None


def _names_a_path(word: str) -> bool:
    return (
        "/" in word
        or "::" in word
        or bool(re.search(r"\.\w{1,5}$", word))
        or word.startswith(("'", '"', "$"))
    )


def runs_checks(head: str) -> bool:
    """A command head that runs the project's checks (tests, lint, types, format, build)."""
    words = head.split()
    return bool(words) and (words[0] in _CHECK_WORDS or any(w in _CHECK_WORDS for w in words[1:3]))


# A formatter run is no verification (``ruff format``, ``prettier --write``, ``mix format``, ``gofmt``).
_FORMATS = re.compile(r"\b(?:format|fmt|prettier|black|isort)\b(?!.*--check)")


def verifies(target: str) -> bool:
    """A check that verifies the code (tests, lint, types, a build), not a formatter's rewrite."""
    return not _FORMATS.search(target)
