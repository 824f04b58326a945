"""Pasted material is context, not rules: what a user pasted into a prompt, told apart from what
they wrote around it.

Logs, stack traces, command output, HTTP headers from a HAR file, JSON, diffs and code pasted into
a prompt read as sentences to a sentence splitter ("error: failed to push some refs", "Cache-Control:
no-store, must-revalidate") and then as rules. A line is material by its shape (timestamps, stack
frames, ``key: value`` headers, JSON punctuation, diff and prompt marks, indentation, a tool's
``error:``/``warning:`` prefix), never by its words; a run of material lines, or a fenced block, is
left out, and the user's own sentences before and after it still count.
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_MATERIAL_LINE = re.compile(
    r"^\s*(?:"
    r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d|\[?\d\d:\d\d:\d\d|"  # timestamps
    r"at [\w$.<>]+ ?\(.*:\d+(?::\d+)?\)|at [\w$./<>]+:\d+|"  # JS / JVM stack frames
    r"File \".+\", line \d+|Traceback \(most recent call last\)|"  # Python
    r"[\w.]*(?:Error|Exception|Warning|Fatal)(?::|$)|panic:|goroutine \d+|"  # exceptions, Go panics
    r"(?:error|warning|hint|fatal|note|remote|npm ERR!|ERR!|E|W|I|D)(?:\[\w+\])?:\s|"  # tool prefixes
    r"\[(?:ERROR|WARN(?:ING)?|INFO|DEBUG|TRACE)\]|(?:ERROR|WARN(?:ING)?|INFO|DEBUG|TRACE)\b[:\s]|"
    r"(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) (?:/|https?://)|HTTP/\d|"  # requests
    r"[{}\[\]],?$|\"[^\"]+\"\s*:|[}\]],?\s*$|"  # JSON
    r"(?:\+\+\+|---|@@) |[+-](?![+-])\S|diff --git|index [0-9a-f]{6,}|"  # diffs
    r"[$#>] \S|>>> |In \[\d+\]:|"  # shell and REPL prompts
    r"[\w~./:@-]*[$#%](?: \S|\s*$)|[➜\u276f»λ] |"  # a shell prompt and its folder ("~/shop$ make", "➜ shop")
    r"(?:[\w.-]+, ){6,}|"  # a list of names only: fields, keys, options an output enumerates
    r"https?://\S+\s*$|"  # a link alone on its line
    r"[>E] {2,}\S|"  # pytest's failing line and its explanation ("E       AssertionError: …")
    r"[^\s:]+\.\w+:\d+(?::\d+)?:\s|"  # a file and line: a compiler's or a test runner's location
    r"(?:FAILED|PASSED|ERROR|SKIPPED|XFAIL|XPASS) [^\s:]+\.\w+::|"  # pytest's verdict lines
    r"platform \w+ -- Python \d|(?:rootdir|cachedir|configfile): \S|"  # pytest's header
    r"collect(?:ed|ing) \d+ items?\b|"
    r"\S+ [.FEsxX]+\s*\[ *\d+%\]|"  # pytest's progress ("tests/test_cart.py ..F.. [ 30%]")
    r"[_=*~#-]{5,}|"  # a report's separators ("____ test_name ____", "==== FAILURES ====")
    r"\d+\s*[|│]|[|│]|"  # numbered source lines, tables
    r"[!~^]{2,}|\^+\s*$"  # carets under an error
    r")"
)
# ``Key-Name: value`` lines: HTTP headers when several come together ("Heads-up: …" alone is prose).
_HEADER = re.compile(
    r"^\s*(?:[A-Z][\w-]*(?:-[A-Za-z]\w*)+|Host|Accept|Cookie|Origin|Referer|Authorization):\s"
)
_PROSE = re.compile(r"\b[a-z]+'?[a-z]*(?:\s+[a-z]+'?[a-z]*){3}\b")  # four plain words in a row
_INDENTED = re.compile(r"^(?: {4,}|\t)\S")
_CODE_CHARS = re.compile(r"[{};=<>|$\\()\[\]]")


def is_material_line(line: str) -> bool:
    """A line shaped like output, a log, headers, JSON, a diff or code (not like a sentence)."""
    stripped = line.strip()
    if not stripped:
        return False
    if _MATERIAL_LINE.match(line) or _INDENTED.match(line):
        return True
    if _HEADER.match(line):
        return not _PROSE.search(line)
    words = len(stripped.split())
    return len(_CODE_CHARS.findall(stripped)) >= max(3, words // 2)


def _neighbours(lines: list[str], index: int) -> tuple[int | None, int | None]:
    """The nearest non-blank lines before and after ``index``: a paste keeps its blank lines."""
    before = next((i for i in range(index - 1, -1, -1) if lines[i].strip()), None)
    after = next((i for i in range(index + 1, len(lines)) if lines[i].strip()), None)
    return before, after


def _between_material(lines: list[str], material: list[bool], index: int) -> bool:
    if material[index] or not lines[index].strip():
        return False
    before, after = _neighbours(lines, index)
    return before is not None and after is not None and material[before] and material[after]


def own_words(text: str) -> str:
    """``text`` without what was pasted into it: fenced blocks, and runs of two or more material
    lines (a single material line among prose is left out too when it is long or clearly output)."""
    lines = _FENCE.sub("\n", text).split("\n")
    material = [is_material_line(line) for line in lines]
    # A line between two material lines is part of the paste (a log's message between its timestamps).
    filled = [i for i in range(len(lines)) if _between_material(lines, material, i)]
    for index in filled:
        material[index] = True
    kept: list[str] = []
    for index, line in enumerate(lines):
        if material[index]:
            previous, following = _neighbours(lines, index)
            before = previous is not None and material[previous]
            after = following is not None and material[following]
            alone_is_output = not _HEADER.match(line) and (len(line) > 120 or _MATERIAL_LINE.match(line))
            if before or after or alone_is_output:
                kept.append("")
                continue
        kept.append(line)
    return without_quoted_prose("\n".join(kept))


# A paragraph said by the user to the agent: "I", "we", "let's", "please", "our"… ("you" is not enough:
# documentation says it to every reader).
_ADDRESSED = re.compile(r"\b(?:I|I'm|I'd|I've|[Ww]e|[Ww]e're|[Ll]et's|[Pp]lease|[Oo]ur|[Mm]y|me|us)\b")
QUOTED_PARAGRAPHS = 3  # a run this long of paragraphs addressing no one, beside one that does: quoted
QUOTED_CHARS = 600  # or this long


def without_quoted_prose(text: str) -> str:
    """``text`` without the prose it quotes: documentation, a man page or an email pasted as text
    addresses no one ("Tools can be invoked without installation using uv tool run, …") for
    paragraphs on end, while the user's own paragraph beside it does ("We need a cleaner way")."""
    paragraphs = re.split(r"\n\s*\n", text)
    if len(paragraphs) < QUOTED_PARAGRAPHS + 1:
        return text
    addressed = [bool(_ADDRESSED.search(p)) for p in paragraphs]
    if not any(addressed):
        return text
    quoted = [False] * len(paragraphs)
    start = 0
    while start < len(paragraphs):
        if addressed[start]:
            start += 1
            continue
        end = start
        while end < len(paragraphs) and not addressed[end]:
            end += 1
        run = paragraphs[start:end]
        if len(run) >= QUOTED_PARAGRAPHS or sum(len(p) for p in run) >= QUOTED_CHARS:
            for index in range(start, end):
                quoted[index] = True
        start = end
    return "\n\n".join(p for p, out in zip(paragraphs, quoted, strict=True) if not out)


_FAILED_TEST = re.compile(
    r"^(?:FAILED|ERROR)\s+(?:[^\s:]+::)?([\w\[\].-]+)|^--- FAIL: (\S+)|^\s*[\u00d7\u2717\u2715]\s+(.+?)\s*$|"
    r"^_{3,} ([\w\[\].:-]+) _{3,}$"  # pytest's header over each failure
)
_COUNTS = re.compile(r"\b\d+ (?:passed|failed|errors?|skipped|failures?|tests?)\b")
_KINDS = (
    ("pytest output", re.compile(r"pytest|test session starts|::\w+|^E\s{2,}|short test summary", re.M)),
    ("a traceback", re.compile(r"Traceback \(most recent call last\)|^\s+at [\w$.]+[ (]", re.M)),
    ("a diff", re.compile(r"^(?:diff --git|@@ |\+\+\+ |--- )", re.M)),
    ("JSON", re.compile(r"^\s*[\[{]|\"\w+\"\s*:", re.M)),
    ("headers", re.compile(r"^(?:GET|POST|PUT|HTTP/\d|[A-Z][\w-]+: )", re.M)),
)
MIN_PASTE_LINES = 3  # fewer material lines are quoted as they are


def _paste_note(lines: list[str]) -> str:
    """``(+ 45 lines of pytest output: 2 failed: test_a, test_b)``: what a pasted run of lines was."""
    text = "\n".join(lines)
    kind = next((name for name, pattern in _KINDS if pattern.search(text)), "pasted output")
    failed: list[str] = []
    for line in lines:
        found = _FAILED_TEST.match(line.strip())
        name = next((g for g in found.groups() if g), None) if found else None
        if name and name not in failed:
            failed.append(name)
    counts = [m.group(0) for line in lines for m in _COUNTS.finditer(line)]
    detail = ", ".join(dict.fromkeys(counts[-3:]))
    if failed:
        shown = ", ".join(failed[:3]) + (", …" if len(failed) > 3 else "")
        detail = f"{detail + '; ' if detail else ''}failing: {shown}"
    return f"(+ {len(lines)} lines of {kind}{': ' + detail if detail else ''})"


def _leading_prose(lines: list[str]) -> list[str]:
    """The lines of sentences a paragraph of output starts with (the user's words, not pasted)."""
    lead: list[str] = []
    for line in lines:
        if is_material_line(line) or not _PROSE.search(line):
            break
        lead.append(line)
    return lead


def summarise_pasted(text: str) -> str:
    """``text`` with each pasted run replaced by one line that says what it was: a fenced block, or
    paragraphs (between blank lines) of output — a third of their lines material, or between two
    such — of ``MIN_PASTE_LINES`` lines or more. The user's own words stay as written."""
    out: list[str] = []
    pieces = re.split(r"(```.*?(?:```|\Z))", text, flags=re.DOTALL)
    for index, piece in enumerate(pieces):
        if index % 2:  # a fenced block
            body = [line for line in piece.strip("`").split("\n")[1:] if line.strip()]
            out.append(_paste_note(body) if body else "")
            continue
        paragraphs = [p.split("\n") for p in re.split(r"\n\s*\n", piece)]
        material = [
            3 * sum(is_material_line(line) for line in lines) >= max(1, len([x for x in lines if x.strip()]))
            for lines in paragraphs
        ]
        for i in range(1, len(paragraphs) - 1):
            material[i] = material[i] or (material[i - 1] and material[i + 1])
        run: list[str] = []
        for lines, is_material in [*zip(paragraphs, material, strict=True), ([], False)]:
            if is_material:
                if not run:  # the user's sentence right above what they pasted stays theirs
                    lead = _leading_prose(lines)
                    out.append("\n".join(lead))
                    lines = lines[len(lead) :]
                run.extend(line for line in lines if line.strip())
                continue
            if len(run) >= MIN_PASTE_LINES:
                out.append(_paste_note(run))
            elif run:
                out.append("\n".join(run))
            run = []
            if lines:
                out.append("\n".join(lines))
    return re.sub(r"\n{3,}", "\n\n", "\n\n".join(p for p in out if p.strip())).strip()
