"""Several tenants at once against a running local stack, and what landed where.

Writer agents post their sessions concurrently (the same session ids for every agent): prompts
with their transcript deltas, a digest of their own (another function than the hooks'), then
session-end, which writes a checkpoint at once. Meanwhile a read-only agent lists, reads and
searches the same project. Afterwards each agent reads back its
own sessions, checkpoints and transcripts. Used by the e2e test (small) and ``make bench`` (heavier).
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from itertools import product
from typing import Any

import requests

TIMEOUT_S = 60


@dataclass(frozen=True)
class Load:
    tenants: int = 2  # writer agents, each with a hooks+read token
    sessions: int = 10  # per agent, the same ids for all
    prompts: int = 4  # per session, then a digest and session-end
    writer_threads: int = 8
    reader_threads: int = 2  # the read-only agent's
    settle_s: float = 0.0  # wait before reading back (periodic checkpoints go through the queue)


@dataclass
class Outcome:
    writes: int = 0  # the writers' requests: prompts, digests, session-ends (the hooks scope)
    writes_401: int = 0
    failed: list[str] = field(default_factory=list)  # valid requests answered otherwise (401s too)
    wrong_tenant_reads: list[str] = field(default_factory=list)  # the reader saw a writer's words
    wrong_tenant_records: list[str] = field(default_factory=list)  # stored under the wrong agent
    lost_or_doubled: list[str] = field(default_factory=list)  # acknowledged but missing, or twice
    seconds: float = 0.0  # the concurrent phase


@dataclass
class Agent:
    name: str
    token: str
    answers: list[tuple[str, int, int]] = field(default_factory=list)  # what, status, expected

    def client(self) -> requests.Session:
        http = requests.Session()
        http.headers["Authorization"] = f"Bearer {self.token}"
        return http


def unique(name: str) -> str:
    return f"{name}-{uuid.uuid4().hex[:8]}"


def said(agent: str, session: str, n: int) -> str:
    return f"User: {agent} says {n} in {session}\n"


def run_load(url: str, create_tenant: Callable[[str], str], load: Load) -> Outcome:
    """``create_tenant``: the operator's, an agent id -> its new admin token."""
    writers = [_agent(url, create_tenant, unique(f"writer{i}"), "hooks,read") for i in range(load.tenants)]
    reader = _agent(url, create_tenant, unique("reader"), "read")
    project, sessions = f"/tmp/{unique('tenants')}/app", [unique("s") for _ in range(load.sessions)]

    done = threading.Event()
    started = time.monotonic()
    with ThreadPoolExecutor(load.reader_threads) as reads, ThreadPoolExecutor(load.writer_threads) as writes:
        seen = [reads.submit(_read_until, url, reader, project, done) for _ in range(load.reader_threads)]
        posts = [
            writes.submit(_post_session, url, w, s, project, load.prompts)
            for s, w in product(sessions, writers)
        ]
        for post in posts:
            post.result()
        done.set()
        answers = [answer for future in seen for answer in future.result()]
    outcome = Outcome(seconds=time.monotonic() - started)
    time.sleep(load.settle_s)

    for agent in writers:
        outcome.writes += len(agent.answers)
        outcome.writes_401 += sum(status == 401 for _, status, _ in agent.answers)
        outcome.failed += [
            f"{agent.name}: {what} -> {got}" for what, got, want in agent.answers if got != want
        ]
    outcome.failed += [f"reader: {what} -> {status}" for what, status, _ in answers if status != 200]
    names = [w.name for w in writers]
    outcome.wrong_tenant_reads += [
        f"reader: {what}" for what, _, text in answers if any(n in text for n in names)
    ]
    for agent in writers:
        _check_own(url, agent, [w.name for w in writers if w is not agent], sessions, project, load, outcome)
    _check_reader(url, reader, project, outcome)
    return outcome


def _agent(url: str, create_tenant: Callable[[str], str], name: str, scopes: str) -> Agent:
    """A tenant of its own (the operator's), and a token its admin creates with ``scopes``."""
    admin = Agent(name, create_tenant(name))
    body: dict[str, Any] = {"scopes": scopes.split(",")}
    answer = admin.client().post(f"{url}/api/tokens", json=body, timeout=TIMEOUT_S)
    answer.raise_for_status()
    return Agent(name, str(answer.json()["token"]))


def _post_session(url: str, agent: Agent, session: str, project: str, prompts: int) -> None:
    http, sent = agent.client(), 0
    for n in range(1, prompts + 1):
        delta = said(agent.name, session, n)
        body: dict[str, Any] = {
            "session_id": session,
            "cwd": project,
            "prompt": f"{agent.name} prompt {n} in {session}",
            "transcript": {"offset": sent, "text": delta},
        }
        answer = http.post(f"{url}/api/hooks/user-prompt-submit", json=body, timeout=TIMEOUT_S)
        agent.answers.append((f"prompt {n} of {session}", answer.status_code, 200))
        sent += len(delta)
    digest = {"summary": f"{agent.name} digest of {session}"}
    answer = http.post(f"{url}/api/sessions/{session}/digest", json=digest, timeout=TIMEOUT_S)
    agent.answers.append((f"digest of {session}", answer.status_code, 201))
    end = {"session_id": session, "cwd": project, "reason": "exit"}
    answer = http.post(f"{url}/api/hooks/session-end", json=end, timeout=TIMEOUT_S)
    agent.answers.append((f"session-end of {session}", answer.status_code, 200))


def _read_until(url: str, reader: Agent, project: str, done: threading.Event) -> list[tuple[str, int, str]]:
    """The read-only agent's loop: health, the project's checkpoints and sessions, a search."""
    http, answers = reader.client(), []
    while not done.is_set():
        for method, path, body in (
            ("GET", "/api/health", None),
            ("GET", f"/api/checkpoints?project={project}", None),
            ("GET", f"/api/sessions?project={project}", None),
            ("POST", "/api/sessions/search", {"query": "says prompt", "project": project}),
        ):
            answer = http.request(method, f"{url}{path}", json=body, timeout=TIMEOUT_S)
            answers.append((f"{method} {path.split('?')[0]}", answer.status_code, answer.text))
    return answers


def _check_own(
    url: str, agent: Agent, others: list[str], sessions: list[str], project: str, load: Load, outcome: Outcome
) -> None:
    http = agent.client()
    listed = {
        s["session_key"] for s in _get(http, f"{url}/api/sessions", project=project, limit="100")["sessions"]
    }
    outcome.wrong_tenant_records += [f"{agent.name}: session {s} listed" for s in listed - set(sessions)]
    outcome.lost_or_doubled += [f"{agent.name}: session {s} not listed" for s in set(sessions) - listed]
    for session in sessions:
        checkpoints = (_get(http, f"{url}/api/checkpoints/{session}") or {"checkpoints": []})["checkpoints"]
        for checkpoint in checkpoints:
            if any(other in json.dumps(checkpoint) for other in others):
                outcome.wrong_tenant_records.append(
                    f"{agent.name}: checkpoint {checkpoint['id']} of {session}"
                )
        counted = sum(c["prompt_count"] for c in checkpoints)
        if counted != load.prompts:
            outcome.lost_or_doubled.append(f"{agent.name}: {counted} of {load.prompts} prompts in {session}")
        digests = sum(c["trigger"] == "agent" for c in checkpoints)
        if digests != 1:
            outcome.lost_or_doubled.append(f"{agent.name}: {digests} digests of {session}")
        text = (_get(http, f"{url}/api/sessions/{session}/transcript") or {"text": ""})["text"]
        expected = "".join(said(agent.name, session, n) for n in range(1, load.prompts + 1))
        if any(other in text for other in others):
            outcome.wrong_tenant_records.append(f"{agent.name}: transcript of {session}")
        elif text != expected:
            outcome.lost_or_doubled.append(
                f"{agent.name}: transcript of {session} is {len(text)} of {len(expected)}"
            )


def _check_reader(url: str, reader: Agent, project: str, outcome: Outcome) -> None:
    http = reader.client()
    for session in _get(http, f"{url}/api/sessions", project=project, limit="100")["sessions"]:
        outcome.wrong_tenant_records.append(f"reader: session {session['session_key']}")
    for checkpoint in _get(http, f"{url}/api/checkpoints", project=project, limit="100")["checkpoints"]:
        outcome.wrong_tenant_records.append(f"reader: checkpoint {checkpoint['id']}")


def _get(http: requests.Session, url: str, **params: str) -> Any:
    """The answer's JSON; None for 404 (nothing stored there)."""
    answer = http.get(url, params=params, timeout=TIMEOUT_S)
    if answer.status_code == 404:
        return None
    answer.raise_for_status()
    return answer.json()
