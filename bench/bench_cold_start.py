"""cold_start_ratio: a fresh process importing and initialising the ingest handler ÷ one doing `import boto3`.

Runs interleaved, medians of each; both include interpreter start-up, as a Lambda cold start does.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUNS = 15
# What a cold start does before its first answer: import the handler, then build its composition
# root from the function's environment (AWS clients themselves are made on their first call).
HANDLER = (
    "import os\n"
    "from continuity_core.kernel.names import BUCKET_ENV, QUEUE_ENV, TABLE_ENV\n"
    "os.environ.update({TABLE_ENV: 't', QUEUE_ENV: 'https://sqs.local/q', BUCKET_ENV: 'b'})\n"
    "import functions.hooks.handler as h\n"
    "h.deps()\n"
)
BASELINE = "import boto3\n"


def timed(code: str) -> float:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"}
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, env=env)
    return time.perf_counter() - started


def run() -> dict[str, float]:
    timed(HANDLER), timed(BASELINE)  # warm the page cache and .pyc files
    handler, baseline = [], []
    for _ in range(RUNS):
        handler.append(timed(HANDLER))
        baseline.append(timed(BASELINE))
    return {
        "cold_start_ratio": statistics.median(handler) / statistics.median(baseline),
        "cold_start_handler_ms": statistics.median(handler) * 1000,
        "cold_start_boto3_ms": statistics.median(baseline) * 1000,
    }
