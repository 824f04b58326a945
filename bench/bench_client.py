"""Client start-up benchmark: ``client_first_request_ratio``.

The time from spawning ``continuity hook user-prompt-submit`` until a local fake service receives
its request, divided by the time of a bare ``python -c pass`` (spawn to exit) with the same
interpreter. Both are medians over interleaved runs, measured in one go, so machine speed and
noise cancel out. Goal: <= 3.

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
HOOK_INPUT = json.dumps(
    {
        "session_id": "bench-session",
        "transcript_path": "/tmp/bench-transcript.jsonl",
        "cwd": "/tmp",
        "hook_event_name": "UserPromptSubmit",
        "prompt": "continue with the refactoring",
    }
).encode()


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


def _time_hook(command: list[str], env: dict[str, str], handler: type[_Recorder]) -> float:
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
    process.communicate(HOOK_INPUT, timeout=30)
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
    hook_times: list[float] = []
    pass_times: list[float] = []
    try:
        for index in range(runs + WARMUP):
            hook = _time_hook(command, env, handler)
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
