"""The recovery-quality suite: play the scripted sessions of ``bench/scenarios/*.json`` against
a running service over HTTP, as Claude Code and the ``continuity`` client would, and score the
recovery blocks the service answers after the compaction and after ``/clear``.

Per scenario:

1. the decoy session (startup, its prompts with live transcript deltas, a remember, session end);
2. the main session: ``session-start`` (startup), then per prompt ``user-prompt-submit`` carrying
   the readable transcript's new part (turn k's own text arrives with prompt k+1, as Claude Code
   writes it after the hook), ``remember`` hooks, agent digests, and a wait for the periodic
   checkpoint every ``PAUSE_EVERY`` prompts;
3. ``pre-compaction`` (trigger auto, with the last delta), then ``session-start`` source ``compact``
   of the same session: **the block after compaction**;
4. ``session-end`` reason ``clear``, then ``session-start`` source ``clear`` of a new session id in
   the same project: **the block after /clear**;
5. a Codex start (cap 7,500) and a Gemini CLI start (cap 9,000), new session ids pointing at the
   main session with ``previous_session_key``: only their size is checked.

Scoring (``score``), on text compared case-insensitively with whitespace collapsed (NFC), a probe
never matching inside a longer word at its alphanumeric ends:

- a current fact is *recalled* when all its probes appear in the block;
- a superseded or answered fact is *stale* when its stale probe appears on a block line (or the
  shortest run of up to ``MAX_SPAN_LINES`` lines it spans) carrying none of the words
  ``superseded``, ``answered``, ``resolved``, ``closed``: presented as current;
- a decoy fact *leaks* when any of its probes appears in the block after ``/clear``.

``run_scenarios(url, token, names)`` plays a subset against an already started stack (tests);
``run_suite()`` starts a local stack of its own and plays them all (``bench/bench_recovery.py``).
"""

from __future__ import annotations

import math
import os
import re
import shutil
import sys
import tempfile
import time
import urllib.parse
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from bench.recovery_scenarios import (
    AGENT,
    CURRENT,
    DIGEST,
    KINDS,
    REMEMBER,
    SCENARIOS,
    USER,
    PlantedFact,
    Scenario,
    Script,
    Session,
    build_all,
    found_normalized,
    normalize,
    validate,
)

MARKERS = re.compile(r"\b(superseded|answered|resolved|closed)\b", re.IGNORECASE)
MAX_SPAN_LINES = 3
CLAUDE_CAP, CODEX_CAP, GEMINI_CAP = 10_000, 7_500, 9_000
CHECKPOINT_WAIT_S = 6.0
RATE_LIMIT_VAR = "CONTINUITY_RATE_LIMIT_PER_MINUTE"


# ---------------------------------------------------------------------------------------------
# Scoring (pure)
# ---------------------------------------------------------------------------------------------


def missing_probes(block: str, probes: Iterable[str]) -> tuple[str, ...]:
    """The probes not found in ``block``; () when the fact is recalled."""
    text = normalize(block)
    return tuple(p for p in probes if not found_normalized(text, p))


def stale_as_current(block: str, probe: str) -> bool:
    """Whether ``probe`` appears in ``block`` on a line (or the shortest run of up to
    ``MAX_SPAN_LINES`` lines holding it) that carries no superseded/answered/resolved/closed marker."""
    lines = block.splitlines()
    for start in range(len(lines)):
        for end in range(start, min(len(lines), start + MAX_SPAN_LINES)):
            window = "\n".join(lines[start : end + 1])
            if not found_normalized(normalize(window), probe):
                continue
            # Shortest at this start; a window found again without its first line is judged later.
            inner = "\n".join(lines[start + 1 : end + 1])
            if end > start and found_normalized(normalize(inner), probe):
                break
            if not MARKERS.search(window):
                return True
            break
    return False


# Precision of a block's lines (pure; bench/recovery_sealed.py and the figures of every set) ------

# Common English function words and generic chat words: a bullet made of these alone says nothing
# ("did that fix it", "no need to decide now", "I never remember").
STOPWORDS = frozenset(
    """
    a about above after again against all also already although always am an and any anyone anything
    anyway are aren around as at back be because been before being below between both but by can
    cannot could couldn did didn do does doesn doing don done down during each either else enough
    even ever every everything few for from further get gets getting give go goes going gone got had
    hasn has have haven having he her here hers herself him himself his how however i if in into is
    isn it its itself just know knows let lets like made make makes many may maybe me might mine
    more most much must my myself need needs needed never no nor not now of off often ok okay on
    once one only or other others our ours ourselves out over own please pls probably quite rather
    really right same see seem seems shall she should shouldn since so some somebody someone
    something sometimes soon still such sure than thanks thank that the their theirs them themselves
    then there these they thing things think this those though through thus to today together too
    under until up upon us very want wants was wasn way we well were weren what whatever when where
    whether which while who whom whose why will with within without won would wouldn yeah yes yet
    you your yours yourself yourselves fix fixed fixes decide decided remember remembered forget try
    tried look looks looked check checked thought guess mean means said say says tell told ask asked
    asking answer question again later good great nice fine cool sounds sound hmm hey hi hello sorry
    stuff lot lots bit kind sort next first last new old also actually just still already anyway
    work works worked working use used using doing done let's go went come came take took put keep
    kept show shown start started stop stopped run ran call called back part point case time times
    day days thing yep nope
    """.split()  # noqa: SIM905
)
PROVENANCE = re.compile(
    r"\s*\((?:[^()]*\bprompt\b[^()]*|[^()]*\bsaid\b[^()]*|(?:agent|user|remember(?:ed)?|digest)\b[^()]*)\)\s*$",
    re.IGNORECASE,
)
MARKDOWN = re.compile(r"~~|\*\*|`|^\s*>\s?")
UNITS = (
    "ms|s|sec|secs|seconds?|m|min|mins|minutes?|h|hours?|d|days?|weeks?|months?|years?|b|kb|mb|gb|tb|"
    "kib|mib|gib|ki|mi|gi|px|em|rem|pt|hz|khz|mhz|ghz|k|x|v|w|ma|eur|usd|cpus?|vcpus?|gpus?|rps|qps|"
    "rows|requests|lines|files|tests|tokens|chars|characters|bytes|percent"
)
IDENTIFIER = re.compile(
    r"[\w.-]*[A-Za-z][\w-]*[/_.:=#@][\w./:=#@-]*\w"  # a path, dotted or snake name, key=value
    r"|[a-z]+[A-Z]\w*"  # camelCase
    r"|[A-Za-z]+\d+[A-Za-z\d]*"  # a name with digits: p99, utf8, k8s
    r"|--?[A-Za-z][\w-]+"  # a flag
    r"|\d+(?:[.,]\d+)*(?:[A-Za-z%µ]+\b|%|\s(?:" + UNITS + r")\b)"  # a number with its unit (15m, 800 ms)
)
FILES_HEADING = re.compile(r"^#{2,}\s+files", re.IGNORECASE)
HEADING = re.compile(r"^#{1,6}\s")
FILE_LINE = re.compile(r"^\s*-\s+`([^`]+)`")
CLOSURE = re.compile(r"~~(.+?)~~\s*[\u2014\u2013-]+\s*(?:answered|resolved)\b(.*)$", re.IGNORECASE)


def _sections(block: str) -> Iterator[tuple[bool, str]]:
    """(in a Files section, line) for every line of ``block``."""
    in_files = False
    for line in block.splitlines():
        if HEADING.match(line):
            in_files = bool(FILES_HEADING.match(line))
        yield in_files, line


def duplicate_file_lines(block: str) -> int:
    """Lines of the Files sections naming a path (leading ``./`` stripped) an earlier line of those
    sections already named (exact duplicates only)."""
    seen: set[str] = set()
    duplicates = 0
    for in_files, line in _sections(block):
        found = FILE_LINE.match(line) if in_files else None
        if not found:
            continue
        path = found.group(1).strip()
        while path.startswith("./"):
            path = path[2:]
        duplicates += path in seen
        seen.add(path)
    return duplicates


def _stem(word: str) -> str:
    word = word.lower()
    if word.endswith("ies") and len(word) > 5:
        return word[:-3] + "y"  # directories, directory: one term
    if word.endswith("es") and not word.endswith(("ses", "xes", "zes", "ches", "shes")):
        word = word[:-1]  # rewrites, rewrite: one term (the "e" is the word's own)
    for suffix in ("ing", "es", "ed", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
            return word[: -len(suffix)]
    return word


def content_terms(text: str) -> set[str]:
    """The content terms of ``text``: identifiers, paths, numbers with a unit, and words of three
    letters or more outside ``STOPWORDS`` (lightly stemmed)."""
    terms = {m.group(0).lower() for m in IDENTIFIER.finditer(text)}
    rest = IDENTIFIER.sub(" ", text)
    terms |= {_stem(w) for w in re.findall(r"[^\W\d_]{3,}", rest) if w.lower() not in STOPWORDS}
    return terms


def bullet_text(line: str) -> str:
    """A bullet's text without its trailing provenance ("(prompt 12)", "(agent, prompt 3, said 2
    times)") and markdown."""
    text = line.strip()[2:]
    previous = None
    while previous != text:
        previous, text = text, PROVENANCE.sub("", text)
    return MARKDOWN.sub("", text).strip()


def fragment_lines(block: str) -> int:
    """Bullet lines outside the Files sections with no content term: fragments that tell nothing."""
    return sum(
        1
        for in_files, line in _sections(block)
        if not in_files and line.strip().startswith("- ") and not content_terms(bullet_text(line))
    )


def wrong_closures(block: str) -> int:
    """Answered lines ("- ~~QUESTION~~ — answered at prompt N by: ANSWER") whose question and answer
    share no content term."""
    wrong = 0
    for line in block.splitlines():
        found = CLOSURE.search(line)
        if not found:
            continue
        question, rest = found.group(1), found.group(2)
        answer = rest.split("by:", 1)[1] if "by:" in rest else rest
        answer = bullet_text("- " + answer)
        wrong += not (content_terms(MARKDOWN.sub("", question)) & content_terms(answer))
    return wrong


def p95(values: Sequence[float]) -> float:
    """Nearest-rank 95th percentile (0 for no values)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return float(ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)])


@dataclass(frozen=True)
class FactResult:
    fact: PlantedFact
    missing_compact: tuple[str, ...] = ()  # for a current fact: probes not in the block after compaction
    missing_clear: tuple[str, ...] = ()  # ... after /clear
    stale_compact: bool = False  # for a closed fact: its stale probe presented as current
    stale_clear: bool = False

    @property
    def current(self) -> bool:
        return self.fact.status == CURRENT

    @property
    def recalled_compact(self) -> bool:
        return self.current and not self.missing_compact

    @property
    def recalled_clear(self) -> bool:
        return self.current and not self.missing_clear


@dataclass(frozen=True)
class DecoyResult:
    fact: PlantedFact
    leaked: tuple[str, ...]  # its probes found in the block after /clear


def score_fact(fact: PlantedFact, block_compact: str, block_clear: str) -> FactResult:
    if fact.status == CURRENT:
        return FactResult(
            fact, missing_probes(block_compact, fact.probes), missing_probes(block_clear, fact.probes)
        )
    assert fact.stale, f"{fact.scenario}/{fact.id} is closed without a stale probe"
    return FactResult(
        fact,
        stale_compact=stale_as_current(block_compact, fact.stale),
        stale_clear=stale_as_current(block_clear, fact.stale),
    )


def score_decoy(fact: PlantedFact, block_clear: str) -> DecoyResult:
    text = normalize(block_clear)
    return DecoyResult(fact, tuple(p for p in fact.probes if found_normalized(text, p)))


@dataclass(frozen=True)
class Answer:
    """One session-start answer and the cap it was given."""

    label: str
    harness: str
    cap: int
    chars: int

    @property
    def over_cap(self) -> bool:
        return self.chars > self.cap


@dataclass
class ScenarioResult:
    name: str
    domain: str
    prompts: int
    block_compact: str
    block_clear: str
    facts: list[FactResult]
    decoys: list[DecoyResult]
    answers: list[Answer] = field(default_factory=list)
    checkpoints: int = 0
    seconds: float = 0.0


def score(
    script: Script, block_compact: str, block_clear: str, answers: Iterable[Answer] = ()
) -> ScenarioResult:
    scenario = script.scenario
    return ScenarioResult(
        name=scenario.name,
        domain=scenario.domain,
        prompts=scenario.prompts,
        block_compact=block_compact,
        block_clear=block_clear,
        facts=[score_fact(f, block_compact, block_clear) for f in script.facts],
        decoys=[score_decoy(f, block_clear) for f in script.decoy_facts],
        answers=list(answers),
    )


def _share(hits: int, total: int) -> float:
    return hits / total if total else 0.0


def figures(results: Sequence[ScenarioResult]) -> dict[str, float]:
    """The suite's figures, pooled over every fact of every scenario (micro averages)."""
    facts = [r for result in results for r in result.facts]
    current = [r for r in facts if r.current]
    closed = [r for r in facts if not r.current]
    decoys = [d for result in results for d in result.decoys]
    texts = [b for result in results for b in (result.block_compact, result.block_clear)]
    blocks = [len(b) for b in texts]
    out = {
        "recovery_fact_recall": _share(sum(r.recalled_compact for r in current), len(current)),
        "recovery_fact_recall_clear": _share(sum(r.recalled_clear for r in current), len(current)),
        "recovery_stale_rate": _share(sum(r.stale_compact for r in closed), len(closed)),
        "recovery_stale_rate_clear": _share(sum(r.stale_clear for r in closed), len(closed)),
        "recovery_block_chars_p95": p95(blocks),
        "injection_over_cap": float(sum(a.over_cap for result in results for a in result.answers)),
        "recovery_wrong_session_rate": _share(sum(bool(d.leaked) for d in decoys), len(decoys)),
        "recovery_duplicate_file_lines": float(sum(duplicate_file_lines(b) for b in texts)),
        "recovery_fragment_lines": float(sum(fragment_lines(b) for b in texts)),
        "recovery_wrong_closures": float(sum(wrong_closures(b) for b in texts)),
    }
    for kind in KINDS:
        of_kind = [r for r in current if r.fact.kind == kind]
        if of_kind:
            out[f"recovery_recall_{kind}"] = _share(sum(r.recalled_compact for r in of_kind), len(of_kind))
    for by in (USER, AGENT, REMEMBER, DIGEST):
        of_source = [r for r in current if r.fact.by == by]
        if of_source:
            out[f"recovery_recall_by_{by}"] = _share(
                sum(r.recalled_compact for r in of_source), len(of_source)
            )
    return out


def report(results: Sequence[ScenarioResult], out: IO[str] | None = None) -> None:
    """A per-scenario table, then every missed, stale, leaked fact and oversized answer."""
    stream = out or sys.stderr
    head = (
        f"{'scenario':<18} {'domain':<9} {'prompts':>7} {'facts':>5} {'recall':>6} {'clear':>6} "
        f"{'stale':>5} {'leaks':>5} {'chars':>11} {'ckpts':>5} {'secs':>5}"
    )
    print(head, file=stream)
    print("-" * len(head), file=stream)
    for result in results:
        current = [r for r in result.facts if r.current]
        closed = [r for r in result.facts if not r.current]
        chars = f"{len(result.block_compact)}/{len(result.block_clear)}"
        print(
            f"{result.name:<18} {result.domain:<9} {result.prompts:>7} {len(current):>5} "
            f"{_share(sum(r.recalled_compact for r in current), len(current)):>6.2f} "
            f"{_share(sum(r.recalled_clear for r in current), len(current)):>6.2f} "
            f"{sum(r.stale_compact for r in closed)}/{len(closed):<3} "
            f"{sum(bool(d.leaked) for d in result.decoys)}/{len(result.decoys):<3} "
            f"{chars:>11} {result.checkpoints:>5} {result.seconds:>5.1f}",
            file=stream,
        )
    lines = []
    for result in results:
        for r in result.facts:
            where = [
                name for name, gone in (("compact", r.missing_compact), ("clear", r.missing_clear)) if gone
            ]
            if where:
                probes = sorted(set(r.missing_compact) | set(r.missing_clear))
                lines.append(f"  missed [{'+'.join(where)}] {_label(r.fact)}: {_probes(probes)}")
            stale = [name for name, hit in (("compact", r.stale_compact), ("clear", r.stale_clear)) if hit]
            if stale:
                lines.append(
                    f"  stale  [{'+'.join(stale)}] {_label(r.fact)} ({r.fact.status} by {r.fact.closed_by} "
                    f"@{r.fact.closed_at}): {_probes([r.fact.stale or ''])}"
                )
        for d in result.decoys:
            if d.leaked:
                lines.append(f"  leaked [clear] {_label(d.fact)} from the decoy session: {_probes(d.leaked)}")
        for a in result.answers:
            if a.over_cap:
                lines.append(f"  over cap: {result.name} {a.label} ({a.harness}) {a.chars} > {a.cap}")
    if lines:
        print("\n".join(lines), file=stream)


def _label(fact: PlantedFact) -> str:
    return f"{fact.scenario}/{fact.id} ({fact.kind}, {fact.by} @{fact.turn})"


def _probes(probes: Iterable[str]) -> str:
    return ", ".join(repr(p if len(p) <= 90 else p[:87] + "...") for p in probes)


# ---------------------------------------------------------------------------------------------
# Driving the service over HTTP
# ---------------------------------------------------------------------------------------------


class ServiceClient:
    """The hooks and agent API as the ``continuity`` client posts them (JSON bodies, bearer token)."""

    def __init__(self, url: str, token: str) -> None:
        import requests

        self.url = url.rstrip("/")
        self.http = requests.Session()
        self.http.headers["Authorization"] = f"Bearer {token}"

    def post(self, route: str, body: dict[str, Any], expect: int = 200) -> dict[str, Any]:
        for _ in range(20):
            answer = self.http.post(f"{self.url}{route}", json=body, timeout=60)
            if answer.status_code in (429, 503):
                time.sleep(min(5.0, float(answer.headers.get("Retry-After") or 1)))
                continue
            if answer.status_code != expect:
                raise RuntimeError(f"POST {route}: {answer.status_code} {answer.text[:500]}")
            return dict(answer.json())
        raise RuntimeError(f"POST {route}: still throttled")

    def hook(self, event: str, body: dict[str, Any]) -> dict[str, Any]:
        return self.post(f"/api/hooks/{event}", body)

    def checkpoints(self, session_key: str) -> int:
        quoted = urllib.parse.quote(session_key, safe="")
        answer = self.http.get(f"{self.url}/api/checkpoints/{quoted}", timeout=60)
        if answer.status_code != 200:
            raise RuntimeError(f"GET checkpoints: {answer.status_code} {answer.text[:500]}")
        return len(answer.json()["checkpoints"])


def context(answer: dict[str, Any]) -> str:
    return str((answer.get("hookSpecificOutput") or {}).get("additionalContext") or "")


class Player:
    """Plays one script's sessions and collects what the service answered."""

    def __init__(self, client: ServiceClient, script: Script, pause: bool = True) -> None:
        self.client = client
        self.script = script
        self.pause = pause
        self.answers: list[Answer] = []
        self.checkpoints = 0

    def base(self, session_id: str, harness: str = "claude-code") -> dict[str, Any]:
        cwd = self.script.cwd
        return {
            "session_id": session_id,
            "cwd": cwd,
            "project_normalized": cwd,
            "harness": harness,
            "transcript_path": f"/home/dev/.claude/projects/{cwd.replace('/', '-')}/{session_id}.jsonl",
        }

    def start(
        self,
        label: str,
        session_id: str,
        source: str,
        harness: str = "claude-code",
        cap: int = CLAUDE_CAP,
        **extra: Any,
    ) -> str:
        body = {
            **self.base(session_id, harness),
            "hook_event_name": "SessionStart",
            "source": source,
            "injection_cap_chars": cap,
            **extra,
        }
        block = context(self.client.hook("session-start", body))
        self.answers.append(Answer(label, harness, cap, len(block)))
        return block

    def prompts(self, session: Session, pauses: frozenset[int]) -> tuple[int, str]:
        """Every prompt of ``session``; answers the transcript offset and the text not yet sent."""
        offset, pending = 0, ""
        seen = self.client.checkpoints(session.session_id) if pauses else 0
        for turn in session.turns:
            body = {
                **self.base(session.session_id),
                "hook_event_name": "UserPromptSubmit",
                "permission_mode": "default",
                "prompt": turn.prompt,
            }
            if pending:
                body["transcript"] = {"offset": offset, "text": pending}
                body["transcript_chars"] = offset + len(pending)
            self.client.hook("user-prompt-submit", body)
            offset, pending = offset + len(pending), turn.text
            for content in turn.remembers:
                self.client.hook("remember", {**self.base(session.session_id), "content": content})
            for digest in turn.digests:
                quoted = urllib.parse.quote(session.session_id, safe="")
                body = {**digest, "project": self.script.cwd, "project_normalized": self.script.cwd}
                self.client.post(
                    f"/api/sessions/{quoted}/digest", {**body, "harness": "claude-code"}, expect=201
                )
            if self.pause and turn.number in pauses:
                seen = self.wait_for_checkpoint(session.session_id, seen)
        return offset, pending

    def wait_for_checkpoint(self, session_id: str, seen: int) -> int:
        """Wait (bounded) until the session has more checkpoints than ``seen``, as a user's pause would."""
        deadline = time.monotonic() + CHECKPOINT_WAIT_S
        count = self.client.checkpoints(session_id)
        while count <= seen and time.monotonic() < deadline:
            time.sleep(0.2)
            count = self.client.checkpoints(session_id)
        return count

    def play(self) -> ScenarioResult:
        started = time.perf_counter()
        script, client = self.script, self.client
        decoy, main = script.decoy, script.main

        self.start("decoy startup", decoy.session_id, "startup")
        offset, pending = self.prompts(decoy, frozenset())
        end = {**self.base(decoy.session_id), "hook_event_name": "SessionEnd", "reason": "prompt_input_exit"}
        client.hook("session-end", {**end, "transcript": {"offset": offset, "text": pending}})

        self.start("startup", main.session_id, "startup")
        offset, pending = self.prompts(main, script.pauses)
        compaction = {**self.base(main.session_id), "hook_event_name": "PreCompact", "trigger": "auto"}
        client.hook(
            "pre-compaction",
            {**compaction, "custom_instructions": "", "transcript": {"offset": offset, "text": pending}},
        )
        block_compact = self.start("after compaction", main.session_id, "compact")
        self.checkpoints = client.checkpoints(main.session_id)

        client.hook(
            "session-end", {**self.base(main.session_id), "hook_event_name": "SessionEnd", "reason": "clear"}
        )
        block_clear = self.start("after /clear", f"{main.session_id}-clear", "clear")

        previous = {"previous_session_key": main.session_id}
        self.start("codex start", f"{main.session_id}-codex", "startup", "codex", CODEX_CAP, **previous)
        self.start("gemini start", f"{main.session_id}-gemini", "startup", "gemini", GEMINI_CAP, **previous)

        result = score(script, block_compact, block_clear, self.answers)
        result.checkpoints = self.checkpoints
        result.seconds = time.perf_counter() - started
        return result


def scripts(
    names: Iterable[str] | None = None, tag: str = "", scenarios: Iterable[Scenario] = SCENARIOS
) -> list[Script]:
    """The built scenarios (all of ``scenarios``, or those named), validated."""
    built = build_all(names, tag, scenarios)
    problems = [problem for script in built for problem in validate(script)]
    if problems:
        raise ValueError("invalid recovery scenarios:\n" + "\n".join(problems))
    return built


def run_scenarios(
    url: str,
    token: str,
    names: Iterable[str] | None = None,
    tag: str = "",
    pause: bool = True,
    scenarios: Iterable[Scenario] = SCENARIOS,
) -> list[ScenarioResult]:
    """Play the named scenarios (all of ``scenarios`` by default) against the service at ``url``;
    per-fact results.

    ``tag`` makes session ids and projects unique (a shared stack, a second run); ``pause=False``
    skips the waits for periodic checkpoints; ``scenarios`` picks the set (the main one by default,
    ``bench.recovery_scenarios.HELDOUT`` or ``HELDOUT2`` for a held-out one).
    """
    client = ServiceClient(url, token)
    return [Player(client, script, pause).play() for script in scripts(names, tag, scenarios)]


@contextmanager
def local_stack(rate_limit_per_minute: int = 100_000) -> Iterator[tuple[str, str]]:
    """A local stack of its own (``tests.e2e.local_stack``: flush delay 1 s, a temporary data
    directory, a free port), with the rate limit raised for a scripted client; yields (url, token)."""
    from tests.e2e.local_stack import LocalStackProcess

    base = Path(tempfile.mkdtemp(prefix="continuity-recovery-"))
    stack = LocalStackProcess(base / "data", base / "local-stack.log")
    saved = os.environ.get(RATE_LIMIT_VAR)
    os.environ[RATE_LIMIT_VAR] = str(rate_limit_per_minute)
    try:
        stack.start()
    finally:
        if saved is None:
            os.environ.pop(RATE_LIMIT_VAR, None)
        else:
            os.environ[RATE_LIMIT_VAR] = saved
    try:
        yield stack.url, stack.token
    finally:
        stack.stop()
        shutil.rmtree(base, ignore_errors=True)


def run_suite(
    names: Iterable[str] | None = None, scenarios: Iterable[Scenario] = SCENARIOS
) -> list[ScenarioResult]:
    """Every scenario of ``scenarios`` (or those named) on a local stack of its own."""
    with local_stack() as (url, token):
        return run_scenarios(url, token, names, scenarios=scenarios)
