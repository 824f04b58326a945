"""Which of a rolling digest's facts the briefing leaves out, the tests its sections share: what the
harness's compaction summary holds, pasted output, the user's last instruction itself, a sentence of
before a change that names the old value; the agent's latest report and the questions still open.
"""

from __future__ import annotations

import re

from continuity_core.checkpoints.digest_work import CONCLUSION, visibly_linked
from continuity_core.extraction.pasted import is_material_line, summarise_pasted
from continuity_core.extraction.salience import rare_terms, salience
from continuity_core.extraction.sticky import ASKED
from continuity_core.models.session_digest import Fact, FactKind, FactSource, FactStatus, SessionDigest

FACT_FLOOR = 0.5  # a decision or question said in passing needs this much content
LIVE = (FactSource.PROMPT, FactSource.AGENT)
# The agent offering to do more ("Would you like me to …?"): settled once the user typed another prompt.
_OFFER = re.compile(
    r"\b(?:would you like|you'?d like|do you want|shall I|should I|want me to|would you prefer)\b",
    re.IGNORECASE,
)


def held(fact: Fact, after_summary: bool) -> bool:
    """Beside the compaction summary: what it already says (and what was read out of it)."""
    return after_summary and (fact.in_summary or fact.source is FactSource.COMPACTION_SUMMARY)


def latest_report(digest: SessionDigest) -> Fact | None:
    """The agent's latest word on the work: its last final message, or the summary it gave in its
    own digest (``session_digest``) when that came later."""
    report, summary = digest.report, digest.summary
    if summary is not None and summary.text.strip() and (report is None or summary.at >= report.at):
        return summary
    return report


def outdated_terms(digest: SessionDigest) -> list[tuple[int, frozenset[str]]]:
    """Per superseded decision: when, and the rare terms it had that what replaced it has not (the
    old value: "esbuild" after "move to WXT")."""
    found = []
    for fact in digest.facts:
        if fact.status is FactStatus.SUPERSEDED and fact.ended_prompt is not None:
            old = rare_terms(fact.text) - rare_terms(fact.ended_by or "")
            if old:
                found.append((fact.ended_prompt, old))
    return found


def is_outdated(fact: Fact, outdated: list[tuple[int, frozenset[str]]]) -> bool:
    """A sentence of before a change that names the old value: shown, it would read as current."""
    if fact.detail not in (None, CONCLUSION, ASKED) or fact.accepted_prompt is not None:
        return False
    said = fact.last_prompt or fact.prompt or 0
    terms = rare_terms(fact.text)
    return any(said < when and terms & old for when, old in outdated)


def is_instruction(digest: SessionDigest, fact: Fact) -> bool:
    instruction = digest.last_instruction
    return instruction is not None and fact.text.rstrip("…")[:60] in instruction.text


def is_pasted(text: str) -> bool:
    """Output, a log line or a traceback taken for a sentence: no rule, decision or question."""
    first = text.strip().split("\n", 1)[0]
    return is_material_line(first) or summarise_pasted(text) != text.strip()


def open_questions(digest: SessionDigest, after_summary: bool = False) -> list[Fact]:
    """Still open: not closed, not answered by a sentence about it, not asked and answered in one
    turn, not pasted output, said with some content."""
    return [
        f
        for f in digest.of(FactKind.QUESTION)
        if not (f.detail == ASKED and f.answer and f.answer_prompt == f.prompt)
        and not (f.detail == ASKED and (f.prompt or 0) < digest.prompts and _OFFER.search(f.text))
        and not (f.answer and visibly_linked(f.text, f.answer))
        and not _passed_since(digest, f)
        and not is_instruction(digest, f)
        and not is_pasted(f.text)
        and not held(f, after_summary)
        and (f.source not in LIVE or salience(f.text).score >= FACT_FLOOR)
    ]


_TEST_NAME = re.compile(r"\btest_\w+|\b\w+_test\b|\bTest[A-Z]\w+")


def _passed_since(digest: SessionDigest, fact: Fact) -> bool:
    """A problem naming tests none of which still fail, with a passing run since: settled."""
    named = set(_TEST_NAME.findall(fact.text))
    if not named:
        return False
    failing = " ".join(t.test for t in digest.failing)
    since = fact.last_prompt or fact.prompt or 0
    passed = any(c.passed and (c.prompt or 0) >= since for c in digest.checks)
    return passed and not any(name in failing for name in named)
