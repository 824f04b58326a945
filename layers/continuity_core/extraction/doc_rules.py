"""The rules a document the session read states: a ``CLAUDE.md`` or ``AGENTS.md`` (the files that
tell an agent how to work in a repository), a task's spec printed by an issue tracker (``bd show``,
``gh issue view``). A task's rules end when the session closes the task (``bd close <id>``).

The session relied on them; a compaction summary often drops them ("UI work must follow the
AGENTS.md Frontend Tasks guidance", "Do not replace highlight.js"). A line is a rule by its words
(must, never, always, do not, exactly …), and only inside a document: a markdown file read whole,
or command output with ``##`` headings. Lead-ins ("Render button text exactly:") and long lines
are not rules on their own.
"""

from __future__ import annotations

import re

DOCUMENT_RULE = "rule of "  # a rule fact's detail: "rule of CLAUDE.md"
RULES_PER_DOCUMENT = 5
RULE_CHARS = 200
# The files that tell an agent how to work in a repository (not a README: it describes the product).
_INSTRUCTION_FILE = re.compile(
    r"(?:^|/)(?:CLAUDE|AGENTS|GEMINI|CONVENTIONS|CONTRIBUTING|STYLE|RULES|\.cursorrules|copilot-instructions)"
    r"[\w.-]*$|/\.(?:cursor/rules|claude|github)/[^/]+\.mdc?$",
    re.IGNORECASE,
)
_RULE = re.compile(
    r"\b(?:must|never|always|required|do not|don't|should not|shouldn't|exactly|only use|prefer|make sure)\b",
    re.IGNORECASE,
)
_HEADED = re.compile(r"(?m)^\s*(?:\d+\u2192)?#{2,3} \S")
_LINE_MARK = re.compile(r"^\s*(?:\d+\u2192)?\s*(?:[-*+]\s+|\d+[.)]\s+)?")
_TOOL = re.compile(r"^Tool (\w+)(?::\s*(.*))?$", re.DOTALL)


def document_of(tool_line: str, output: str) -> str | None:
    """The document a tool call read (its file name, or the command that printed it), if it read one."""
    found = _TOOL.match(tool_line.strip())
    if found is None:
        return None
    name, argument = found.group(1).lower(), (found.group(2) or "").strip()
    if name in ("read", "read_file", "view", "cat", "open_file"):
        return argument.rsplit("/", 1)[-1] if _INSTRUCTION_FILE.search(argument) else None
    if name in ("bash", "shell", "exec_command", "run_shell_command") and _HEADED.search(output):
        return " ".join(argument.split()[:3])[:60]
    return None


def document_rules(tool_line: str, output: str) -> list[tuple[str, str]]:
    """(rule, document) for each rule the output of ``tool_line`` states, at most ``RULES_PER_DOCUMENT``."""
    document = document_of(tool_line, output)
    if document is None:
        return []
    found: list[tuple[str, str]] = []
    for raw in output.splitlines():
        text = _LINE_MARK.sub("", raw).strip().strip("*").strip()
        if not 12 <= len(text) <= RULE_CHARS or text.endswith(":") or not _RULE.search(text):
            continue
        if text not in (f[0] for f in found):
            found.append((text, document))
        if len(found) >= RULES_PER_DOCUMENT:
            break
    return found


_CLOSES = re.compile(r"\b(?:close|closed|done|resolve|complete)\b\s+(?:--?\S+\s+)*([\w./#-]*\w)")


def closed_task(command: str) -> str | None:
    """The task a shell command closes (``bd close spotter-gqc.4``, ``gh issue close 42``)."""
    found = _CLOSES.search(command)
    return found.group(1) if found else None
