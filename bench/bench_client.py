"""Client start-up benchmark: ``client_first_request_ratio``.

The time from spawning ``continuity hook user-prompt-submit`` until a local fake service receives
its request, divided by the time of a bare ``python -c pass`` (spawn to exit) with the same
interpreter. Both are medians over interleaved runs, measured in one go, so machine speed and
noise cancel out. Goal: <= 3.

The hook does its real work: before each run a turn (prompt, thinking, text, two tool calls and
their results, a progress line, a file-history snapshot) is appended to a Claude Code transcript
that already holds ~200 turns, so each hook reads, renders and sends the new part of it.

Run alone with ``python -m bench.bench_client``; ``bench/run.py`` imports ``run()``.
"""

from __future__ import annotations

import http.server
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

RUNS = 15
WARMUP = 2
HISTORY_TURNS = 200


def hook_input(transcript_path: str) -> bytes:
    return json.dumps(
        {
            "session_id": "bench-session",
            "transcript_path": transcript_path,
            "cwd": "/tmp",
            "hook_event_name": "UserPromptSubmit",
            "prompt": "continue with the refactoring",
        }
    ).encode()


def turn(n: int) -> str:
    """One Claude Code turn as JSONL lines (~6 KB)."""
    base = {"sessionId": "bench-session", "cwd": "/tmp", "version": "2.1.14", "isSidechain": False}
    listing = "".join(f"{i:6d}→    value_{i} = compute({i})\n" for i in range(60))

    def assistant(content: list) -> dict:
        return {**base, "type": "assistant", "message": {"role": "assistant", "content": content}}

    def results(tool: str, text: str) -> dict:
        block = {"type": "tool_result", "tool_use_id": tool, "content": text}
        return {**base, "type": "user", "message": {"role": "user", "content": [block]}}

    lines = [
        {**base, "type": "user", "message": {"role": "user", "content": f"step {n}: refactor module {n}"}},
        assistant([{"type": "thinking", "thinking": "Let me think. " * 40, "signature": "x" * 200}]),
        assistant([{"type": "text", "text": f"I'll read module {n} and run its tests."}]),
        assistant([{"type": "tool_use", "id": f"r{n}", "name": "Read", "input": {"file_path": f"m{n}.py"}}]),
        {**base, "type": "progress", "data": {"type": "hook_progress", "hookEvent": "PreToolUse"}},
        results(f"r{n}", listing),
        assistant([{"type": "tool_use", "id": f"b{n}", "name": "Bash", "input": {"command": "pytest -q"}}]),
        results(f"b{n}", "....\n4 passed in 0.12s"),
        {"type": "file-history-snapshot", "messageId": f"m{n}", "snapshot": {"trackedFileBackups": {}}},
        assistant([{"type": "text", "text": f"Module {n} is refactored; its 4 tests pass."}]),
    ]
    return "".join(json.dumps(line) + "\n" for line in lines)


class _Recorder(http.server.BaseHTTPRequestHandler):
    arrivals: list[float] = []  # replaced per server
    arrived: threading.Event = threading.Event()

    def do_POST(self) -> None:
        type(self).arrivals.append(time.perf_counter())
        type(self).arrived.set()
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = b"{}"
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


def _continuity_command() -> list[str]:
    beside = os.path.join(os.path.dirname(sys.executable), "continuity")
    if os.access(beside, os.X_OK):
        return [beside]
    found = shutil.which("continuity")
    return [found] if found else [sys.executable, "-m", "continuity_client"]


def _time_hook(command: list[str], env: dict[str, str], handler: type[_Recorder], payload: bytes) -> float:
    handler.arrived.clear()
    before = len(handler.arrivals)
    start = time.perf_counter()
    process = subprocess.Popen(
        [*command, "hook", "user-prompt-submit"],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    process.communicate(payload, timeout=30)
    if not handler.arrived.wait(10) or len(handler.arrivals) <= before:
        raise RuntimeError("the fake service received no request; is the client installed?")
    return handler.arrivals[-1] - start


def _time_python_pass() -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - start


def run(runs: int = RUNS) -> dict[str, float]:
    handler = type("Recorder", (_Recorder,), {"arrivals": [], "arrived": threading.Event()})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    home = tempfile.mkdtemp(prefix="continuity-bench-")
    env = {
        **os.environ,
        "HOME": home,
        "CONTINUITY_HOME": os.path.join(home, ".continuity"),
        "CONTINUITY_URL": f"http://127.0.0.1:{server.server_address[1]}",
        "CONTINUITY_TOKEN": "bench-token",
    }
    for name in ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"):
        env.pop(name, None)
    command = _continuity_command()
    transcript_path = os.path.join(home, "transcript.jsonl")
    with open(transcript_path, "w", encoding="utf-8") as handle:
        handle.write("".join(turn(n) for n in range(HISTORY_TURNS)))
    payload = hook_input(transcript_path)
    hook_times: list[float] = []
    pass_times: list[float] = []
    try:
        for index in range(runs + WARMUP):
            with open(transcript_path, "a", encoding="utf-8") as handle:
                handle.write(turn(HISTORY_TURNS + index))
            hook = _time_hook(command, env, handler, payload)
            bare = _time_python_pass()
            if index >= WARMUP:
                hook_times.append(hook)
                pass_times.append(bare)
    finally:
        server.shutdown()
        server.server_close()
        shutil.rmtree(home, ignore_errors=True)
    ratio = statistics.median(hook_times) / statistics.median(pass_times)
    return {"client_first_request_ratio": round(ratio, 3)}


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
