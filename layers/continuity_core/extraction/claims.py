"""An agent's report as short claims: what a successor reads under "Where things stand".

A final message mixes headings, bullets, numbered steps and paragraphs ("Done! Both fixes are in:
1. … 2. … The tests pass. Let me know if …"). ``claims`` splits it into items — one per bullet or
numbered line, one per sentence of prose — drops what carries nothing (greetings, offers, lead-ins
ending in a colon, the agent's intentions), puts a bullet's heading in front of it ("Fixed: …") and
keeps the most specific ones, in the report's order, each at most ``CLAIM_CHARS`` long.
"""

from __future__ import annotations

import re

from continuity_core.extraction.salience import salience

CLAIM_CHARS = 190
MAX_CLAIMS = 6
_BULLET = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+")
_HEADING = re.compile(r"^\s*(?:#{1,6}\s+|\*\*[^*]+\*\*:?\s*$)")
_FLUFF = re.compile(
    r"^\W*(?:done|perfect|great|excellent|awesome|all set|sure|ok(?:ay)?|good news|success)\W*$|"
    r"^\W*(?:let me know|would you like|do you want|shall i|should i|if you(?:'d)? (?:like|want)|feel free|"
    r"here(?:'s| is) (?:a |the )?(?:summary|what)|summary of (?:the )?changes|"
    r"i(?:'ll| will) |let me |now let me )",
    re.IGNORECASE,
)
_GENERIC_HEADING = re.compile(r"summary|changes|what i did|overview|result|details|done", re.IGNORECASE)
_LINK = re.compile(r"\[([^\]]+)\]\([^)\s]+\)")  # a markdown link: its text is enough
# Headings over a list of files touched: the Files section says that.
# Headings over the agent's sales pitch ("Key Benefits", "Advantages"): nothing a successor acts on.
_PITCH = re.compile(r"\b(?:benefits?|advantages?|highlights?|why this)\b", re.IGNORECASE)
_FILE_LIST = re.compile(
    r"^files?\b.{0,20}\b(?:created|updated|changed|modified|added|touched|edited)\b", re.I
)
_NUMBERED = re.compile(r"^\d+[.)]\s+")  # "2. Updated …" run into a paragraph
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`*\"(])")


def clip(text: str, limit: int = CLAIM_CHARS) -> str:
    """``text`` on one line, at most ``limit`` characters, cut at a word with an ellipsis."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut).rstrip(" ,;:") + "…"


def _plain(text: str) -> str:
    return re.sub(r"\*\*([^*]+)\*\*", r"\1", text).strip()


def claims(report: str, most: int = MAX_CLAIMS) -> list[str]:
    """The report's claims, in its order: its most specific ``most``; a list of the files it touched
    is left to the Files section."""
    items: list[str] = []
    heading = ""
    for raw in _LINK.sub(r"\1", report).split("\n"):
        line = raw.strip()
        if not line or set(line) <= set("-=*_`"):
            continue
        if _HEADING.match(line):
            heading = _plain(line.lstrip("#").strip()).rstrip(":")
            continue
        if _BULLET.match(line):
            text = _plain(_BULLET.sub("", line))
            if _FILE_LIST.search(heading) or _PITCH.search(heading):
                continue
            if text and not _FLUFF.match(text):
                telling = heading and len(heading.split()) <= 3 and not _GENERIC_HEADING.search(heading)
                items.append(f"{heading}: {text}" if telling else text)
            continue
        heading = ""
        for sentence in _SENTENCE_END.split(_plain(line)):
            if sentence.rstrip().endswith(":") or _FLUFF.match(sentence) or sentence.rstrip().endswith("?"):
                continue
            items.append(sentence)
    unique = list(dict.fromkeys(clip(_NUMBERED.sub("", i)) for i in items if len(i.split()) >= 2))
    if len(unique) <= most:
        return unique

    ranked = sorted(range(len(unique)), key=lambda i: salience(unique[i]).score, reverse=True)[:most]
    return [unique[i] for i in sorted(ranked)]


def without_lead_in(text: str, limit: int = CLAIM_CHARS) -> str:
    """A sentence too long for a line without its lead-in ("one thing that is really important before
    you start: nothing may use f32 sin/cos …"): what comes after the colon is the rule."""
    flat = " ".join(text.split())
    lead = flat.find(": ")
    if len(flat) <= limit or not 0 < lead < len(flat) * 0.4 or len(flat) - lead - 2 < 40:
        return flat
    return flat[lead + 2 :]


def clip_middle(text: str, limit: int = CLAIM_CHARS) -> str:
    """``text`` on one line within ``limit``: its start and its end, the middle cut at words (a rule's
    point is often at its end: "… must go through the fixed-point helpers in sim/fx.rs")."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    head_room = int((limit - 3) * 0.55)
    head = flat[:head_room]
    head = head[: head.rfind(" ")] if " " in head[head_room // 2 :] else head
    tail_room = limit - 3 - len(head)
    tail = flat[len(flat) - tail_room :]
    tail = tail[tail.find(" ") + 1 :] if " " in tail[: tail_room // 2] else tail
    return f"{head.rstrip(' ,;:')} … {tail.lstrip()}"
