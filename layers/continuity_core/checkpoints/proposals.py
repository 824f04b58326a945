"""The agent's final message of a turn and the user's reply to it: its labelled facts, its most
specific sentences as findings, the question it asks, the proposal it puts to the user and the
report of where things stand (``take_report``); a short reply with nothing of its own ("ok do it",
"A") accepts that proposal as a decision (``accept_proposal``).
"""

from __future__ import annotations

import re

from continuity_core.checkpoints.digest_work import CONCLUSION, Statement, WorkingDigest
from continuity_core.checkpoints.fact_merge import FACT_CHARS, add_fact
from continuity_core.checkpoints.questions import note_answer
from continuity_core.extraction.salience import has_content, salience
from continuity_core.extraction.sticky import ASKED, Candidate, Role, extract, sentences
from continuity_core.extraction.terms import snippet
from continuity_core.models.session_digest import Fact, FactKind, FactSource

REPORT_CHARS = 1800  # the agent's latest report, as written: the briefing splits it into claims
CONCLUSIONS_PER_TURN = 2  # a final message's specific sentences kept as findings
# A reply that says no, not yet or wait is no acceptance, however short.
_NOT_ACCEPTING = re.compile(
    r"^\W*(?:no|nope|nah|not|don'?t|do not|wait|stop|hold|hmm+|never|why|what)\b", re.I
)
_OPTION = re.compile(
    r"^\W*(?:option\s+)?([A-Da-d1-4])\W*$|^\W*(?:option|go with|take)\s+([A-Da-d1-4])\b", re.I
)
# The grammar of a proposal put to the user: a first-person suggestion, a question to them, options.
_PROPOSING = re.compile(
    r"\b(?:i'?d|i would|i suggest|i recommend|i propose|i lean|my (?:suggestion|recommendation|vote)|"
    r"we could|we should|you could|should (?:i|we)|want me to|shall (?:i|we)|do you want|option)\b"
    r"|^\W*(?:[A-D]|\d)[:).]\s",
    re.IGNORECASE,
)
ACCEPT_WORDS = 8
# Options laid out side by side ("Option 1: …  Option 2: …", "A) … B) …"), and the one recommended.
_OPTION_LABEL = re.compile(r"(?:^|\s)(?:option\s+)?([A-D1-4])[:)]\s", re.IGNORECASE)
_NAMED_OPTION = re.compile(r"\b(?:option|with|pick|choose|take)\s+([A-D1-4])\b", re.IGNORECASE)
_RECOMMENDS = re.compile(
    r"\b(?:recommend|suggest|i'?d (?:go|pick|use|choose)|my (?:pick|vote))", re.IGNORECASE
)


def accept_proposal(work: WorkingDigest, words: str, statement: Statement) -> None:
    """ "ok do it", "👍", "A": a short reply with nothing of its own accepts what the agent proposed
    in the turn before; the proposal becomes a decision (the option named, when one is)."""
    proposal, reply = work.proposal, words.strip()
    if proposal is None or not reply or statement.prompt is None:
        return
    if proposal.prompt is not None and statement.prompt - proposal.prompt > 1:
        work.proposal = None
        return
    option = _OPTION.match(reply)
    short = len(reply.split()) <= ACCEPT_WORDS and not reply.endswith("?") and not has_content(reply)
    if option is None and (not short or _NOT_ACCEPTING.match(reply)):
        work.proposal = None
        return
    text = proposal.text
    if option is not None:
        text = _option(text, (option.group(1) or option.group(2)).upper()) or text
    elif len({label.upper() for label in _OPTION_LABEL.findall(text)}) >= 2:
        # "ok" to a menu picks what the agent recommended, if it did; else nothing was chosen yet
        recommended = [s for s in sentences(text, 1) if _RECOMMENDS.search(s)]
        if not recommended:
            work.proposal = None
            return
        named = _NAMED_OPTION.search(recommended[-1])
        text = (named and _option(text, named.group(1).upper())) or recommended[-1]
    accepted = Candidate(FactKind.DECISION, text)
    add_fact(
        work, accepted, statement, source=FactSource.AGENT, accepted=statement.prompt, prompt=proposal.prompt
    )
    work.proposal = None


def _option(proposal: str, label: str) -> str | None:
    """The sentence of ``proposal`` that lays out option ``label``."""
    chosen = [s for s in sentences(proposal, 1) if re.match(rf"^\W*(?:option\s+)?{label}\b", s, re.I)]
    return chosen[0] if chosen else None


def take_report(work: WorkingDigest, statement: Statement) -> None:
    """A turn's final agent message: its labelled facts, its most specific sentences as findings, its
    proposal awaiting the user's reply, and the latest report of where things stand."""
    told = [s for s in sentences(statement.text) if has_content(s)]
    labelled = set()
    for candidate in extract(statement.text, Role.AGENT):
        if candidate.kind is not FactKind.FILE and has_content(candidate.text):
            add_fact(work, candidate, statement)
            labelled.add(candidate.text)
    concluded = [s for s in told if _concludes(s)]
    ranked = sorted(concluded, key=lambda s: salience(s).score, reverse=True)
    whole = " ".join(concluded)  # what it asks is a question of its own, not part of its report
    if concluded and len(whole) <= FACT_CHARS and salience(whole).score >= CONCLUSION_FLOOR:
        # A short report is one finding: its sentences explain each other.
        add_fact(work, Candidate(FactKind.FINDING, whole, CONCLUSION), statement)
    else:
        for sentence in ranked[:CONCLUSIONS_PER_TURN]:
            if salience(sentence).score >= CONCLUSION_FLOOR and sentence not in labelled:
                add_fact(work, Candidate(FactKind.FINDING, sentence, CONCLUSION), statement)
    for sentence in told:
        note_answer(work, sentence, statement, sure=False)
    # (a recommendation among options counts, however little it says alone: "I'd go with A.")
    proposing = [
        s
        for s in sentences(statement.text)
        if _PROPOSING.search(s) and not _INTENT.match(s) and (s in told or _RECOMMENDS.search(s))
    ]
    # What it asks the user (not a proposal): an open question the user's next message may answer.
    for sentence in told:
        if sentence.endswith("?") and sentence not in proposing:
            add_fact(work, Candidate(FactKind.QUESTION, sentence, ASKED), statement)
    work.proposal = (
        Fact(
            kind=FactKind.DECISION,
            text=snippet(" ".join(proposing), FACT_CHARS) or "",
            source=FactSource.AGENT,
            prompt=statement.prompt,
            at=statement.at,
        )
        if proposing
        else None
    )
    if ranked:
        text = statement.text.strip()
        work.report = Fact(
            kind=FactKind.FINDING,
            text=text if len(text) <= REPORT_CHARS else text[: REPORT_CHARS - 1].rstrip() + "…",
            source=FactSource.AGENT,
            prompt=statement.prompt,
            at=statement.at,
        )


# What the agent is about to do is no conclusion: "Let me check …", "I'll now …", "Next I …:".
_INTENT = re.compile(
    r"^\W*(?:let me|let's|i'?ll|i will|i'?m going to|i am going to|now i|next,? i|first,? i|i need to|"
    r"i should|going to)\b",
    re.IGNORECASE,
)
CONCLUSION_FLOOR = 1.2


def _concludes(sentence: str) -> bool:
    """A statement of what is (or was done), not an intention, a question or a list's lead-in."""
    text = sentence.strip()
    return not (text.endswith((":", "?")) or _INTENT.match(text))
