"""Sticky facts out of what people and agents write: deterministic, no LLM, no network.

A text is cut into sentences (code fences, tables and log-like lines are skipped); each sentence is
read for the cues people and agents actually use — "never …", "don't touch …", "hard rule: …",
"let's go with …", "actually, switch to … instead of …", "why does … ?", "it turns out …", "next,
…" — and every path, file and quoted symbol in it is noted. English first; words are Unicode words,
so names and paths with non-ASCII letters ("Zoë Ångström", ``docs/señal_café.md``) stay intact.

One module: most of its length is the cue table (``_cue`` patterns) that the one classifier reads;
apart, neither half says what a cue means.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from enum import StrEnum

from continuity_core.extraction.terms import STOPWORDS as STOP_TERMS
from continuity_core.extraction.terms import snippet
from continuity_core.models.session_digest import FactKind

MAX_SENTENCE_CHARS = 320


class Role(StrEnum):
    USER = "user"
    AGENT = "agent"
    SUMMARY = "summary"  # a compaction summary: the harness's account of the session


ASKED = "asked"  # a question's detail: asked with no cue that it stays open (ranks below cued ones)


class FileAction(StrEnum):
    EDITED = "edited"
    WRITTEN = "written"
    MENTIONED = "mentioned"
    READ = "read"
    SYMBOL = "symbol"
    DELETED = "deleted"


@dataclass(frozen=True)
class Candidate:
    kind: FactKind
    text: str
    detail: str | None = None
    corrects: bool = False  # a decision that says it replaces an earlier one ("actually", "instead of")
    replaced: tuple[str, ...] = ()  # what a correcting decision says it replaces ("not Redis")
    closes: bool = False  # answers a question or resolves a blocker


def _words(*lines: str) -> frozenset[str]:
    return frozenset(word for line in lines for word in line.split())


def _cue(*patterns: str) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in patterns), re.IGNORECASE)


_NEG = (
    r"(?:don'?t|do not|doesn'?t|does not|never|mustn'?t|must not|shouldn'?t|should not|can'?t|cannot|"
    r"can not|won'?t)"
)
_CONSTRAINT = _cue(
    r"\bnever\b",
    r"\balways\b",
    r"\bmust\b",
    r"\bmustn'?t\b",
    rf"\b{_NEG}\s+(?:ever\s+)?(?:touch|modify|change|edit|delete|remove|add|use|commit|push|run|introduce|"
    r"rename|break|create|install|upgrade|bump|deploy|call|hard-?code|log|expose|disable|skip|mock|"
    r"merge|import|rely|store|send|write|print|leak|reformat|rewrite|downgrade|depend|ship|include)\b",
    r"\bonly (?:ever )?(?:use|touch|edit|change|modify|write|run|call|deploy|target|support|import)\b",
    r"\b(?:make sure|be sure|ensure)\b",
    r"\b(?:hard|ground|golden|house|strict) rules?\b",
    r"^(?:rule|constraint|requirement|important|note to self)\s*[:\-—]",
    r"\boff[- ]limits\b",
    r"\bnot (?:be )?allowed\b",
    r"\bforbidden\b",
    r"\bunder no circumstances\b",
    r"\b(?:we|you) (?:can'?t|cannot|can not|shouldn'?t|should not|may not|are not to|aren'?t to)\b",
    r"\bavoid\b",
    r"\bwithout (?:asking|my (?:ok|approval|sign-?off)|approval|checking with)\b",
    r"\b(?:ask|check with) (?:me|him|her|them|us|[A-Z]\w+)(?: \w+)? (?:first|before)\b",
    r"\bleave\b.{1,60}\balone\b",
    r"\bstay away from\b",
    r"\bhands off\b",
    r"\bat all times\b",
    r"\bfrom now on\b",
    r"\bno (?:new |more |extra )?[\w-]+ (?:without|unless)\b",
    r"\bkeep\b.{1,60}\b(?:under|below|within|at most|unchanged|backwards?[- ]compatible|as is|intact)\b",
    r"\bis required\b|\bare required\b|\brequired to\b",
    r"\bprefer\b.{1,60}\bover\b",
    r"\bstick to\b",
    # How the agent should talk to the user: a standing preference, however politely put.
    r"\b(?:answer|reply|respond|write|talk|speak)(?: to me)? (?:in|only in) "
    r"(?:(?-i:[A-Z][a-z]+)|plain|short|simple)\b",
    r"\bkeep (?:the |your )?(?:answers?|repl(?:y|ies)|responses?|messages?|summar(?:y|ies)) "
    r"(?:short|brief|concise|terse)\b",
)
_DECISION = _cue(
    # "let's …", "we'll …" from the user: the session's plan (but not the next activity: run, check, …)
    r"^(?:ok(?:ay)?,?\s+|so,?\s+|then,?\s+|actually,?\s+)?(?:let'?s|let us|we'?ll|we will|we'?re going to|"
    r"we are going to)\s+(?!(?:see|check|look|try|talk|discuss|run|debug|investigate|fix|test|continue|"
    r"get|figure|find|"
    r"take|review|read|open|wait|focus|do|commit|push|clean|add|update|refactor|write|implement|finish|"
    r"resume|need|have|be|also|first|now|just)\b)\w+",
    r"\b(?:let'?s|let us)\s+(?:just\s+)?(?:go with|use|stick with|switch|move|adopt|pick|choose|keep|"
    r"standardi[sz]e on|settle on)\b",
    r"\bwe(?:'ll| will| are going to|'re going to| should| shall)\s+(?:just\s+)?(?:go with|use|stick with|"
    r"switch|move|adopt|keep|standardi[sz]e on)\b",
    # an imperative that picks a tool or value: "Use a 30-minute gap", "Actually, put the switcher in …"
    r"^(?:please\s+)?(?:use|pick|choose|adopt|go with|stick with|switch to)\b",
    r"^actually,?\s+(?:put|use|make|move|keep|switch|go|do|store|set|name|call)\b",
    r"\b(?:i|we)(?:'ve| have)?\s+(?:decided|chosen|chose|settled on|picked|opted|agreed|gone with|"
    r"went with)\b",
    r"\b(?:i'?ll|i will|i'?m going to|i am going to)\s+(?:use|go with|switch|keep|implement it with)\b",
    r"\bdecided (?:to|on|that)\b",
    r"^(?:decision|decided|plan|approach|verdict|agreed)\s*[:\-—]",
    r"\b(?:go|going) with\b",
    r"\bsettled on\b",
    r"\bopt(?:ed|ing)? for\b",
    r"\bswitch(?:ed|ing)?\b.{0,40}\b(?:to|over to)\b",
    r"\binstead of\b",
    r"\brather than\b",
    r"\bchange of plans?\b",
    r"\bscratch that\b",
    r"\bon second thought\b",
    r"\bthe (?:plan|approach|choice|decision) is\b",
    r"\bwe (?:use|are using|'re using)\b",
    r"\buse\b.{1,50}\bfor (?:the|our|all|every)\b",
)
_CORRECTION = _cue(
    r"\bactually\b",
    r"\binstead\b",
    r"\brather than\b",
    r"\bchange of plans?\b",
    r"\bscratch that\b",
    r"\bon second thought\b",
    r"\bswitch(?:ed|ing)?\b",
    r"\bno longer\b",
    r"\banymore\b",
    r"\breplac(?:e|ed|ing)\b",
    r"\brevert(?:ed|ing)?\b",
    r"\bin favou?r of\b",
    r"\bmov(?:e|ed|ing) (?:away )?from\b",
    r"\bchang(?:e|ed|ing) (?:it |that )?to\b",
    r"\bdrop(?:ped|ping)?\b",
    r"\bforget\b",
)
# "instead of Redis", "rather than Redis", "not Redis", "from Redis to", "over Redis", "drop Redis"
_REPLACED = re.compile(
    r"\b(?:instead of|rather than|not|from|over|drop(?:ped|ping)?|replac(?:e|ed|ing)|away from|no longer)\s+"
    r"(?:the |a |an |using |use )?([\w./+#-]{2,40}(?:\s+[\w./+#-]{2,40})?)",
    re.IGNORECASE,
)
_CLOSER = _cue(
    r"\bturn(?:s|ed) out\b",
    r"\broot cause\b",
    r"\bthe (?:cause|culprit|problem|issue|bug|reason|answer|fix) (?:is|was|turned out)\b",
    r"\b(?:was|is|were|are) (?:caused by|due to)\b",
    r"\b(?:i|we) (?:found|figured out|discovered|tracked (?:it )?down|confirmed|verified)\b",
    r"\bfigured (?:it )?out\b",
    r"\banswer(?:ed|ing)?\b[^.?!]{0,60}(?:\bquestion\b|:)",
    r"\banswered\b",
    # a relayed answer: "AppSec answered: …", "PM says …", "Word from the docs guild: …"
    r"^(?!that said)(?:[\w&'-]+\s){1,3}(?:says|said|confirmed|replied|answered|came back)\b(?!,)",
    r"^word from\b",
    r"^(?:about|re|regarding|as for|on) [\w /&'-]{1,40}:",
    r"^found it\b",
    r"\bblocker (?:is|'s) (?:gone|resolved|cleared|fixed)\b",
    r"\b(?:got|is|was|been|has been) (?:finally )?(?:approved|granted|lifted|merged)\b",
    r"\bgo ahead\b",
    r"\b(?:that|this|it|which)(?:'s| is| was| has been) (?:now )?"
    r"(?:fixed|resolved|solved|answered|sorted|done)\b",
    r"\b(?:is|are|was|were|has been|have been) (?:now )?"
    r"(?:fixed|resolved|solved|answered|unblocked|sorted out)\b",
    r"\bno longer (?:blocked|an issue|a problem|failing|broken|flaky)\b",
    r"\bworks now\b|\bnow works\b|\bnow passing\b|\bpasses now\b",
    r"\bunblocked\b",
    r"^(?:resolved|solved|fixed|answer|finding|found)\s*[:\-—]",
)
_QUESTION_CUE = _cue(
    r"\bopen question\b",
    r"^(?:question|q|blocker|blocked|open issue|unknown|tbd|todo\?)\s*[:\-—]",
    r"^(?:open )?question (?:for|to) [\w /&'-]{1,40}:",
    r"\bnot sure (?:if|whether|why|how|what|which|where|when)\b",
    r"\b(?:i|we) (?:don'?t|do not) (?:know|understand) (?:why|how|whether|if|what|which|where)\b",
    r"\bunclear (?:why|how|whether|if|what|which)\b",
    r"\b(?:still )?need to (?:figure out|find out|decide|work out|confirm|check whether)\b",
    r"\b(?:we'?re|we are|i'?m|i am|it'?s|it is) (?:still )?blocked\b",
    r"\bblocked (?:on|by)\b",
    r"\bwaiting (?:on|for)\b",
    r"\bblocker\b",
    r"\btbd\b",
)
_FOR_NOW = re.compile(
    r"\b(?:yet|for now|not approved|pending|waiting)\b|\buntil (?:we|they|it|\w+ (?:is|are|gets?|has)\b)",
    re.IGNORECASE,
)
_ASKS = re.compile(
    r"^(?:why|how come|should|shall|do we|does|did|is|are|was|were|what(?:'s| is| was| causes| caused)|which|"
    r"where|when|who|whether|any idea|what if)\b",
    re.IGNORECASE,
)
# A request put as a question ("also, would you mind fixing the types?") asks for work, not an answer.
_REQUEST = re.compile(
    r"^(?:(?:also|and|so|ok|okay|hey|hi|now|then|btw|oh|great|thanks)[,!.]?\s+)*"
    r"(?:(?:can|could|would|will) you\b|(?:would|do) you mind\b|please\b|(?:can|could) (?:i|u|we)\b)",
    re.IGNORECASE,
)
_NEXT = _cue(
    r"^(?:next|next up|next step|then|after that|afterwards|later|todo|to do|to-do|follow[- ]up|"
    r"remaining|still to do|pending)\b(?![.\w])\s*[,:\-—]?",
    r"\bnext steps?\b",
    r"\bonce (?:that'?s|this is|that is|it'?s) (?:done|merged|in)\b",
    r"\b(?:i|we)(?:'ll| will) (?:then|next)\b",
    r"\bafter (?:that|this)(?:,)? (?:we|i)(?:'ll| will| should)\b",
)
_REMEMBER = _cue(
    r"^(?:remember|note|fyi|for the record|keep in mind|bear in mind|heads[- ]up|context|fact)\b"
    r"\s*(?:that\b)?\s*[:\-—,]?",
    r"\b(?:remember|keep in mind|note) that\b",
    r"\bfor (?:future|later) reference\b",
)
_AGENT_DECISION = _cue(
    r"\b(?:i|we)(?:'ve| have)?\s+(?:decided|chose|chosen|settled on|opted|went with|gone with)\b",
    r"\b(?:i'?ll|i will|i'?m going to)\s+(?:use|go with|switch to|pin|standardi[sz]e on|adopt)\b",
    r"^(?:decision|approach|plan)\s*[:\-—]",
    r"\b(?:i'?ll|i will|i'?m going to)\b.{1,60}\binstead of\b",
)
_AGENT_QUESTION = _cue(
    r"^(?:open question|question|blocker|blocked|unknown)\s*[:\-—]",
    r"\b(?:i'?m|i am|we'?re|we are) (?:still )?blocked\b",
    r"\bblocked (?:on|by)\b",
    r"\bstill (?:unclear|unknown|failing)\b",
)

_FENCE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_BULLET = re.compile(r"^\s*(?:[-*•>+]|\d{1,3}[.)]|#{1,6})\s+")
_EMPHASIS = re.compile(r"\*\*|__")
_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[^\s])")
_ABBREV = re.compile(
    r"(?:\b(?:e\.g|i\.e|etc|vs|cf|approx|dr|mr|mrs|ms|no|fig)\.|\b[A-Za-z]\.)$", re.IGNORECASE
)
_WORD = re.compile(r"\w+(?:['\u2019-]\w+)*", re.UNICODE)
_POSSESSIVE = re.compile(r"['\u2019]s?$")
_CODE_LIKE = re.compile(r"[{};=<>|$\\]")

_EXTENSIONS = (
    "py|pyi|ts|tsx|js|jsx|mjs|cjs|json|jsonl|yaml|yml|toml|md|mdx|rst|txt|sql|go|rs|java|kt|swift|rb|php|"
    "c|h|cc|cpp|hpp|cs|css|scss|less|html|vue|svelte|sh|bash|ini|cfg|conf|env|lock|proto|graphql|gql|tf|"
    "tfvars|hcl|csv|ipynb|xml|gradle|dart|ex|exs|erl|scala|lua|r|jl|pl|dockerfile|mk|cmake|bzl|nix|zig"
)
_PATH = re.compile(
    rf"(?<![\w/.@:-])(?:~|\.{{1,2}})?/?(?:[\w@+.-]+/)+[\w@+.-]*\w|(?<![\w/.@:-])[\w+-]+(?:\.[\w+-]+)*\.(?:{_EXTENSIONS})\b",
    re.UNICODE,
)
_CODE_DIRS = _words(
    "src lib app apps tests test spec docs doc pkg cmd internal infra functions layers client server",
    "scripts migrations config configs web api components packages services bench tools include bin",
    "deploy charts modules models views controllers handlers utils frontend backend notebooks data schemas",
)
_NOT_PATHS = _words(
    "and/or i/o w/o n/a yes/no on/off read/write true/false client/server input/output pass/fail",
    "start/stop before/after either/or he/she his/her",
)
_SYMBOL = re.compile(r"`([^`\s]{3,80})`")
_TOOL = re.compile(r"^Tool ([\w.:-]+)(?::\s*(.*))?$", re.DOTALL)
_PATCH_FILE = re.compile(r"\*\*\* (?:Update|Add|Delete) File: ([^\n]*\S)")
EDIT_TOOLS = _words(
    "edit multiedit notebookedit str_replace_based_edit_tool replace edit_file apply_patch patch",
    "str_replace edit_notebook",
)
WRITE_TOOLS = _words("write write_file create_file create")
READ_TOOLS = _words("read read_file read_many_files view open_file cat")
# Words that say nothing of a subject: the term index's stopwords, and the cue words themselves.
STOPWORDS = STOP_TERMS | _words(
    "use using used instead rather actually switch change plan going back still never always must",
    "let's it's i'm don't can't we'll i'll we're you're that's there's",
)


def sentences(text: str, min_words: int = 3) -> list[str]:
    """Prose sentences of ``text``: code fences, tables and code-like lines left out, bullets stripped."""
    out: list[str] = []
    for raw_line in _FENCE.sub("\n", text).splitlines():
        line = _EMPHASIS.sub("", _BULLET.sub("", raw_line)).strip()
        if not line or line.startswith("|") or len(_CODE_LIKE.findall(line)) > 3:
            continue
        pending = ""
        for part in _SPLIT.split(line):
            pending = f"{pending} {part}".strip() if pending else part
            if _ABBREV.search(pending):
                continue
            out.append(pending)
            pending = ""
        if pending:
            out.append(pending)
    return [snippet(s, MAX_SENTENCE_CHARS) or s for s in out if len(_WORD.findall(s)) >= min_words]


def content_words(text: str) -> set[str]:
    """Lower-case Unicode words that carry meaning, lightly stemmed (queue/queues, time/timing)."""
    words = set()
    for found in _WORD.findall(text.lower()):
        word = _POSSESSIVE.sub("", found)
        if len(word) < 3 or word in STOPWORDS or word.isdigit():
            continue
        words.add(_stem(word))
    return words


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def paths_in(text: str) -> list[str]:
    """Paths and file names in ``text``, in order, once each."""
    found: dict[str, None] = {}
    for match in _PATH.finditer(text):
        path = match.group(0).rstrip(".,:;)")
        if _looks_like_path(path):
            found.setdefault(path, None)
    return list(found)


def _tool_path(argument: str) -> str:
    """The path a file tool's line names: all of it when it is one absolute path (a project folder
    may have a space in its name: ``~/Documents/My Project``), else its first word."""
    if argument.startswith(("/", "~/")) and "\n" not in argument and not re.search(r"\s[/~]", argument):
        return argument
    return argument.split()[0] if argument else ""


def _looks_like_path(path: str) -> bool:
    lowered = path.lower()
    if "://" in path or lowered in _NOT_PATHS or lowered.startswith(("http", "www.")) or len(path) > 200:
        return False
    segments = [s for s in path.split("/") if s and s not in (".", "..", "~")]
    if not segments:
        return False
    named = "." in segments[-1] and not segments[-1].startswith(".")
    if named or path.startswith(("/", "./", "../", "~/")):
        return not segments[-1].replace(".", "").isdigit()  # "1.2.3" is a version, not a file
    return len(segments) >= 3 or segments[0].lower() in _CODE_DIRS or any(c in path for c in "_-")


def symbols_in(text: str) -> list[str]:
    """`Quoted` identifiers that are not paths: function, class and setting names."""
    found = []
    for match in _SYMBOL.finditer(text):
        name = match.group(1).rstrip("()")
        if (
            re.fullmatch(r"[\w.:]+", name)
            and not name.isdigit()
            and (
                "_" in name
                or any(c.isupper() for c in name[1:])
                or "." in name
                or match.group(1).endswith("()")
            )
        ):
            found.append(name)
    return found


def replaced_terms(sentence: str) -> tuple[str, ...]:
    terms = []
    for match in _REPLACED.finditer(sentence):
        words = content_words(match.group(1))
        terms += sorted(words)
    return tuple(dict.fromkeys(terms))


def decision(text: str) -> Candidate:
    """A decision, and whether it says it replaces an earlier one (and what it names as replaced)."""
    corrects = bool(_CORRECTION.search(text))
    return Candidate(
        FactKind.DECISION, text, corrects=corrects, replaced=replaced_terms(text) if corrects else ()
    )


def classify(sentence: str, role: Role) -> Candidate | None:
    """The sticky kind of one sentence, if any (files are found separately)."""
    stripped = sentence.strip()
    if role is Role.AGENT:
        return _classify_agent(stripped)
    if _CLOSER.search(stripped) and not stripped.endswith("?"):
        return Candidate(FactKind.FINDING, stripped, closes=True)
    is_question = stripped.endswith("?")
    if is_question and _REQUEST.search(stripped):
        return None
    if _QUESTION_CUE.search(stripped) or (is_question and _ASKS.search(stripped)):
        return Candidate(FactKind.QUESTION, stripped)
    if is_question:
        return None
    if _REMEMBER.search(stripped):
        return Candidate(FactKind.REMEMBERED, stripped)
    if _CONSTRAINT.search(stripped) and _FOR_NOW.search(stripped):
        return Candidate(FactKind.QUESTION, stripped)  # "we can't use X yet": a blocker, closed when lifted
    if _DECISION.search(stripped) and (_CORRECTION.search(stripped) or not _CONSTRAINT.search(stripped)):
        return decision(stripped)
    if _CONSTRAINT.search(stripped):
        return Candidate(FactKind.CONSTRAINT, stripped)
    if _NEXT.search(stripped):
        return Candidate(FactKind.NEXT_STEP, stripped)
    return None


def _classify_agent(sentence: str) -> Candidate | None:
    """The agent's prose: what it found, decided, is blocked on, or does next; never rules."""
    if sentence.endswith("?"):
        return Candidate(FactKind.QUESTION, sentence) if _AGENT_QUESTION.search(sentence) else None
    if _CLOSER.search(sentence):
        return Candidate(FactKind.FINDING, sentence, closes=True)
    if _AGENT_QUESTION.search(sentence):
        return Candidate(FactKind.QUESTION, sentence)
    if _AGENT_DECISION.search(sentence):
        return decision(sentence)
    return None


def extract(text: str, role: Role) -> list[Candidate]:
    """Every sticky candidate of ``text``: one per telling sentence, plus its paths and symbols."""
    found: list[Candidate] = []
    explained = False
    for sentence in sentences(text):
        candidate = classify(sentence, role)
        previous = found[-1] if found else None
        if candidate is None and previous is not None and previous.closes and not explained:
            # An answer is often explained in the sentence after it: keep them together.
            found[-1] = replace(previous, text=f"{previous.text} {sentence}")
            explained = True
            continue
        explained = False
        if candidate is not None:
            found.append(candidate)
    if role is not Role.AGENT:
        # The agent mentions many files in passing; its tool calls say which it worked on.
        found += [Candidate(FactKind.FILE, path, FileAction.MENTIONED.value) for path in paths_in(text)]
        found += [Candidate(FactKind.FILE, name, FileAction.SYMBOL.value) for name in symbols_in(text)]
    return found


def user_candidates(text: str) -> list[Candidate]:
    """Every sentence and list item of the user's own words, in order: labelled when a cue fits,
    else kept as ``SAID`` (the words survive without a cue; ``extraction/salience.py`` ranks them). A list
    item is read with the heading it sits under ("hard rules:" makes each item a rule), and kept
    as its own words."""
    found: list[Candidate] = []
    heading: str | None = None
    for raw_line in _FENCE.sub("\n", text).splitlines():
        if not raw_line.strip():
            continue
        item = bool(_BULLET.match(raw_line)) and not raw_line.lstrip().startswith(("#", ">"))
        line = _EMPHASIS.sub("", _BULLET.sub("", raw_line)).strip()
        if not item:
            heading = line if line.endswith(":") else None
        for sentence in sentences(line, min_words=2):
            context = f"{heading} {sentence}" if item and heading and sentence != heading else sentence
            candidate = classify(context, Role.USER) or classify(sentence, Role.USER)
            if candidate is None and sentence.endswith("?") and not _REQUEST.search(sentence):
                found.append(Candidate(FactKind.QUESTION, sentence, ASKED))  # asked, whatever the words
            elif candidate is None:
                found.append(Candidate(FactKind.SAID, sentence))
            elif candidate.kind is FactKind.DECISION:
                found.append(
                    replace(decision(sentence), corrects=candidate.corrects or decision(sentence).corrects)
                )
            else:
                found.append(replace(candidate, text=sentence))
    found += [Candidate(FactKind.FILE, path, FileAction.MENTIONED.value) for path in paths_in(text)]
    return found


def tool_files(tool_block: str) -> list[Candidate]:
    """Files the agent edited, wrote or read, from a transcript line ``Tool Edit: src/app.py``."""
    match = _TOOL.match(tool_block.strip())
    if match is None:
        return []
    name, argument = match.group(1).lower().split(":")[-1], (match.group(2) or "").strip()
    if name in EDIT_TOOLS:
        action = FileAction.EDITED
    elif name in WRITE_TOOLS:
        action = FileAction.WRITTEN
    elif name in READ_TOOLS:
        action = FileAction.READ
    else:
        return []
    patched = _PATCH_FILE.findall(argument)
    paths = patched or ([path] if (path := _tool_path(argument)) and _looks_like_path(path) else [])
    return [Candidate(FactKind.FILE, path, action.value) for path in paths]
