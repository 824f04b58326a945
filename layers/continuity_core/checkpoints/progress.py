"""Where things stand: the agent's own task list, the commits made, the tests still failing.

Read from the live transcript, not from what anyone said: the harness's task list in its latest
state (the client renders Claude Code's TodoWrite and task tools, Codex's plan updates, Gemini CLI's
and OpenCode's todos as a ``Plan:`` block, ``- [x]`` done, ``- [>]`` doing, ``- [ ]`` to do), the
commits a ``git commit`` printed (``[main 1a2b3c4] message``), the files a shell command deleted,
and the test runners' verdicts (``extraction/verdicts.py``, ``extraction/failing_tests.py``): a test
reported failing stays failing until a later run reports it passing, or a run of the same runner over
its scope reports no failures.
"""

from __future__ import annotations

import re
import shlex

from continuity_core.extraction.checks import check_of, command_head, runs_checks
from continuity_core.extraction.failing_tests import Failing, track
from continuity_core.extraction.verdicts import TestRun, parse_run
from continuity_core.models.session_digest import CheckVerdict, FailingTest, PlanItem, ProjectCommand

MAX_PLAN_ITEMS = 40
MAX_COMMITS = 8
MAX_FAILING = 20
MAX_CHECKS = 12
MAX_COMMANDS = 16
_HOOK_LINE = re.compile(r"^Hook \(([^)]*)\):\s*(.*)$", re.DOTALL)
_PLAN_ITEM = re.compile(r"^\s*[-*]\s*\[([ xX>~\-/])\]\s*(.+?)\s*$")
_STATUS = {"x": "done", "X": "done", ">": "doing", "~": "doing", "/": "doing", "-": "done", " ": "todo"}
_COMMIT = re.compile(r"^\[([\w./@+-]+)(?: \(root-commit\))? ([0-9a-f]{7,40})\] (.+)$", re.MULTILINE)
_DELETING = re.compile(r"(?:^|&&|;|\|\|)\s*(?:git\s+rm|rm)\s+([^;&|]+)")
_MOVING = re.compile(r"(?:^|&&|;|\|\|)\s*(?:git\s+mv|mv)\s+([^;&|]+)")


def plan_items(text: str) -> list[PlanItem]:
    """The items of a ``Plan:`` block, in order."""
    items = []
    for line in text.splitlines():
        match = _PLAN_ITEM.match(line)
        if match:
            items.append(PlanItem(text=match.group(2)[:400], status=_STATUS.get(match.group(1), "todo")))
    return items[:MAX_PLAN_ITEMS]


def hook_command(tool_line: str) -> tuple[str, str] | None:
    """(event, command) of a hook's line (``Hook (PostToolUse:Edit): uv run ruff format``)."""
    found = _HOOK_LINE.match(tool_line.strip())
    return (found.group(1), found.group(2).strip()) if found else None


def shell_command(tool_line: str) -> str | None:
    """The command of a shell tool line (``Tool Bash: git commit -m …``), None for other tools."""
    hooked = hook_command(tool_line)
    if hooked is not None:
        return hooked[1]
    head, _, argument = tool_line.partition(":")
    name = head.removeprefix("Tool ").strip().lower().split(".")[-1]
    if name in ("bash", "shell", "exec_command", "run_shell_command", "local_shell", "terminal"):
        return argument.strip()
    return None


def commits_in(output: str) -> list[str]:
    """``[branch sha] message`` lines of a ``git commit``'s output, as ``sha message``."""
    return [f"{m.group(2)[:7]} {m.group(3).strip()}" for m in _COMMIT.finditer(output)]


def deleted_paths(command: str) -> list[str]:
    """Paths a shell command removes (``rm``, ``git rm``) or moves away from (``mv``, ``git mv``)."""
    found: list[str] = []
    for pattern, keep_last in ((_DELETING, False), (_MOVING, True)):
        for match in pattern.finditer(command):
            try:
                words = shlex.split(match.group(1))
            except ValueError:
                words = match.group(1).split()
            paths = [w for w in words if not w.startswith("-")]
            found += paths[:-1] if keep_last else paths
    return found


def with_commits(commits: list[str], new: list[str]) -> list[str]:
    merged = list(commits)
    for commit in new:
        if commit not in merged:
            merged.append(commit)
    return merged[-MAX_COMMITS:]


def track_failing(failing: list[FailingTest], run: TestRun, prompt: int | None) -> list[FailingTest]:
    """The failing tests after ``run``: its failures added, its passes (by name, or a clean run over
    a scope holding the test) removed (``failing_tests.track``)."""
    before = [Failing(f.test, f.runner, f.prompt or 0) for f in failing]
    after = track(before, run, prompt or 0)
    return [FailingTest(test=f.test[:400], runner=f.runner, prompt=f.since_prompt or None) for f in after][
        -MAX_FAILING:
    ]


def verdict(command: str, output: str) -> TestRun | None:
    """The test run a shell command's output reports, if it is one."""
    shell = shell_command(command)
    if shell is None:
        return None
    return parse_run(shell, output)


def with_check(
    checks: list[CheckVerdict], command: str, output: str, prompt: int | None
) -> list[CheckVerdict]:
    """The latest verdict per check after ``command`` printed ``output`` (no verdict: unchanged)."""
    run = check_of(command, output)
    if run is None:
        return checks
    before = next((c for c in checks if c.target == run.target), None)
    kept = [c for c in checks if c.target != run.target and not (run.passed and _covers(run.target, c))]
    runs = before.runs + 1 if before else 1
    verdict = CheckVerdict(
        target=run.target, verdict=run.verdict, passed=run.passed, prompt=prompt, runs=runs
    )
    return [*kept, verdict][-MAX_CHECKS:]


_FORMAT_FLAGS = re.compile(
    r"\s(?:-v+|-q+|-x|-s|--tb=\S+|--verbose|--quiet|--no-header|--color=\S+|-rA|--durations=\S+)(?=\s|$)"
)


def _covers(target: str, older: CheckVerdict) -> bool:
    """A passing run that covers an older failing one: the same check, however verbose."""
    if older.passed:
        return False
    same = _FORMAT_FLAGS.sub("", f" {target}").strip()
    return (
        _FORMAT_FLAGS.sub("", f" {older.target}").strip() == same
        or (command_head(older.target) or "") == same
    )


def with_command(commands: list[ProjectCommand], command: str, hook: str | None) -> list[ProjectCommand]:
    """The project's commands after one more run of ``command`` (a hook's, or the agent's own)."""
    head = command_head(command)
    if head is None:
        return commands
    found = next((c for c in commands if c.command == head and c.hook == hook), None)
    if found is not None:
        return [c.model_copy(update={"runs": c.runs + 1}) if c is found else c for c in commands]
    if hook is None and not runs_checks(head) and len(head.split()) < 2:
        return commands  # "./run" or "bd": a bare word says little of how the project works
    added = [*commands, ProjectCommand(command=head[:200], hook=hook)]
    while len(added) > MAX_COMMANDS:  # the least run of the agent's own goes first; hooks stay
        own = [c for c in added if c.hook is None]
        added.remove(min(own or added, key=lambda c: c.runs))
    return added
