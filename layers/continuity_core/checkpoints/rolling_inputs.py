"""What the rolling digest reads at a checkpoint: the prompts and remembers pending in the session
state, and the live transcript since the digest last read it (the user's full words, the agent's
prose and tool calls, the harness's compaction summary).

The transcript is the client's readable text (``client/continuity_client/hook/transcript.py``): blocks
separated by a blank line, each starting with a label — ``User:``, ``Assistant:``, ``Tool Edit:``,
``Result:``, ``[Compact summary]`` or a ``--- context compacted ---`` marker. A block's later
paragraphs carry no label.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from continuity_core.checkpoints.rolling import Statement
from continuity_core.extraction.refusals import refusal_reason
from continuity_core.extraction.sticky import Role
from continuity_core.hooks.injected_context import is_injected, strip_injected
from continuity_core.models.session_digest import FactKind, FactSource, PromptNote
from continuity_core.models.state import SessionState

_LABEL = re.compile(
    r"^(User:|Assistant:|Tool [\w.:-]+?(?=:|$)|Hook \([^)\n]*\)(?=:)|Result(?: \(error\))?:|Plan:|"
    r"\[Compact summary\]|--- context compacted|--- rewound)"
)
_SPACES = re.compile(r"\s+")
# What a user block holds that is not the user's own words: slash commands, hook and system text.
_NOT_WORDS = re.compile(
    r"^\s*(?:/[\w:-]+(?:\s|$)|<command-|<local-command|<bash-|<system-reminder>|<user-prompt-submit-hook>|"
    r"Caveat: The messages below|\[Request interrupted|\[image\])",
)
MATCH_CHARS = 60
# Tools that run a sub-agent (Claude Code's Task, renamed Agent): their result is the sub-agent's
# final report, the agent's own findings as much as its prose is.
SUBAGENT_TOOLS = frozenset({"Task", "Agent"})


@dataclass(frozen=True)
class Block:
    label: str  # "User", "Assistant", "Tool", "Result", "Summary", "Marker"
    text: str


def transcript_blocks(text: str) -> list[Block]:
    """The labelled blocks in order; a line without a label continues the block before it."""
    blocks: list[Block] = []
    for line in text.split("\n"):
        match = _LABEL.match(line)
        if match is None:
            if blocks:
                last = blocks[-1]
                blocks[-1] = Block(last.label, f"{last.text}\n{line}")
            continue
        label = match.group(1)
        if label.startswith(("Tool ", "Hook (")):
            blocks.append(Block("Tool", line.strip()))
        elif label == "[Compact summary]":
            blocks.append(Block("Summary", line[len(label) :].strip()))
        elif label.startswith(("--- context compacted", "--- rewound")):
            blocks.append(Block("Marker", line.strip()))
        else:
            blocks.append(Block(label.split(" ")[0].rstrip(":"), line[len(label) :].strip()))
    return [Block(b.label, b.text.strip()) for b in blocks if b.text.strip()]


def _runs_subagent(block: Block) -> bool:
    """``Tool Task: <description>`` (or ``Tool Agent``): the block the sub-agent's report answers."""
    if block.label != "Tool":
        return False
    name = block.text[len("Tool ") :].split(":", 1)[0].strip()
    return name in SUBAGENT_TOOLS


_REWOUND = re.compile(r"^--- rewound: the last (\d+) prompt")


def rewound_prompts(marker: str) -> int:
    """How many prompts a rewind marker says were abandoned (0: not a rewind)."""
    found = _REWOUND.match(marker)
    return int(found.group(1)) if found else 0


def is_users_words(text: str) -> bool:
    """Not a slash command, hook or system text, nor context a harness injected into the turn."""
    return bool(text.strip()) and not _NOT_WORDS.match(text) and not is_injected(text)


def _flat(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


@dataclass(frozen=True)
class DigestInputs:
    statements: list[Statement]
    last_instruction: Statement | None
    recent: list[PromptNote]


def numbered_snippets(state: SessionState) -> list[PromptNote]:
    """The pending prompts with their session numbers (the last is the session's latest prompt)."""
    snippets = state.pending_snippets
    first = state.total_prompts - len(snippets) + 1
    return [PromptNote(prompt=first + i, text=text) for i, text in enumerate(snippets)]


def digest_inputs(
    state: SessionState,
    transcript: str,
    known: list[PromptNote],
    now: datetime,
    extra: list[Statement] | None = None,
) -> DigestInputs:
    """Statements in the order they were said. A prompt the transcript holds is read in full there;
    one it does not hold yet (the latest, usually) is read from its snippet."""
    pending = numbered_snippets(state)
    blocks = transcript_blocks(transcript)
    numbers = _user_numbers(blocks, [*known, *pending])
    matched = {n for n in numbers.values() if n is not None}
    from_transcript: list[Statement] = []
    number: int | None = None
    last_user: Statement | None = None
    finals = _final_messages(blocks)
    calls: list[Block] = []  # tool calls not answered yet: parallel calls' results come in their order
    for index, block in enumerate(blocks):
        call = calls.pop(0) if block.label == "Result" and calls else None
        if block.label == "Tool":
            calls.append(block)
        elif block.label in ("User", "Assistant"):
            calls.clear()
        if block.label == "User":
            if index not in numbers:
                continue
            number = numbers[index] or number
            words = strip_injected(block.text) or block.text
            statement = Statement(words, Role.USER, FactSource.PROMPT, number, now)
            from_transcript.append(statement)
            last_user = statement
        elif block.label == "Assistant":
            from_transcript.append(
                Statement(block.text, Role.AGENT, FactSource.AGENT, number, now, final=index in finals)
            )
        elif block.label == "Plan":
            from_transcript.append(
                Statement(block.text, Role.AGENT, FactSource.AGENT, number, now, plan=True)
            )
        elif block.label == "Tool":
            from_transcript.append(
                Statement(block.text, Role.AGENT, FactSource.AGENT, number, now, tool=True)
            )
        elif block.label == "Marker" and (abandoned := rewound_prompts(block.text)):
            from_transcript.append(
                Statement(block.text, Role.USER, FactSource.PROMPT, number, now, rewound=abandoned)
            )
        elif block.label == "Summary":
            from_transcript.append(
                Statement(block.text, Role.SUMMARY, FactSource.COMPACTION_SUMMARY, number, now)
            )
        elif block.label == "Result" and call is not None and _runs_subagent(call):
            # A sub-agent's report: its findings, as the agent's own final words.
            from_transcript.append(
                Statement(block.text, Role.AGENT, FactSource.AGENT, number, now, final=True)
            )
        elif block.label == "Result" and (reason := refusal_reason(block.text)):
            # The user turned a tool call down and said why ("use pnpm"): a rule of theirs.
            from_transcript.append(
                Statement(reason, Role.USER, FactSource.PROMPT, number, now, kind=FactKind.CONSTRAINT)
            )
        elif block.label == "Result" and call is not None:
            # A tool's output: its verdicts (tests, commits), read with the command that made it.
            from_transcript.append(
                Statement(block.text, Role.AGENT, FactSource.AGENT, number, now, command=call.text)
            )
    first_matched = min(matched) if matched else None
    before: list[Statement] = []
    after: list[Statement] = []
    for note in pending:
        if note.prompt in matched:
            continue
        statement = Statement(note.text, Role.USER, FactSource.PROMPT, note.prompt, now)
        (before if first_matched is not None and note.prompt < first_matched else after).append(statement)
    # Each remember at the time it arrived (a state written before those times were kept: now).
    times = state.pending_remember_at
    remembers = [
        Statement(
            text,
            Role.USER,
            FactSource.REMEMBER,
            state.total_prompts or None,
            times[index] if len(times) == len(state.pending_remembers) else now,
            kind=FactKind.REMEMBERED,
        )
        for index, text in enumerate(state.pending_remembers)
    ]
    statements = [*before, *from_transcript, *after, *remembers, *(extra or [])]
    last = _last_instruction(state, pending, last_user, after)
    return DigestInputs(statements, last, pending)


def _final_messages(blocks: list[Block]) -> set[int]:
    """The index of each turn's last agent message (the one before the next user block)."""
    finals: set[int] = set()
    last: int | None = None
    for index, block in enumerate(blocks):
        if block.label == "Assistant":
            last = index
        elif block.label in ("User", "Marker", "Summary") and last is not None:
            finals.add(last)
            last = None
    if last is not None:
        finals.add(last)
    return finals


def _user_numbers(blocks: list[Block], notes: list[PromptNote]) -> dict[int, int | None]:
    """The session prompt number of each user block (by block index), from the prompts it matches;
    blocks between two matches, or after the last one, are numbered by counting from a match."""
    users = [i for i, block in enumerate(blocks) if block.label == "User" and is_users_words(block.text)]
    found: dict[int, int | None] = {i: _number(blocks[i].text, notes) for i in users}
    anchors = [(position, found[i]) for position, i in enumerate(users) if found[i] is not None]
    # Between two matches whose numbers agree with the count of blocks between them, count; a block
    # before the first or after the last match is counted from it only when nothing contradicts.
    for position, index in enumerate(users):
        if found[index] is not None or not anchors:
            continue
        before = [a for a in anchors if a[0] < position]
        after = [a for a in anchors if a[0] > position]
        low, high = (before[-1] if before else None), (after[0] if after else None)
        if low and high and (high[1] or 0) - (low[1] or 0) != high[0] - low[0]:
            continue  # blocks and prompts disagree here: leave it unnumbered
        anchor = low or high
        assert anchor is not None
        guess = (anchor[1] or 0) + position - anchor[0]
        found[index] = guess if guess > 0 else None
    return found


def _number(text: str, notes: list[PromptNote]) -> int | None:
    """The prompt this block is; None when no prompt, or more than one (a repeated "continue"), fits."""
    flat = _flat(text)
    fits = {
        note.prompt
        for note in notes
        if (head := note.text.rstrip("…").strip()[:MATCH_CHARS]) and flat.startswith(head)
    }
    return fits.pop() if len(fits) == 1 else None


def _last_instruction(
    state: SessionState, pending: list[PromptNote], last_user: Statement | None, after: list[Statement]
) -> Statement | None:
    """The session's latest prompt, in full when the transcript holds it."""
    if after:
        latest = after[-1]
        if latest.prompt == state.total_prompts:
            return latest
    if last_user is not None and (last_user.prompt is None or last_user.prompt == state.total_prompts):
        return last_user
    return after[-1] if after else last_user
