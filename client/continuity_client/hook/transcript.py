"""Readable text from a harness's transcript records: what the service keeps of a live session.

Each record (one JSONL line, or one message of Gemini CLI's older single-JSON file) becomes zero or
more blocks, each ended by a blank line::

    User: fix the flaky payment test
    Assistant: The mock's clock is not frozen; I'll patch it.
    Tool Bash: pytest tests/payments -q
    Result: 3 passed in 0.41s
    Plan:
    - [x] Freeze the clock
    - [>] Fix test_partial
    [Compact summary] This session is being continued from ...

User and assistant text are kept, tool use becomes the tool's name and a short form of its input,
tool results are trimmed to their head and, past it, the lines that carry a test verdict and the
last line (``trim_result``; a sub-agent's report, the result of Claude Code's Task/Agent tool, is
kept like the agent's own words), the agent's task list (TodoWrite, TaskCreate/TaskUpdate,
update_plan, write_todos, todowrite) is a ``Plan:`` block holding the whole list after each
change, thinking and reasoning are dropped, and bookkeeping records
(meta, progress, file-history snapshots, queue operations, token counts, ...) give nothing. A
prompt typed while Claude Code works (its ``queued_command`` attachment) is the user's. A
compaction is marked by a line of its own and its summary is labelled, never as ``User:``.

Context a harness injected into the user's turn is never the user's words: Gemini CLI's
``<hook_context>`` blocks are removed, and a user message that is our own injected block (the
recovery block, the inherited block, the ledger line, the compaction nudge) gives nothing.

The text of a record depends only on the record and on a small ``state`` carried from record to
record (Gemini CLI re-writes a message as its tool calls complete; Claude Code's task tools change
its task list one task at a time), so the same file always gives
the same text: the client can regenerate it from any position it recorded, which is how it
resends from the service's length after a 409.

The same pass notes the context size the harness itself recorded (``context_usage``).

On the hook path: imports ``json`` only (and ``re``, already loaded there, for a long result).
"""

from __future__ import annotations

from continuity_client.hook import context_usage
from continuity_client.hook import fastjson as json
from continuity_client.hook.harness import (
    CLAUDE_CODE,
    CODEX,
    GEMINI,
    OPENCODE,
    TASK_NOTIFICATION,
    users_words,
)

TYPE_CHECKING = False  # typing costs milliseconds at import; mypy reads this as True
if TYPE_CHECKING:
    import re
    from typing import Any

MAX_TEXT_CHARS = 16_000  # one user or assistant block
MAX_INPUT_CHARS = 200  # a tool's input, in short
MAX_RESULT_CHARS = 500  # a tool's result: its head
MAX_VERDICT_CHARS = 1_500  # then the lines of the rest that carry a test verdict, the last ones first
MAX_VERDICT_LINE_CHARS = 300  # one such line (or the result's last line)
MAX_PLAN_ITEMS = 40  # of an agent's task list
MAX_PLAN_ITEM_CHARS = 200
SEPARATOR = "\n\n"
# Gemini CLI: how many recent messages' emitted parts are remembered (it re-appends a message
# with the same id as its tool calls complete; older ids are not touched again).
GEMINI_WINDOW = 32
# How Codex's local compaction starts its summary (codex-rs/core/templates/compact/summary_prefix.md).
CODEX_SUMMARY_PREFIX = "Another language model started to solve this problem"
# What Gemini CLI's compression summary holds (its compression prompt asks for one).
SNAPSHOT_TAG = "<state_snapshot>"

# Keys whose value says best what a tool call does, in order of preference.
INPUT_KEYS = (
    "command",
    "cmd",
    "file_path",
    "filePath",
    "absolute_path",
    "notebook_path",
    "path",
    "pattern",
    "query",
    "url",
    "skill",
    "description",
    "prompt",
)
# Claude Code's tools that run a sub-agent: their result is the sub-agent's final report.
SUBAGENT_TOOLS = frozenset({"Task", "Agent"})
REMEMBERED_AGENT_CALLS = 16
# Tools that write the agent's whole task list: name -> (the list's key, its items' text key).
# Claude Code's TodoWrite, Codex's update_plan, Gemini CLI's write_todos, OpenCode's todowrite.
PLAN_TOOLS = {
    "TodoWrite": ("todos", "content"),
    "update_plan": ("plan", "step"),
    "write_todos": ("todos", "description"),
    "todowrite": ("todos", "content"),
}
# Claude Code 2.1's task tools change the list one task at a time (TaskList and TaskGet read it).
TASK_CREATE, TASK_UPDATE, TASK_LIST = "TaskCreate", "TaskUpdate", "TaskList"
PLAN_MARKS = {"completed": "x", "in_progress": ">"}  # anything else: pending
REMEMBERED_PLAN_CALLS = 16


class Rendered:
    """What one record gives: its text (blocks, each ending with a blank line) and whether a
    compaction happened at its start (``transcript_chars`` then counts from here)."""

    __slots__ = ("boundary", "text")

    def __init__(self, text: str = "", boundary: bool = False) -> None:
        self.text = text
        self.boundary = boundary


NOTHING = Rendered()


def clean(text: str) -> str:
    """Lone surrogates (valid JSON, not UTF-8) become U+FFFD: same length, as the service does."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in text)
    return text


def cut(text: str, limit: int) -> str:
    text = text.strip()
    if len(text) <= limit:
        return text
    return f"{text[:limit].rstrip()} … [+{len(text) - limit} chars]"


# A line of a test runner's output that says how the run went: a failing test's name, a failure
# list's header, a pass or fail summary. pytest, unittest, cargo, go test, jest, vitest, gradle,
# maven, ctest, rspec, mocha (compiled at first use: most results are short).
VERDICT_PATTERN = (
    r"^(?:"
    r"(?:FAILED|XPASS)\s+\S+|ERROR\s+\S*(?:::|\.py)"  # pytest: FAILED tests/x.py::test_y - ...
    r"|(?:FAIL|ERROR):\s+\w+"  # unittest: FAIL: test_x (mod.Class)
    r"|(?:FAILED|OK)\s+\(|OK$|PASS$|FAIL$|FAILED$"  # unittest / go summaries
    r"|Ran \d+ tests?\b"
    r"|test result:"  # cargo
    r"|test \S+ \.\.\. (?:FAILED|ignored)"
    r"|---- \S+ stdout ----"
    r"|error: test failed"
    r"|--- FAIL:"  # go test (subtests are indented)
    r"|(?:ok|FAIL)\s+\t?\S+\s+[\d.]+s"  # go: ok  \tpkg\t0.01s / FAIL\tpkg\t0.01s
    r"|(?:ok|FAIL)\s*\t\S+"
    r"|panic:"
    r"|FAIL\s+\S+"  # jest, vitest: FAIL  src/a.test.ts > suite > name
    r"|[\u00d7\u2717\u2715\u2718]\s*\S"  # vitest, jest, mocha: a failing test (multiplication x, ballot x)
    r"|\u25cf\s+\S"  # jest: a failure's header (black circle, suite, name)
    r"|Tests?(?: Files| Suites)?:?\s+\d+"  # jest/vitest summaries
    r"|(?=.* FAILED$)\S.* > "  # gradle: FooTest > bar() FAILED (the end checked first: linear)
    r"|BUILD (?:SUCCESSFUL|SUCCESS|FAILED|FAILURE)\b"  # gradle, maven
    r"|\d+ tests? completed"  # gradle
    r"|(?:\[(?:ERROR|INFO|WARNING)\]\s*)?Tests run:"  # maven surefire
    r"|\[ERROR\]\s+(?:Failures|Errors|Tests in error):?\s*$"
    r"|\[ERROR\]\s{2,}(?:Run \d+: )?[\w$.]+[.:#][\w$]+:\d+"  # maven: [ERROR]   FooTest.bar:12 ...
    r"|\[(?:ERROR|INFO)\]\s+BUILD"
    r"|.*<<< (?:FAILURE|ERROR)!"
    r"|The following tests FAILED:"  # ctest
    r"|\d+ - .+ \((?:Failed|Not Run|Timeout|SEGFAULT|Subprocess aborted|Exception|Disabled)\)$"
    r"|\d+% tests passed"
    r"|\d+/\d+ Test +#\d+: .*\*\*\*\w+"  # ctest: 5/6 Test #5: name ....***Failed
    r"|Errors while running CTest"
    r"|rspec \./\S+:\d+"  # rspec: rspec ./spec/x_spec.rb:12 # ...
    r"|Failed examples:"
    r"|\d+ examples?, \d+ failures?"
    r"|=+ (?=.*=$).*\b(?:passed|failed|errors?|no tests ran)\b"  # pytest: === 1 failed, 3 passed in 0.1s ===
    r"|.*\b\d+ (?:passed|failed|failures?|errors?|failing|passing|tests? failed)\b"  # any count summary
    r")"
)
CARGO_FAILED_NAME = r"^\s{4}[\w:<>\[\]$-]+$"  # a name under cargo's last "failures:" header
MAX_SCANNED_LINES = 5_000  # the verdict is at the end: only the last lines are looked at
MAX_SCANNED_LINE_CHARS = 1_000  # a longer line is no runner's verdict (minified code, a data dump)
_verdict: list[re.Pattern[str]] = []  # [compiled VERDICT_PATTERN, compiled CARGO_FAILED_NAME], at first use


def _verdict_patterns() -> list[re.Pattern[str]]:
    if not _verdict:
        import re  # already loaded by the hook path's standard library; compiled once, when needed

        _verdict.extend((re.compile(VERDICT_PATTERN), re.compile(CARGO_FAILED_NAME)))
    return _verdict


def verdict_lines(lines: list[str]) -> list[int]:
    """The indices of the lines that carry a test verdict (cargo's failure list with its header)."""
    verdict, cargo_name = _verdict_patterns()
    found: list[int] = []
    listing = False
    for index in range(max(0, len(lines) - MAX_SCANNED_LINES), len(lines)):
        line = lines[index]
        if len(line) > MAX_SCANNED_LINE_CHARS:
            listing = False
            continue
        if listing and cargo_name.match(line):
            found.append(index)
            continue
        listing = False
        stripped = line.strip()
        if stripped == "failures:":
            following = lines[index + 1] if index + 1 < len(lines) else ""
            if cargo_name.match(following):
                listing = True
                found.append(index)
        elif stripped and verdict.match(stripped):
            found.append(index)
    return found


def _line(text: str) -> str:
    text = text.rstrip()
    return text if len(text) <= MAX_VERDICT_LINE_CHARS else f"{text[:MAX_VERDICT_LINE_CHARS].rstrip()} …"


# A document's rule (a CLAUDE.md or AGENTS.md read, a task's spec from an issue tracker): what the
# session must keep to, kept past the head like a verdict line.
RULE_PATTERN = (
    r"(?i)\b(?:must|never|always|required|do not|don't|should not|shouldn't|exactly|only use|prefer|"
    r"make sure|use \S+ (?:instead|not)|no-gos?)\b"
)
DOCUMENT_PATTERN = r"(?m)^\s*(?:\d+\u2192)?#{2,3} \S"
MAX_RULE_CHARS = 800
_rules: list[re.Pattern[str]] = []  # [RULE_PATTERN, DOCUMENT_PATTERN], compiled at first use


def rule_lines(lines: list[str]) -> list[int]:
    """The indices of a document's lines that state a rule; none when the text is no document."""
    if not _rules:
        import re  # already loaded by the hook path's standard library; compiled once, when needed

        _rules.extend((re.compile(RULE_PATTERN), re.compile(DOCUMENT_PATTERN)))
    rule, document = _rules
    if not document.search("\n".join(lines[:400])):
        return []
    return [i for i, line in enumerate(lines) if len(line) < MAX_SCANNED_LINE_CHARS and rule.search(line)]


def trim_result(text: str, limit: int = MAX_RESULT_CHARS) -> str:
    """A tool result's head (``limit`` characters, as ``cut``), then, when it was longer, the lines
    of the rest that carry a test verdict (the last ones first, up to ``MAX_VERDICT_CHARS``) and
    its last non-empty line: a test run's failures are at the end of its output."""
    text = text.strip()
    if len(text) <= limit:
        return text
    head = text[:limit].rstrip()
    lines = text[limit:].split("\n")
    if text[limit - 1] != "\n":
        lines = lines[1:]  # the rest of a line the head shows the start of
    last = next((i for i in range(len(lines) - 1, -1, -1) if lines[i].strip()), None)
    if last is None:
        return f"{head} … [+{len(text) - limit} chars]"
    chosen: list[int] = []
    seen: set[str] = set()
    budget = MAX_VERDICT_CHARS
    for index in reversed(verdict_lines(lines)):
        shown = _line(lines[index])
        if shown in seen:
            continue
        if len(shown) + 1 > budget:
            break
        budget -= len(shown) + 1
        seen.add(shown)
        chosen.append(index)
    budget = MAX_RULE_CHARS
    for index in rule_lines(lines):
        shown = _line(lines[index])
        if index in chosen or shown in seen or len(shown) + 1 > budget:
            continue
        budget -= len(shown) + 1
        seen.add(shown)
        chosen.append(index)
    what = "verdict lines follow" if chosen else "last line follows"
    if last not in chosen:
        chosen.append(last)
    kept = "\n".join(_line(lines[index]) for index in sorted(chosen))
    return f"{head} … [+{len(text) - limit} chars; {what}]\n{kept}"


def one_line(text: str, limit: int) -> str:
    return cut(" ".join(text.split()), limit)


def blocks(*parts: str) -> str:
    return "".join(clean(part) + SEPARATOR for part in parts if part)


def short_input(value: object) -> str:
    """A tool's input in a line: its most telling field, else compact JSON."""
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except ValueError:
            return one_line(value, MAX_INPUT_CHARS)
        value = parsed
    if isinstance(value, dict):
        for key in INPUT_KEYS:
            found = value.get(key)
            if isinstance(found, list):
                found = " ".join(str(item) for item in found)
            if isinstance(found, str) and found.strip():
                return one_line(found, MAX_INPUT_CHARS)
    if value in (None, {}, []):
        return ""
    return one_line(json.dumps(value, ensure_ascii=False, sort_keys=True), MAX_INPUT_CHARS)


def result_text(value: object) -> str:
    """A tool result's text, whatever shape it came in (string, content blocks, {output: ...})."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        texts = []
        for item in value:
            if isinstance(item, dict) and item.get("type") == "image":
                texts.append("[image]")
            else:
                texts.append(result_text(item))
        return "\n".join(text for text in texts if text)
    if isinstance(value, dict):
        for key in ("text", "output", "content", "result", "llmContent", "response", "functionResponse"):
            if key in value:
                return result_text(value[key])
        return ""
    return "" if value is None else str(value)


def tool_line(name: object, arguments: object) -> str:
    shown = short_input(arguments)
    return f"Tool {name or '?'}: {shown}" if shown else f"Tool {name or '?'}"


def result_line(value: object, error: bool = False, limit: int = MAX_RESULT_CHARS) -> str:
    """A tool result, trimmed (``trim_result``); a longer ``limit`` (a sub-agent's report) cuts it."""
    raw = result_text(value)
    text = trim_result(raw, limit) if limit == MAX_RESULT_CHARS else cut(raw, limit)
    label = "Result (error)" if error else "Result"
    return f"{label}: {text}" if text else f"{label}: (empty)"


# ---------------------------------------------------------------------------------------------
# The agent's task list
# ---------------------------------------------------------------------------------------------


def _arguments(value: object) -> object:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return None
    return value


def _item_text(item: dict[str, Any], key: str) -> str:
    for name in (key, "content", "step", "description", "subject", "activeForm"):
        found = item.get(name)
        if isinstance(found, str) and found.strip():
            return found
    return ""


def plan_items(name: object, arguments: object) -> list[Any] | None:
    """The whole list a plan tool writes, as ``[status, text]`` pairs (None: not a plan call)."""
    shape = PLAN_TOOLS.get(name) if isinstance(name, str) else None
    arguments = _arguments(arguments)
    if shape is None or not isinstance(arguments, dict) or not isinstance(arguments.get(shape[0]), list):
        return None
    items = []
    for item in arguments[shape[0]]:
        if isinstance(item, dict):
            items.append([str(item.get("status") or ""), _item_text(item, shape[1])])
        elif isinstance(item, str):
            items.append(["", item])
    return items


def plan_block(items: list[Any]) -> str:
    """``Plan:`` and the whole list, one item a line: ``- [x]`` completed, ``- [>]`` in progress,
    ``- [ ]`` pending (a cancelled item is closed: ``- [x] … (cancelled)``)."""
    if not items:
        return "Plan: (empty)"
    lines = ["Plan:"]
    for status, text in items[:MAX_PLAN_ITEMS]:
        status = status.lower()
        mark = "x" if status == "cancelled" else PLAN_MARKS.get(status, " ")
        shown = one_line(text, MAX_PLAN_ITEM_CHARS) or "(untitled)"
        lines.append(f"- [{mark}] {shown} (cancelled)" if status == "cancelled" else f"- [{mark}] {shown}")
    if len(items) > MAX_PLAN_ITEMS:
        lines.append(f"… +{len(items) - MAX_PLAN_ITEMS} more")
    return "\n".join(lines)


def remember_call(state: dict[str, Any], call_id: str, kind: str, text: str = "") -> None:
    """A plan call whose result is not shown as is: ``plan`` (dropped), ``create``, ``list``."""
    if call_id:
        calls = state.setdefault("plan_calls", [])
        calls.append([call_id, kind, text[:MAX_PLAN_ITEM_CHARS]])
        del calls[:-REMEMBERED_PLAN_CALLS]


def recall_call(state: dict[str, Any], call_id: str) -> list[Any] | None:
    calls: list[list[Any]] = state.get("plan_calls") or []
    for index, call in enumerate(calls):
        if call[0] == call_id:
            del calls[index]
            if not calls:
                state.pop("plan_calls", None)
            return call
    return None


def _tasks(state: dict[str, Any]) -> list[Any]:
    """Claude Code's task list as the transcript built it: ``[id, status, subject]`` lists."""
    found = state.get("tasks")
    return found if isinstance(found, list) else []


def _set_tasks(state: dict[str, Any], tasks: list[Any]) -> str:
    """Keep the new list; its Plan block when it changed, else ``""``."""
    while len(tasks) > MAX_PLAN_ITEMS:  # the oldest completed task goes first, else the oldest
        done = next((i for i, task in enumerate(tasks) if task[1] == "completed"), 0)
        del tasks[done]
    if tasks == _tasks(state):
        return ""
    state["tasks"] = tasks
    return plan_block([[task[1], task[2]] for task in tasks])


def _task_list(found: object) -> list[Any] | None:
    """A whole task list as Claude Code gives it (TaskList's result, the task_reminder attachment)."""
    if not isinstance(found, list):
        return None
    tasks = [
        [
            str(task.get("id") or ""),
            str(task.get("status") or "pending"),
            one_line(_item_text(task, "subject"), MAX_PLAN_ITEM_CHARS),
        ]
        for task in found
        if isinstance(task, dict) and task.get("id") is not None and task.get("status") != "deleted"
    ]
    if all(task[0].isdigit() for task in tasks):
        tasks.sort(key=lambda task: int(task[0]))
    return tasks


def claude_plan_call(name: object, arguments: object, call_id: str, state: dict[str, Any]) -> str | None:
    """A Claude Code tool call that writes the task list: its Plan block (``""``: shown with its
    result); None for any other call."""
    items = plan_items(name, arguments)
    if items is not None:  # TodoWrite: the whole list
        remember_call(state, call_id, "plan")
        return plan_block(items)
    if not isinstance(arguments, dict):
        return None
    if name == TASK_CREATE:  # its id comes with the result
        subject = _item_text(arguments, "subject")
        remember_call(state, call_id, "create", one_line(subject, MAX_PLAN_ITEM_CHARS))
        return ""
    if name == TASK_LIST:
        remember_call(state, call_id, "list")
        return None
    if name != TASK_UPDATE or arguments.get("taskId") is None:
        return None
    ident = str(arguments["taskId"])
    tasks = [list(task) for task in _tasks(state)]
    task = next((task for task in tasks if task[0] == ident), None)
    if task is None:
        task = [ident, "pending", f"task #{ident}"]
        tasks.append(task)
    new_status: object = arguments.get("status")
    new_subject: object = arguments.get("subject")
    if new_status == "deleted":
        tasks.remove(task)
    elif isinstance(new_status, str) and new_status:
        task[1] = new_status
    if isinstance(new_subject, str) and new_subject.strip():
        task[2] = one_line(new_subject, MAX_PLAN_ITEM_CHARS)
    shown = _set_tasks(state, tasks)
    if not shown:
        return None  # an owner or a dependency changed: an ordinary call
    remember_call(state, call_id, "plan")
    return shown


def _created_id(record: dict[str, Any], text: str, state: dict[str, Any]) -> str:
    found = record.get("toolUseResult")
    task = found.get("task") if isinstance(found, dict) else None
    if isinstance(task, dict) and task.get("id") is not None:
        return str(task["id"])
    marker = text.find("Task #")  # "Task #3 created successfully: ..."
    if marker >= 0:
        digits = text[marker + 6 :].split(" ", 1)[0]
        if digits.isdigit():
            return digits
    numbers = [int(task[0]) for task in _tasks(state) if task[0].isdigit()]
    return str(max(numbers, default=0) + 1)


def claude_plan_result(
    call: list[Any], block: dict[str, Any], record: dict[str, Any], state: dict[str, Any]
) -> str | None:
    """The result of a remembered plan call: dropped (``""``), the new Plan block, or None (shown
    as any result: an error, a list it could not read)."""
    if block.get("is_error"):
        return None
    kind = call[1]
    if kind == "plan":
        return ""
    if kind == "create":
        text = result_text(block.get("content"))
        tasks = [list(task) for task in _tasks(state)]
        tasks.append([_created_id(record, text, state), "pending", call[2] or "(untitled)"])
        return _set_tasks(state, tasks) or None
    found = record.get("toolUseResult")
    listed = _task_list(found.get("tasks") if isinstance(found, dict) else None)
    if listed is None:
        return None
    _set_tasks(state, listed)
    return plan_block([[task[1], task[2]] for task in listed])


# ---------------------------------------------------------------------------------------------
# Claude Code
# ---------------------------------------------------------------------------------------------

CLAUDE_SKIPPED_TYPES = frozenset(
    {"summary", "file-history-snapshot", "progress", "queue-operation", "attachment", "custom-title"}
)
# A hook's outcome as Claude Code writes it in a ``system`` line (ANSI bold around the event):
# "PostToolUse:Edit [uv run ruff format] completed successfully: 24 files left unchanged".
_HOOK_OUTCOME = (
    r"(?s)^(\w+(?::[\w.-]+)?) \[(.+?)\] "  # the event (and tool), the command
    r"(completed successfully|failed[^:]*|[a-z][\w -]*error[^:]*)(?::\s*(.*))?$"  # the status, the output
)
_hook_outcome: list[Any] = []  # compiled at first use


def hook_outcome(record: dict[str, Any]) -> str:
    """A hook's outcome line (the project's own checks: a formatter after each edit, tests at each
    stop) as a ``Hook (event): command`` block and its ``Result``; other system lines: nothing."""
    content = record.get("content")
    if not isinstance(content, str) or record.get("subtype") or "[" not in content:
        return ""
    import re  # loaded by the hook path's standard library already; compiled once, when needed

    if not _hook_outcome:
        _hook_outcome.append(re.compile(_HOOK_OUTCOME))
    found = _hook_outcome[0].match(re.sub("\x1b\\[[0-9;]*m", "", content).strip())
    if found is None:
        return ""
    event, command, status, output = found.groups()
    result = trim_result(f"{status}: {output.strip()}" if output and output.strip() else status)
    return blocks(f"Hook ({event}): {one_line(command, MAX_INPUT_CHARS)}", f"Result: {result}")


def queued_operation(record: dict[str, Any], state: dict[str, Any]) -> str:
    """Claude Code's ``queue-operation`` lines: a prompt typed while the agent worked is enqueued;
    ``dequeue`` means a user line for it follows, ``remove`` that it was handed to the agent
    mid-turn and no user line will say it: then it is the user's words, placed before the agent's
    next message (not between a tool call and its result)."""
    operation = record.get("operation")
    if operation == "enqueue":
        state["queued"] = users_words(result_text(record.get("content")))
    elif operation == "remove" and state.get("queued"):
        state["handed"] = state.pop("queued")
    else:
        state.pop("queued", None)
    return ""


def handed_prompt(state: dict[str, Any]) -> str:
    """The prompt a ``remove`` handed over, once: it starts the agent's next message's turn."""
    handed = state.pop("handed", "")
    return f"User: {cut(handed, MAX_TEXT_CHARS)}" if handed else ""


def queued_prompt(record: dict[str, Any]) -> str:
    """A prompt typed while Claude Code worked: it writes no user line for it, only an
    ``attachment`` of type ``queued_command`` (``commandMode`` ``prompt``, ``origin.kind`` ``human``).
    Other modes (task notifications) and other origins (another session, auto-continuation) are not
    the user's words."""
    attachment = record.get("attachment")
    if not isinstance(attachment, dict) or attachment.get("type") != "queued_command":
        return ""
    if attachment.get("isMeta") or attachment.get("commandMode", "prompt") != "prompt":
        return ""
    origin = attachment.get("origin")
    if isinstance(origin, dict) and origin.get("kind", "human") != "human":
        return ""
    return users_words(result_text(attachment.get("prompt")))


def subagent_report(text: str) -> str:
    """Claude Code's ``<task-notification>`` turn: a background sub-agent's report, sent as if the
    user said it. Kept whole as the sub-agent's result, never as ``User:``."""
    return f"Result: {cut(text, MAX_TEXT_CHARS)}"


def _sidechain(record: dict[str, Any], state: dict[str, Any]) -> bool:
    """Sub-agent lines inside the main transcript (older Claude Code) are skipped there; a sub-agent's
    own transcript (``agent_transcript_path``) is all sidechain lines and is read whole."""
    if "chain" not in state and record.get("type") in ("user", "assistant"):
        state["chain"] = "side" if record.get("isSidechain") else "main"
    return bool(record.get("isSidechain")) and state.get("chain") == "main"


# The main chain's latest records a rewind can return to (the renderer's state is copied per record:
# kept small, ids shortened).
REMEMBERED_CHAIN = 120
CHAIN_ID_CHARS = 12


def _typed_prompt(record: dict[str, Any]) -> bool:
    """A prompt the user typed (not a tool result, a command, a hook's or the harness's text)."""
    if record.get("type") != "user" or record.get("isMeta") or record.get("isCompactSummary"):
        return False
    content = (record.get("message") or {}).get("content")
    if isinstance(content, list):
        texts = [b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"]
        if len(texts) != len(content):
            return False
        content = "\n".join(texts)
    return isinstance(content, str) and bool(content.strip()) and not content.lstrip().startswith(("<", "["))


def rewound(record: dict[str, Any], state: dict[str, Any]) -> str:
    """Claude Code's rewind: a typed prompt whose ``parentUuid`` is an earlier record of the main
    chain, not its latest. The prompts typed after that record, and their turns, were abandoned: a
    marker says how many, so that nothing of them reads as current."""
    if record.get("isSidechain") or record.get("type") not in ("user", "assistant", "system"):
        return ""
    chain: list[list[Any]] = state.setdefault("records", [])  # [uuid, typed prompts up to it]
    typed = int(state.get("typed", 0))
    marker = ""
    parent = str(record.get("parentUuid") or "")[:CHAIN_ID_CHARS]
    if _typed_prompt(record) and parent and chain and chain[-1][0] != parent:
        earlier = next((entry for entry in reversed(chain) if entry[0] == parent), None)
        abandoned = typed - int(earlier[1]) if earlier is not None else 0
        if abandoned > 0:
            marker = f"--- rewound: the last {abandoned} prompt(s) and their turns were abandoned ---"
            typed -= abandoned
    if _typed_prompt(record):
        typed += 1
    state["typed"] = typed
    if record.get("uuid"):
        chain.append([str(record["uuid"])[:CHAIN_ID_CHARS], typed])
        del chain[:-REMEMBERED_CHAIN]
    return blocks(marker) if marker else ""


def render_claude(record: dict[str, Any], state: dict[str, Any]) -> Rendered:
    marker = rewound(record, state)
    if state.get("handed") and record.get("type") == "assistant" and not record.get("isSidechain"):
        marker += blocks(handed_prompt(state))
    rendered = _render_claude(record, state)
    return Rendered(marker + rendered.text, rendered.boundary) if marker else rendered


def _render_claude(record: dict[str, Any], state: dict[str, Any]) -> Rendered:
    kind = record.get("type")
    if kind == "attachment" and not record.get("isMeta"):
        attachment = record.get("attachment")
        if isinstance(attachment, dict) and attachment.get("type") == "task_reminder":
            tasks = _task_list(attachment.get("content"))  # the whole list, now and then
            return Rendered(
                blocks(
                    _set_tasks(state, tasks) if tasks is not None and not _sidechain(record, state) else ""
                )
            )
        typed = queued_prompt(record)
        return Rendered(blocks(f"User: {cut(typed, MAX_TEXT_CHARS)}" if typed else ""))
    if kind == "queue-operation":
        return Rendered(queued_operation(record, state))
    if kind in CLAUDE_SKIPPED_TYPES or record.get("isMeta") or _sidechain(record, state):
        return NOTHING
    if kind == "system":
        if record.get("subtype") != "compact_boundary":
            return Rendered(hook_outcome(record))
        metadata = record.get("compactMetadata") or {}
        trigger = metadata.get("trigger") if isinstance(metadata, dict) else None
        return Rendered(blocks(f"--- context compacted ({trigger or 'compaction'}) ---"), boundary=True)
    message = record.get("message")
    if kind not in ("user", "assistant") or not isinstance(message, dict):
        return NOTHING
    content = message.get("content")
    if record.get("isCompactSummary"):
        text = cut(result_text(content), MAX_TEXT_CHARS)
        # Older versions write no compact_boundary line before the summary: the summary starts it.
        return Rendered(blocks(f"[Compact summary] {text}"), boundary=not state.get("compacted"))
    label = "User" if kind == "user" else "Assistant"
    if isinstance(content, str):
        if kind == "user" and content.lstrip().startswith(TASK_NOTIFICATION):
            return Rendered(blocks(subagent_report(content)))
        text = users_words(content) if kind == "user" else content.strip()
        return Rendered(blocks(f"{label}: {cut(text, MAX_TEXT_CHARS)}" if text else ""))
    parts: list[str] = []
    for block in content if isinstance(content, list) else ():
        if not isinstance(block, dict):
            continue
        kind_of = block.get("type")
        if kind_of == "text" and str(block.get("text") or "").strip():
            raw = str(block["text"])
            if kind == "user" and raw.lstrip().startswith(TASK_NOTIFICATION):
                parts.append(subagent_report(raw))
                continue
            text = users_words(raw) if kind == "user" else raw
            if text.strip():
                parts.append(f"{label}: {cut(text, MAX_TEXT_CHARS)}")
        elif kind_of == "tool_use":
            if block.get("name") in SUBAGENT_TOOLS and block.get("id"):
                calls = state.setdefault("agents", [])
                calls.append(str(block["id"]))
                del calls[:-REMEMBERED_AGENT_CALLS]
            plan = claude_plan_call(block.get("name"), block.get("input"), str(block.get("id") or ""), state)
            parts.append(tool_line(block.get("name"), block.get("input")) if plan is None else plan)
        elif kind_of == "tool_result":
            call_id = str(block.get("tool_use_id") or "")
            call = recall_call(state, call_id) if call_id else None
            plan = claude_plan_result(call, block, record, state) if call else None
            if plan is not None:
                parts.append(plan)
                continue
            if call and call[1] == "create":  # a failed TaskCreate: its call was not shown yet
                parts.append(f"Tool {TASK_CREATE}: {call[2]}" if call[2] else f"Tool {TASK_CREATE}")
            # A sub-agent's report is its findings: kept like prose, not trimmed like tool output.
            report = call_id in state.get("agents", ())
            limit = MAX_TEXT_CHARS if report else MAX_RESULT_CHARS
            parts.append(result_line(block.get("content"), bool(block.get("is_error")), limit))
        elif kind_of == "image":
            parts.append(f"{label}: [image]")
        # thinking, redacted_thinking and anything new: dropped
    return Rendered(blocks(*parts))


def claude_state_after(record: dict[str, Any], state: dict[str, Any]) -> None:
    """A compact_boundary line followed by its summary is one compaction, not two."""
    kind = record.get("type")
    if kind == "system" and record.get("subtype") == "compact_boundary":
        state["compacted"] = True
    elif kind in ("user", "assistant") and not record.get("isCompactSummary"):
        state.pop("compacted", None)


# ---------------------------------------------------------------------------------------------
# Codex
# ---------------------------------------------------------------------------------------------


def _codex_message_text(content: object) -> str:
    if isinstance(content, str):
        return content
    texts = []
    for item in content if isinstance(content, list) else ():
        if isinstance(item, dict) and isinstance(item.get("text"), str):
            texts.append(item["text"])
    return "\n".join(texts)


def _codex_summary(payload: dict[str, Any]) -> str:
    """A ``compacted`` record's summary: its ``message`` (local compaction: Codex's summary prefix,
    then the model's summary), else the summary message in its ``replacement_history``. A remote
    compaction (OpenAI's compact endpoint) leaves ``message`` empty and keeps only an encrypted
    ``compaction`` item: nothing readable."""
    summary = payload.get("message") or payload.get("summary") or ""
    if not isinstance(summary, str) or not summary.strip():
        history = payload.get("replacement_history")
        summary = next(
            (
                text
                for item in (history if isinstance(history, list) else ())
                if isinstance(item, dict) and item.get("type") == "message"
                for text in (_codex_message_text(item.get("content")),)
                if text.lstrip().startswith(CODEX_SUMMARY_PREFIX)
            ),
            "",
        )
    summary = summary.strip()
    if summary.startswith(CODEX_SUMMARY_PREFIX):  # boilerplate: "Another language model ... analysis:"
        end = summary.find("\n")
        summary = summary[end + 1 :].strip() if end >= 0 else ""
    return summary


def render_codex(record: dict[str, Any], state: dict[str, Any]) -> Rendered:
    kind = record.get("type")
    payload = record.get("payload")
    if not isinstance(payload, dict):
        return NOTHING
    if kind == "compacted":
        summary = _codex_summary(payload)
        summary_block = f"[Compact summary] {cut(summary, MAX_TEXT_CHARS)}" if summary else ""
        return Rendered(blocks("--- context compacted ---", summary_block), boundary=True)
    if kind != "response_item":  # session_meta, turn_context, event_msg (duplicates of items)
        return NOTHING
    item = payload.get("type")
    if item == "message":
        role = payload.get("role")
        text = _codex_message_text(payload.get("content")).strip()
        if not text or role not in ("user", "assistant"):
            return NOTHING  # developer/system messages are instructions, not the conversation
        if role == "user":
            text = users_words(text)
            if not text:
                return NOTHING
        label = "User" if role == "user" else "Assistant"
        return Rendered(blocks(f"{label}: {cut(text, MAX_TEXT_CHARS)}"))
    if item in ("function_call", "custom_tool_call"):
        arguments = payload.get("arguments") if item == "function_call" else payload.get("input")
        plan = plan_items(payload.get("name"), arguments)  # update_plan: the whole plan
        if plan is not None:
            remember_call(state, str(payload.get("call_id") or ""), "plan")
            return Rendered(blocks(plan_block(plan)))
        return Rendered(blocks(tool_line(payload.get("name"), arguments)))
    if item == "local_shell_call":
        action = payload.get("action")
        return Rendered(blocks(tool_line("shell", action if isinstance(action, dict) else None)))
    if item == "web_search_call":
        action = payload.get("action")
        return Rendered(blocks(tool_line("web_search", action if isinstance(action, dict) else None)))
    if item in ("function_call_output", "custom_tool_call_output", "local_shell_call_output"):
        if payload.get("call_id") and recall_call(state, str(payload["call_id"])):
            return NOTHING  # "Plan updated"
        return Rendered(blocks(result_line(payload.get("output"))))
    return NOTHING  # reasoning (encrypted or not) and anything new


# ---------------------------------------------------------------------------------------------
# Gemini CLI
# ---------------------------------------------------------------------------------------------


def _gemini_content(content: object) -> str:
    if isinstance(content, str):
        return content
    texts = []
    for item in content if isinstance(content, list) else ():
        if isinstance(item, dict) and isinstance(item.get("text"), str):
            texts.append(item["text"])
        elif isinstance(item, str):
            texts.append(item)
    return "\n".join(texts)


def _gemini_entry(message: dict[str, Any], state: dict[str, Any]) -> list[Any]:
    """What of this message was emitted: [id, text emitted, calls emitted, results emitted]."""
    ident = str(message.get("id") or "")
    seen: list[Any] = state.setdefault("seen", [])
    entry = next((item for item in seen if item[0] == ident), None) if ident else None
    if entry is None:
        entry = [ident, False, [], []]
        if ident:
            seen.append(entry)
            del seen[:-GEMINI_WINDOW]
    return entry


def _gemini_message(message: dict[str, Any], state: dict[str, Any]) -> str:
    """The parts of a message not emitted before: its text once, each tool call and result once."""
    entry = _gemini_entry(message, state)
    kind = message.get("type")
    parts: list[str] = []
    text = _gemini_content(message.get("content")).strip()
    if text and not entry[1]:
        if kind == "user":
            words = users_words(text)
            if words:
                parts.append(f"User: {cut(words, MAX_TEXT_CHARS)}")
        elif kind == "gemini":
            parts.append(f"Assistant: {cut(text, MAX_TEXT_CHARS)}")
        entry[1] = True
    calls = message.get("toolCalls")
    for index, call in enumerate(calls if isinstance(calls, list) else ()):
        if not isinstance(call, dict):
            continue
        call_id = str(call.get("id") or index)
        plan = plan_items(call.get("name"), call.get("args"))  # write_todos: the whole list
        if call_id not in entry[2]:
            entry[2].append(call_id)
            parts.append(tool_line(call.get("name"), call.get("args")) if plan is None else plan_block(plan))
        if call_id not in entry[3] and (call.get("result") is not None or call.get("resultDisplay")):
            entry[3].append(call_id)
            if plan is not None and call.get("status") != "error":
                continue
            result = call.get("result")
            if result is None:
                result = call.get("resultDisplay")
            parts.append(result_line(result, call.get("status") == "error"))
    return blocks(*parts)


def _gemini_mark_read(message: dict[str, Any], state: dict[str, Any]) -> None:
    """Note a message as emitted without emitting it (it was read before, in another file)."""
    entry = _gemini_entry(message, state)
    entry[1] = True
    calls = message.get("toolCalls")
    for index, call in enumerate(calls if isinstance(calls, list) else ()):
        if isinstance(call, dict):
            call_id = str(call.get("id") or index)
            entry[2].append(call_id)
            if call.get("result") is not None or call.get("resultDisplay"):
                entry[3].append(call_id)


def _gemini_rewrite(messages: list[Any], state: dict[str, Any]) -> Rendered:
    """A ``{"$set": {"messages": [...]}}`` record: Gemini CLI re-writes its whole history when it
    compresses it (and when it masks old tool output). Every message it had was first written as a
    line of its own, so a re-write brings nothing new, however long, except the compression's
    summary: a user turn the CLI writes itself, never seen before, holding the model's
    ``<state_snapshot>`` (chatCompressionService.ts), followed by the model's acknowledgement. It is
    labelled as a summary, never as ``User:``. Synthetic turns without a snapshot (the environment
    context the CLI puts first) are not the conversation."""
    seen = {item[0] for item in state.get("seen", ())}
    for index, message in enumerate(messages):
        ident = str(message.get("id") or "")
        if message.get("type") != "user" or not ident or ident in seen or ident == state.get("summary"):
            continue
        summary = _gemini_content(message.get("content")).strip()
        if SNAPSHOT_TAG not in summary:
            continue
        state["summary"] = ident
        _gemini_mark_read(message, state)
        after = messages[index + 1] if index + 1 < len(messages) else None
        if isinstance(after, dict) and after.get("type") == "gemini":
            _gemini_mark_read(after, state)  # "Got it. Thanks for the additional context!"
        summary_block = f"[Compact summary] {cut(summary, MAX_TEXT_CHARS)}"
        return Rendered(blocks("--- context compacted ---", summary_block), boundary=True)
    return NOTHING


def render_gemini(record: dict[str, Any], state: dict[str, Any]) -> Rendered:
    """One line of Gemini CLI's JSONL chat file (or one message of its older JSON file)."""
    update = record.get("$set")
    if isinstance(update, dict):
        messages = update.get("messages")
        if not isinstance(messages, list):
            return NOTHING
        return _gemini_rewrite([m for m in messages if isinstance(m, dict)], state)
    if record.get("type") in ("user", "gemini"):
        if state.get("skip"):
            # Migrated from the older JSON file (Gemini CLI copies every message into the new
            # JSONL file when it resumes one): read there already.
            state["skip"] -= 1
            _gemini_mark_read(record, state)
            return NOTHING
        return Rendered(_gemini_message(record, state))
    return NOTHING  # the metadata header, info and error lines


# ---------------------------------------------------------------------------------------------
# OpenCode
# ---------------------------------------------------------------------------------------------


def _opencode_parts(label: str, parts: list[Any]) -> list[str]:
    out: list[str] = []
    for part in parts:
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        if kind == "text":
            text = str(part.get("text") or "")
            text = users_words(text) if label == "User" else text  # never injected context
            # Synthetic text is OpenCode's own (a file it read for an @mention, a reminder), not the
            # user's or the model's words; ignored text never reached the model.
            if text.strip() and not part.get("synthetic") and not part.get("ignored"):
                out.append(f"{label}: {cut(text, MAX_TEXT_CHARS)}")
        elif kind == "file":
            # Never the url: an attached image is a data: URL of its whole content.
            name = part.get("filename") or part.get("mime")
            shown = f" {one_line(str(name), MAX_INPUT_CHARS)}" if name else ""
            out.append(f"{label}: [file{shown}]")
        elif kind == "tool":
            found = part.get("state")
            state: dict[str, Any] = found if isinstance(found, dict) else {}
            plan = plan_items(part.get("tool"), state.get("input"))  # todowrite: the whole list
            out.append(tool_line(part.get("tool"), state.get("input")) if plan is None else plan_block(plan))
            if state.get("status") == "completed" and plan is None:
                out.append(result_line(state.get("output")))
            elif state.get("status") == "error":
                out.append(result_line(state.get("error"), error=True))
        elif kind == "subtask":
            out.append(tool_line("task", {"description": part.get("description")}))
        # reasoning, step-start/finish, snapshot, patch, agent, retry and anything new: dropped
    return out


def render_opencode(record: dict[str, Any], state: dict[str, Any]) -> Rendered:
    """One message of an OpenCode session as its SDK gives it (``{"info": Message, "parts": [Part]}``),
    one per line of the file our plugin writes from OpenCode's own storage."""
    info = record.get("info")
    parts = record.get("parts")
    if not isinstance(info, dict) or not isinstance(parts, list):
        return NOTHING
    role = info.get("role")
    if role == "user":
        compaction = next((p for p in parts if isinstance(p, dict) and p.get("type") == "compaction"), None)
        if compaction is not None:
            trigger = "auto" if compaction.get("auto") else "manual"
            return Rendered(blocks(f"--- context compacted ({trigger}) ---"), boundary=True)
        return Rendered(blocks(*_opencode_parts("User", parts)))
    if role != "assistant":
        return NOTHING
    if info.get("summary"):  # the compaction's summary: what the session continues from
        texts = [str(p.get("text") or "") for p in parts if isinstance(p, dict) and p.get("type") == "text"]
        summary = "\n".join(t for t in texts if t.strip())
        return Rendered(blocks(f"[Compact summary] {cut(summary, MAX_TEXT_CHARS)}" if summary else ""))
    return Rendered(blocks(*_opencode_parts("Assistant", parts)))


RENDERERS = {
    CLAUDE_CODE: render_claude,
    CODEX: render_codex,
    GEMINI: render_gemini,
    OPENCODE: render_opencode,
}


def render(harness: str, record: object, state: dict[str, Any]) -> Rendered:
    """The readable text of one record; ``state`` is updated for the next one."""
    if not isinstance(record, dict):
        return NOTHING
    renderer = RENDERERS.get(harness, render_claude)
    rendered = renderer(record, state)
    if renderer is render_claude:
        claude_state_after(record, state)
    context_usage.note(harness, record, state)
    return rendered


def render_all(harness: str, records: list[Any], state: dict[str, Any] | None = None) -> str:
    """The readable text of a whole transcript (tests, and people reading a file by hand)."""
    current: dict[str, Any] = {} if state is None else state
    return "".join(render(harness, record, current).text for record in records)
