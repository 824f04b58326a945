"""The local stack as a subprocess (``python -m infra.local``) and a client of its HTTP API."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any, TypeVar

import requests

from continuity_core.kernel.config import ContinuityConfig
from infra.local.access_guard import LOG_MARK

ROOT = Path(__file__).resolve().parents[2]
FLUSH_DELAY_S = 1
PROMPT_INTERVAL = ContinuityConfig().prompt_interval  # the stack runs with the default
TOKEN = "e2e-token"
T = TypeVar("T")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class LocalStackProcess:
    """``python -m infra.local`` on a free port, a fixed token and its own data directory."""

    def __init__(
        self, data_dir: Path, log_path: Path, token: str = TOKEN, extra_args: Sequence[str] = ()
    ) -> None:
        self.data_dir = data_dir
        self.log_path = log_path
        self.token = token
        self.extra_args = tuple(extra_args)  # more options of ``python -m infra.local``
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._process: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None

    def start(self, timeout_s: float = 60) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "MOTO_"))}
        env["CONTINUITY_FLUSH_DELAY_SECONDS"] = str(FLUSH_DELAY_S)
        self._log = open(self.log_path, "ab")  # noqa: SIM115 - open while the process runs
        offset = self._log.tell()
        command = [sys.executable, "-m", "infra.local", "--port", str(self.port), "--token", self.token]
        self._process = subprocess.Popen(
            [*command, *self.extra_args, "--data-dir", str(self.data_dir)],
            cwd=ROOT,
            env=env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            output = self.output(offset)
            if re.search(r"^ready$", output, re.M):
                assert f"url: {self.url}" in output and f"token: {self.token}" in output
                return
            if self._process.poll() is not None:
                break
            time.sleep(0.1)
        self._stop()
        raise RuntimeError(f"the local stack did not start:\n{self.output(offset)[-4000:]}")

    def stop(self) -> int | None:
        """Stop the stack; fails if any function's AWS call was outside its grant meanwhile."""
        code = self._stop()
        denials = [line for line in self.output().splitlines() if LOG_MARK in line]
        assert not denials, "calls outside a function's grant:\n" + "\n".join(denials[:20])
        return code

    def _stop(self) -> int | None:
        code = None
        if self._process is not None:
            self._process.send_signal(signal.SIGTERM)
            try:
                code = self._process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._process.kill()
                code = self._process.wait()
            self._process = None
        if self._log is not None:
            self._log.close()
            self._log = None
        return code

    def kill(self) -> None:
        """SIGKILL the stack: no clean stop, moto's recording is all that survives."""
        if self._process is not None:
            self._process.kill()
            self._process.wait()
            self._process = None
        if self._log is not None:
            self._log.close()
            self._log = None

    def restart(self) -> None:
        assert self.stop() == 0, self.output()[-4000:]
        self.start()

    def operator(self, *args: str) -> subprocess.CompletedProcess[str]:
        """``python -m infra.operator --local`` against this stack, as an operator runs it."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "MOTO_"))}
        command = [sys.executable, "-m", "infra.operator", "--local", "--data-dir", str(self.data_dir), *args]
        return subprocess.run(
            command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=False
        )

    def create_tenant(self, agent: str) -> str:
        """A new tenant's admin token, from the operator (the last line it prints)."""
        done = self.operator("tenant", "create", agent)
        assert done.returncode == 0, done.stderr
        return done.stdout.strip().splitlines()[-1]

    def output(self, offset: int = 0) -> str:
        with open(self.log_path, "rb") as log:
            log.seek(offset)
            return log.read().decode("utf-8", errors="replace")


class Api:
    """A client of the local stack's HTTP API."""

    def __init__(self, stack: LocalStackProcess) -> None:
        self.stack = stack
        self.http = requests.Session()
        self.http.headers["Authorization"] = f"Bearer {stack.token}"

    def hook(self, event: str, body: dict[str, Any]) -> requests.Response:
        return self.http.post(f"{self.stack.url}/api/hooks/{event}", json=body, timeout=30)

    def project_checkpoints(self, project: str, limit: int = 50) -> list[dict[str, Any]]:
        answer = self.http.get(
            f"{self.stack.url}/api/checkpoints", params={"project": project, "limit": str(limit)}, timeout=30
        )
        assert answer.status_code == 200, answer.text
        return list(answer.json()["checkpoints"])

    def session_checkpoints(self, session_key: str) -> list[dict[str, Any]]:
        answer = self.http.get(f"{self.stack.url}/api/checkpoints/{session_key}", timeout=30)
        assert answer.status_code == 200, answer.text
        return list(answer.json()["checkpoints"])

    def wait_for_queue(self, timeout_s: float = 30) -> None:
        """Return once the checkpoint queue has worked through every flush sent before the call.

        A positive signal where a test must show that something did *not* happen: a marker session
        of its own project makes a flush due (``promptInterval`` prompts) and its checkpoint is
        awaited. The local queue hands messages over in the order they were sent (same delay) and
        the writer handles a batch in order, so once the marker's checkpoint is stored, every flush
        queued before it has been written.
        """
        marker = f"queue-marker-{uuid.uuid4().hex[:8]}"
        cwd = f"/tmp/{marker}"
        for n in range(PROMPT_INTERVAL):
            answer = self.hook(
                "user-prompt-submit", {"session_id": marker, "cwd": cwd, "prompt": f"mark {n}"}
            )
            assert answer.status_code == 200, answer.text
        found = wait_for(lambda: self.project_checkpoints(cwd), bool, timeout_s)
        assert found, f"the marker's checkpoint did not come within {timeout_s} s: the queue is stuck"


def agent_env(stack: LocalStackProcess, home: Path, drop: tuple[str, ...] = ()) -> dict[str, str]:
    """An agent machine's environment: its own HOME and CONTINUITY_HOME, the client pointed at the
    stack with a generous hook deadline, no proxy, and no variable of ours (or ``drop``) inherited."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CONTINUITY_", *drop))}
    for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        env.pop(name, None)
    env.update(
        HOME=str(home),
        CONTINUITY_HOME=str(home / ".continuity"),
        CONTINUITY_URL=stack.url,
        CONTINUITY_TOKEN=stack.token,
        CONTINUITY_HOOK_TIMEOUT_S="20",
    )
    return env


def wait_for(probe: Callable[[], T], done: Callable[[T], bool], timeout_s: float = 10) -> T:
    """Call ``probe`` until ``done`` holds for its value; the last value either way."""
    deadline = time.monotonic() + timeout_s
    value = probe()
    while not done(value) and time.monotonic() < deadline:
        time.sleep(0.2)
        value = probe()
    return value
