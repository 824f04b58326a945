"""Assembling additionalContext: reserved budgets first, one hard cap for the whole injection."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from continuity_core.models.hooks import Hook

# Claude Code caps additionalContext at 10,000 characters; stay clear of it.
MAX_INJECTION_CHARS = 9000
TRUNCATION_MARKER = "\n[truncated]"
SECTION_SEPARATOR = "\n\n"


def injection_limit(hook: Hook) -> int:
    """The harness's cap on injected context when the client sent one, else Claude Code's (with room)."""
    return hook.injection_cap_chars or MAX_INJECTION_CHARS


def fit(text: str, budget: int) -> str:
    """``text`` if it fits ``budget``; else cut, ending with a visible ``[truncated]`` marker."""
    if len(text) <= budget:
        return text
    room = max(0, budget - len(TRUNCATION_MARKER))
    return text[:room].rstrip() + TRUNCATION_MARKER


@dataclass(frozen=True)
class Section:
    text: str
    reserved_chars: int | None = None  # None: shares whatever the reserved sections leave
    cut: bool = False  # the section already left something out (and says so in its text)
    name: str = ""  # what the injection inspector calls it (recovery, ledger, inherited)


@dataclass(frozen=True)
class PlacedSection:
    """A section as placed: its size in the injection, and whether it lost anything."""

    name: str
    chars: int
    truncated: bool


@dataclass(frozen=True)
class Injection:
    text: str | None
    truncated: bool  # something was left out or cut; the text says so where it happened
    sections: tuple[PlacedSection, ...] = ()


def assemble(sections: list[Section], limit: int = MAX_INJECTION_CHARS) -> Injection:
    """Reserved sections get their budget set aside before anything else is placed; the whole
    stays within ``limit`` (the harness's cap), and every cut ends with a visible marker."""
    present = [section for section in sections if section.text]
    if not present:
        return Injection(None, False)
    separators = len(SECTION_SEPARATOR) * (len(present) - 1)
    reserved = sum(min(s.reserved_chars, limit) for s in present if s.reserved_chars is not None)
    shared_left = max(0, limit - reserved - separators)
    parts: list[str] = []
    placed: list[PlacedSection] = []
    truncated = any(section.cut for section in present)
    for section in present:
        if section.reserved_chars is not None:
            part = fit(section.text, min(section.reserved_chars, limit))
        else:
            part = fit(section.text, shared_left)
            shared_left -= len(part)
        truncated |= part != section.text
        placed.append(PlacedSection(section.name, len(part), section.cut or part != section.text))
        if part:
            parts.append(part)
    text = SECTION_SEPARATOR.join(parts)
    if len(text) > limit:
        text, truncated = fit(text, limit), True
    return Injection(text, truncated, tuple(placed))
