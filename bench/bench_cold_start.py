"""cold_start_ratio: a fresh process importing and initialising the ingest handler ÷ one doing `import boto3`.

Runs interleaved, medians of each; both include interpreter start-up, as a Lambda cold start does.
The core is imported as the layer ships it: copied and compiled by ``infra/build_layer.py``'s own
steps (with this interpreter, as the build uses the runtime's), ahead of the source tree, whose
modules would otherwise be compiled again by every run (``PYTHONDONTWRITEBYTECODE``). Without a
Python 3.12 at build time the layer ships sources and a cold start pays that compiling too
(``cold_start_sources_ratio``).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from infra.build_layer import CORE_SOURCE, compile_layer, copy_core

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


def timed(code: str, path: str, cwd: str) -> float:
    env = {**os.environ, "PYTHONPATH": path, "PYTHONDONTWRITEBYTECODE": "1"}
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, cwd=cwd, env=env)
    return time.perf_counter() - started


def run() -> dict[str, float]:
    with tempfile.TemporaryDirectory() as build:
        layer = Path(build) / "core"
        copy_core(CORE_SOURCE, layer)
        compile_layer(layer, sys.executable)
        # Run outside the repository: nothing but PYTHONPATH decides where the core comes from.
        shipped = f"{layer / 'python'}{os.pathsep}{ROOT}"
        sources = f"{CORE_SOURCE.parent}{os.pathsep}{ROOT}"
        for path in (shipped, sources):
            timed(HANDLER, path, build), timed(BASELINE, path, build)  # warm the page cache
        handler, baseline, uncompiled = [], [], []
        for _ in range(RUNS):
            handler.append(timed(HANDLER, shipped, build))
            baseline.append(timed(BASELINE, shipped, build))
            uncompiled.append(timed(HANDLER, sources, build))
    return {
        "cold_start_ratio": statistics.median(handler) / statistics.median(baseline),
        "cold_start_handler_ms": statistics.median(handler) * 1000,
        "cold_start_boto3_ms": statistics.median(baseline) * 1000,
        "cold_start_sources_ratio": statistics.median(uncompiled) / statistics.median(baseline),
    }
