"""A fleet of simulated agents against the local stack, with one fault at a time, and what was lost.

Each agent works through its sessions as a harness would: session-start, prompts that each carry
the live transcript's new part, a remember now and then, the agent's own digest, a compaction
(pre-compaction, post-compaction with the harness's summary, session-start ``compact``), a
sub-agent (subagent-start, subagent-stop with its own transcript), stop, session-end. Most agents
post HTTP directly and retry what was not acknowledged (same ``idempotency_key``); a share run the
real client CLI (``continuity hook …``: Claude Code's payloads and a JSONL transcript file, its
spool and replay), and ``continuity flush`` drains their spools at the end.

Every prompt, remember and digest carries a tag of its own. Afterwards the service is read back
through the API and compared with what was sent:

- a hook is lost when it was acknowledged (or spooled) and its tag is in none of its session's
  checkpoints (digest, rolling digest, queries, remembers): a prompt counted and then named in no
  checkpoint is lost text;
- a checkpoint is duplicated when a prompt number is covered by two checkpoints, or a digest is
  stored twice;
- transcript bytes are lost when the stored transcript is not the sent one (UTF-8 bytes past the
  common prefix).

Fault kinds (``FAULTS``): ``none``; ``kill`` (SIGKILL the stack mid-run, restart it on the same data);
``sqs`` (every message twice, a share after a long delay); ``aws`` (DynamoDB and S3 throttling and
5xx); ``writer`` (the writer crashing before its transaction); ``network`` (a proxy cutting
connections). Used by ``tests/e2e/test_e2e_load_faults.py`` (small) and ``bench/bench_load.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest import mock

import requests

from continuity_client.hook import harness, transcript
from continuity_client.setup import config as client_config
from infra.local.faults import FAULT_MARK
from tests.e2e.cutting_proxy import CuttingProxy
from tests.e2e.local_stack import FLUSH_DELAY_S, LocalStackProcess, agent_env

REQUEST_TIMEOUT_S = 30
ACK_DEADLINE_S = 240  # a direct agent retries one hook this long (a killed stack restarts meanwhile)
# The fault kinds, one per run; kill and network are done from outside the stack.
FAULTS = ("none", "kill", "sqs", "aws", "writer", "network")
KILL_AT = 0.4  # share of the expected hooks acknowledged when the stack is killed


@dataclass(frozen=True)
class Fleet:
    agents: int = 50
    prompts: int = 200  # per agent, spread over its sessions
    sessions: int = 4  # per agent
    cli_agents: int = 5  # of ``agents``, through the real client CLI
    remember_every: int = 7
    digest_every: int = 25
    compaction_every: int = 20
    subagent_every: int = 15
    stop_every: int = 5
    # How hard each fault hits.
    sqs_delay_share: float = 0.2
    sqs_delay_s: int = 20
    aws_errors: float = 0.2
    writer_crash: float = 0.3
    network_cut_share: float = 0.05

    def stack_faults(self, kind: str) -> str:
        """``continuity local --faults`` for a fault kind ('' for those done from outside)."""
        return {
            "sqs": f"sqs_duplicate,sqs_delay={self.sqs_delay_share},sqs_delay_s={self.sqs_delay_s}",
            "aws": f"aws_errors={self.aws_errors}",
            "writer": f"writer_crash={self.writer_crash}",
        }.get(kind, "")

    def hooks_per_agent(self) -> int:
        per_session = self.prompts // self.sessions
        extra = sum(
            per_session // every
            for every in (self.remember_every, self.digest_every, self.subagent_every, self.stop_every)
        )
        return self.sessions * (2 + per_session + extra + 3 * (per_session // self.compaction_every))


@dataclass
class Sent:
    """What one session's agent sent, and what was acknowledged."""

    key: str
    agent: str
    prompts: dict[int, str] = field(default_factory=dict)  # number -> tag (acknowledged or spooled)
    remembers: list[str] = field(default_factory=list)
    digests: list[str] = field(default_factory=list)
    transcript: str = ""
    subagents: dict[str, str] = field(default_factory=dict)  # sub-agent session key -> transcript


@dataclass
class Outcome:
    fault: str
    hooks_acknowledged: int = 0
    hooks_lost: int = 0
    prompts_unnamed: int = 0  # of hooks_lost: prompts counted but named in no checkpoint
    checkpoints_duplicated: int = 0
    transcript_bytes_lost: int = 0
    errors_5xx: int = 0
    hook_ms: list[float] = field(default_factory=list)  # direct agents: first attempt to acknowledgement
    client_hook_ms: list[float] = field(default_factory=list)  # CLI agents: one `continuity hook` run
    client_over_timeout_ms: float = 0.0  # worst CLI run past its event's own timeout
    details: list[str] = field(default_factory=list)  # what was lost, doubled or refused
    notes: list[str] = field(default_factory=list)  # what the fault did (cuts, the slowest hook)
    seconds: float = 0.0
    faults_injected: int = 0  # the stack's log lines of injected faults, proxy cuts, kills

    def figures(self) -> dict[str, float]:
        suffix = f"_{self.fault}"
        ms = sorted(self.hook_ms)
        p95 = ms[min(len(ms) - 1, int(0.95 * len(ms)))] if ms else 0.0
        return {
            f"load_hooks_acknowledged{suffix}": float(self.hooks_acknowledged),
            f"load_hooks_lost{suffix}": float(self.hooks_lost),
            f"load_checkpoints_duplicated{suffix}": float(self.checkpoints_duplicated),
            f"load_transcript_bytes_lost{suffix}": float(self.transcript_bytes_lost),
            f"load_p95_hook_ms{suffix}": round(p95, 1),
            f"load_errors_5xx{suffix}": float(self.errors_5xx),
            f"load_client_worst_hook_ms{suffix}": round(max(self.client_hook_ms, default=0.0), 1),
            f"load_client_over_timeout_ms{suffix}": round(self.client_over_timeout_ms, 1),
        }


class _Ledger:
    """Thread-safe counters the agents share."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.acknowledged = 0
        self.errors_5xx = 0
        self.hook_ms: list[float] = []
        self.client_hook_ms: list[float] = []
        self.client_over_timeout_ms = 0.0
        self.client_slowest = ""  # the slowest CLI run, in words
        self.failures: list[str] = []

    def ack(self, ms: float | None = None) -> None:
        with self.lock:
            self.acknowledged += 1
            if ms is not None:
                self.hook_ms.append(ms)


def tag(*parts: object) -> str:
    return "tg" + "x".join(str(p) for p in parts) + "q"


class DirectAgent:
    """Posts HTTP directly; retries what was not acknowledged, as a careful client would."""

    def __init__(self, index: int, url: str, token: str, run_id: str, fleet: Fleet, ledger: _Ledger) -> None:
        self.index = index
        self.url = url
        self.http = requests.Session()
        self.http.headers["Authorization"] = f"Bearer {token}"
        self.fleet = fleet
        self.ledger = ledger
        self.run_id = run_id
        self.project = f"/tmp/load-{run_id}/agent{index}"
        self.sent: list[Sent] = []

    def run(self) -> None:
        per_session = self.fleet.prompts // self.fleet.sessions
        for s in range(self.fleet.sessions):
            session = Sent(f"load-{self.run_id}-a{self.index}-s{s}", f"a{self.index}")
            self.sent.append(session)
            self._session(session, s, per_session)

    def _session(self, sent: Sent, s: int, prompts: int) -> None:
        f = self.fleet
        self._hook("session-start", sent, {"source": "startup"})
        for n in range(1, prompts + 1):
            label = tag(self.run_id[:4], self.index, s, n)
            delta = f"User: turn {n} of {sent.key}\nAssistant: worked on turn {n} — ünïcödé ✓\n"
            body = {"prompt": f"{label} refactor the billing module step {n}"}
            if self._hook("user-prompt-submit", sent, body, delta):
                sent.prompts[n] = label
            if n % f.remember_every == 0:
                content = tag("r", self.run_id[:4], self.index, s, n)
                if self._hook("remember", sent, {"content": f"{content} remember the retry budget"}):
                    sent.remembers.append(content)
            if n % f.stop_every == 0:
                self._hook("stop", sent, {}, f"Assistant: turn {n} finished\n")
            if n % f.digest_every == 0:
                summary = tag("d", self.run_id[:4], self.index, s, n)
                if self._digest(sent, summary):
                    sent.digests.append(summary)
            if n % f.subagent_every == 0:
                self._subagent(sent, n)
            if n % f.compaction_every == 0:
                self._hook("pre-compaction", sent, {"trigger": "auto"}, f"Assistant: compacting at {n}\n")
                self._hook("post-compaction", sent, {"compact_summary": f"compacted at turn {n}"})
                self._hook("session-start", sent, {"source": "compact"})
        self._hook("session-end", sent, {"reason": "exit"}, "Assistant: bye\n")

    def _subagent(self, sent: Sent, n: int) -> None:
        agent_id = f"sub{n}"
        self._hook("subagent-start", sent, {"agent_id": agent_id, "agent_type": "Explore"})
        key = f"{sent.key}:subagent:{agent_id}"
        text = f"User: explore for turn {n}\nAssistant: found {n} files\n"
        body = {
            "agent_id": agent_id,
            "parent_session_key": sent.key,
            "transcript": {"offset": 0, "text": text},
        }
        if self._post("/api/hooks/subagent-stop", {"session_id": key, "cwd": self.project, **body}, key):
            sent.subagents[key] = text

    def _hook(self, event: str, sent: Sent, extra: dict[str, Any], delta: str = "") -> bool:
        body: dict[str, Any] = {
            "session_id": sent.key,
            "cwd": self.project,
            "harness": "claude-code",
            **extra,
        }
        key = f"{sent.key}:{event}:{uuid.uuid4().hex[:12]}"
        body["idempotency_key"] = key
        if delta:
            body["transcript"] = {"offset": len(sent.transcript), "text": delta}
        ok = self._post(f"/api/hooks/{event}", body, key, sent, delta)
        if ok and delta:
            sent.transcript += delta
        return ok

    def _digest(self, sent: Sent, summary: str) -> bool:
        # Its retries carry one idempotency key, as the client's do (a digest's content names it).
        body = {
            "summary": f"{summary} the billing refactor is half done",
            "project": self.project,
            "idempotency_key": f"digest:{summary}",
        }
        return self._post(f"/api/sessions/{sent.key}/digest", body, summary)

    def _post(
        self, path: str, body: dict[str, Any], what: str, sent: Sent | None = None, delta: str = ""
    ) -> bool:
        """Post until acknowledged (2xx) or refused for good (4xx other than 409/429); False then."""
        started = time.monotonic()
        pause = 0.2
        while time.monotonic() - started < ACK_DEADLINE_S:
            try:
                answer = self.http.post(f"{self.url}{path}", json=body, timeout=REQUEST_TIMEOUT_S)
            except requests.RequestException:
                answer = None
            if answer is not None:
                if answer.status_code < 300:
                    self.ledger.ack((time.monotonic() - started) * 1000)
                    return True
                if answer.status_code >= 500:
                    with self.ledger.lock:
                        self.ledger.errors_5xx += 1
                elif answer.status_code == 409 and sent is not None and "stored_length" in answer.json():
                    # A gap: the service holds less than we think; resend from its length.
                    stored = int(answer.json()["stored_length"])
                    whole = sent.transcript + delta
                    body["transcript"] = {"offset": stored, "text": whole[stored:]}
                    continue
                elif answer.status_code != 429:
                    with self.ledger.lock:
                        self.ledger.failures.append(f"{what}: {answer.status_code} {answer.text[:200]}")
                    return False
            time.sleep(pause)
            pause = min(pause * 2, 2.0)
        with self.ledger.lock:
            self.ledger.failures.append(f"{what}: not acknowledged within {ACK_DEADLINE_S} s")
        return False


class CliAgent:
    """Runs the real ``continuity hook`` with Claude Code's payloads and a JSONL transcript file."""

    def __init__(
        self,
        index: int,
        stack: LocalStackProcess,
        url: str,
        run_id: str,
        fleet: Fleet,
        ledger: _Ledger,
        home: Path,
    ) -> None:
        self.index = index
        self.fleet = fleet
        self.ledger = ledger
        self.run_id = run_id
        self.home = home
        self.project = home / "project"
        self.project.mkdir(parents=True)
        env = agent_env(stack, home, drop=("CLAUDE_",))
        env["CONTINUITY_URL"] = url  # the stack's, or the cutting proxy's
        env.pop("CONTINUITY_HOOK_TIMEOUT_S")  # the client's own deadlines, as a user runs it
        self.env = env
        self.sent: list[Sent] = []
        self.settings = client_config.load(self.env)

    def run(self) -> None:
        per_session = self.fleet.prompts // self.fleet.sessions
        for s in range(self.fleet.sessions):
            session = Sent(str(uuid.uuid4()), f"cli{self.index}")
            self.sent.append(session)
            self._session(session, s, per_session)

    def _session(self, sent: Sent, s: int, prompts: int) -> None:
        path = self.home / "claude" / f"{sent.key}.jsonl"
        path.parent.mkdir(exist_ok=True)
        records: list[dict[str, Any]] = []

        def write(role: str, text: str) -> None:
            content: Any = text if role == "user" else [{"type": "text", "text": text}]
            record = {
                "type": role,
                "sessionId": sent.key,
                "uuid": str(uuid.uuid4()),
                "timestamp": "2026-11-26T00:00:00.000Z",
                "message": {"role": role, "content": content},
            }
            records.append(record)
            with path.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(record) + "\n")

        def hook(event: str, **extra: Any) -> None:
            payload = {
                "session_id": sent.key,
                "transcript_path": str(path),
                "cwd": str(self.project),
                "hook_event_name": harness.HARNESS_EVENTS[harness.CLAUDE_CODE][event],
                **extra,
            }
            self._run(event, payload)

        hook("session-start", source="startup")
        for n in range(1, prompts + 1):
            label = tag("c", self.run_id[:4], self.index, s, n)
            prompt = f"{label} refactor the billing module step {n}"
            write("user", prompt)
            hook("user-prompt-submit", prompt=prompt)
            sent.prompts[n] = label
            write("assistant", f"Worked on step {n} — ünïcödé ✓")
            if n % self.fleet.compaction_every == 0:
                hook("pre-compaction", trigger="auto")
                hook("session-start", source="compact")
        hook("session-end", reason="exit")
        sent.transcript = transcript.render_all(harness.CLAUDE_CODE, records)

    def _run(self, event: str, payload: dict[str, Any]) -> None:
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-m", "continuity_client", "hook", event],
            input=json.dumps(payload),
            capture_output=True,
            text=True,
            env=self.env,
            timeout=120,
        )
        ms = (time.monotonic() - started) * 1000
        deadline_s = self.settings.timeout_for(event)
        over = ms - deadline_s * 1000
        with self.ledger.lock:
            self.ledger.acknowledged += 1  # delivered or spooled: the hook exits 0 either way
            self.ledger.client_hook_ms.append(ms)
            if ms >= max(self.ledger.client_hook_ms):
                self.ledger.client_slowest = (
                    f"slowest continuity hook: {event}, {ms:.0f} ms (its deadline {deadline_s:g} s)"
                )
            self.ledger.client_over_timeout_ms = max(self.ledger.client_over_timeout_ms, over)
            if done.returncode != 0 or done.stderr:
                self.ledger.failures.append(f"cli {event}: exit {done.returncode} {done.stderr[:200]}")

    def drain(self, timeout_s: float = 180) -> bool:
        """``continuity flush`` until the spool is empty; False if it does not empty in time."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            done = subprocess.run(
                [sys.executable, "-m", "continuity_client", "flush", "--timeout", "60"],
                capture_output=True,
                text=True,
                env=self.env,
                timeout=120,
            )
            if done.returncode == 0:
                return True
            time.sleep(1)
        return False


def run_fleet(fault: str, fleet: Fleet, base: Path | None = None) -> Outcome:
    """Run ``fleet`` against a fresh local stack under ``fault``; read back and compare."""
    if fault not in FAULTS:
        raise ValueError(f"unknown fault kind {fault!r}: {', '.join(FAULTS)}")
    with tempfile.TemporaryDirectory(prefix=f"load-{fault}-") as scratch:
        work = Path(scratch) if base is None else base
        spec = fleet.stack_faults(fault)
        args = ("--faults", spec) if spec else ()
        stack = LocalStackProcess(work / "data", work / "stack.log", extra_args=args)
        # A fleet on one machine posts far above one person's rate limit.
        with mock.patch.dict(os.environ, {"CONTINUITY_RATE_LIMIT_PER_MINUTE": "100000"}):
            stack.start(timeout_s=180)
            try:
                outcome = _run(fault, fleet, stack, work)
            finally:
                code = stack.stop()
        outcome.faults_injected += stack.output().count(FAULT_MARK)
        if code not in (0, None):
            outcome.details.append(f"the stack exited {code} on stop")
        return outcome


def _run(fault: str, fleet: Fleet, stack: LocalStackProcess, work: Path) -> Outcome:
    run_id = uuid.uuid4().hex[:8]
    ledger = _Ledger()
    proxy = CuttingProxy(stack.port, fleet.network_cut_share).start() if fault == "network" else None
    url = proxy.url if proxy is not None else stack.url
    direct = [
        DirectAgent(i, url, stack.token, run_id, fleet, ledger)
        for i in range(fleet.agents - fleet.cli_agents)
    ]
    cli = [CliAgent(i, stack, url, run_id, fleet, ledger, work / f"cli{i}") for i in range(fleet.cli_agents)]
    started = time.monotonic()
    agents: list[DirectAgent | CliAgent] = [*direct, *cli]
    threads = [threading.Thread(target=a.run, name=f"agent-{i}") for i, a in enumerate(agents)]
    for thread in threads:
        thread.start()
    killed = fault == "kill" and _kill_midway(
        stack, ledger, KILL_AT * fleet.agents * fleet.hooks_per_agent(), threads
    )
    for thread in threads:
        thread.join()
    if proxy is not None:
        proxy.share = 0.0  # the spools drain over a healthy network
    for machine in cli:
        if not machine.drain():
            ledger.failures.append(f"cli{machine.index}: the spool did not drain")
    outcome = Outcome(fault, seconds=time.monotonic() - started, faults_injected=int(killed))
    time.sleep(FLUSH_DELAY_S + 5 + (fleet.sqs_delay_s if fault == "sqs" else 0))  # flushes still queued
    outcome.hooks_acknowledged = ledger.acknowledged
    outcome.errors_5xx = ledger.errors_5xx
    outcome.hook_ms = ledger.hook_ms
    outcome.client_hook_ms = ledger.client_hook_ms
    outcome.client_over_timeout_ms = ledger.client_over_timeout_ms
    if ledger.client_slowest:
        outcome.notes.append(ledger.client_slowest)
    outcome.details += ledger.failures
    reader = requests.Session()
    reader.headers["Authorization"] = f"Bearer {stack.token}"
    for agent in agents:
        for sent in agent.sent:
            _compare(reader, stack.url, sent, outcome)
    if proxy is not None:
        outcome.notes.append(
            f"proxy cut {proxy.cuts.before_service} requests before the service, "
            f"{proxy.cuts.after_service} answers after it"
        )
        outcome.faults_injected += proxy.cuts.before_service + proxy.cuts.after_service
        proxy.stop()
    return outcome


def _kill_midway(
    stack: LocalStackProcess, ledger: _Ledger, at: float, threads: list[threading.Thread]
) -> bool:
    """SIGKILL the stack once ``at`` hooks were acknowledged, and start it again on its data."""
    while ledger.acknowledged < at and any(t.is_alive() for t in threads):
        time.sleep(0.2)
    if not any(t.is_alive() for t in threads):
        return False
    stack.kill()
    time.sleep(1)
    stack.start(timeout_s=300)
    return True


def _compare(http: requests.Session, url: str, sent: Sent, outcome: Outcome) -> None:
    checkpoints = _get(http, f"{url}/api/checkpoints/{sent.key}", "checkpoints") or []
    stored = json.dumps(checkpoints)
    covered: dict[int, int] = {}
    for checkpoint in checkpoints:
        if checkpoint.get("first_prompt") and checkpoint.get("last_prompt"):
            for n in range(checkpoint["first_prompt"], checkpoint["last_prompt"] + 1):
                covered[n] = covered.get(n, 0) + 1
    overlaps = sum(times - 1 for times in covered.values())
    digests_twice = sum(
        max(0, sum(summary in (c.get("summary") or "") for c in checkpoints) - 1) for summary in sent.digests
    )
    if overlaps:
        outcome.details.append(f"{sent.key}: {overlaps} prompts covered by two checkpoints")
    if digests_twice:
        outcome.details.append(f"{sent.key}: {digests_twice} digests stored twice")
    outcome.checkpoints_duplicated += overlaps + digests_twice
    unnamed = [n for n, label in sent.prompts.items() if label not in stored]
    uncounted = [n for n in sent.prompts if n not in covered]
    lost = len(unnamed) + sum(label not in stored for label in [*sent.remembers, *sent.digests])
    if unnamed:
        outcome.details.append(
            f"{sent.key}: prompts {_ranges(unnamed)} named in no checkpoint"
            f" ({len([n for n in unnamed if n in covered])} of them counted)"
        )
    if uncounted:
        outcome.details.append(f"{sent.key}: prompts {_ranges(uncounted)} counted in no checkpoint")
    if lost - len(unnamed):
        outcome.details.append(f"{sent.key}: {lost - len(unnamed)} remembers or digests in no checkpoint")
    outcome.prompts_unnamed += len([n for n in unnamed if n in covered])
    outcome.hooks_lost += lost
    for key, text in [(sent.key, sent.transcript), *sent.subagents.items()]:
        got = _transcript(http, url, key)
        missing = _bytes_lost(text, got)
        if missing:
            outcome.details.append(
                f"{key}: transcript {len(got)} of {len(text)} characters, {missing} bytes lost"
            )
            if key != sent.key and not got:
                outcome.hooks_lost += 1  # the sub-agent's stop was acknowledged and nothing is stored
        outcome.transcript_bytes_lost += missing


def _bytes_lost(sent: str, stored: str) -> int:
    """UTF-8 bytes of ``sent`` past what ``stored`` holds of it (from the first difference)."""
    common = 0
    for a, b in zip(sent, stored, strict=False):
        if a != b:
            break
        common += 1
    return len(sent[common:].encode())


def _transcript(http: requests.Session, url: str, key: str) -> str:
    text, offset = "", 0
    while offset is not None:
        page = _get(http, f"{url}/api/sessions/{key}/transcript?offset={offset}&limit=1000000")
        if page is None:
            return text
        text += page["text"]
        offset = page.get("next_offset")
    return text


def _get(http: requests.Session, url: str, field_name: str | None = None) -> Any:
    for _ in range(10):
        answer = http.get(url, timeout=REQUEST_TIMEOUT_S)
        if answer.status_code == 404:
            return None
        if answer.status_code == 200:
            body = answer.json()
            return body[field_name] if field_name else body
        time.sleep(1)
    answer.raise_for_status()
    return None


def _ranges(numbers: list[int]) -> str:
    numbers = sorted(numbers)
    spans: list[str] = []
    start = prev = numbers[0]
    for n in [*numbers[1:], None]:
        if n is not None and n == prev + 1:
            prev = n
            continue
        spans.append(f"{start}" if start == prev else f"{start}-{prev}")
        if n is not None:
            start = prev = n
    return ",".join(spans)
