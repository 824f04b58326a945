"""Tenant isolation under concurrent load, on the local stack over HTTP (what ``make run`` serves).

Four writer agents post 8 sessions each (the same session ids for all: 11 prompts with transcript
deltas, so a periodic checkpoint goes through the queue, a digest, session-end) from 16 threads,
while a read-only agent lists, reads and searches the same project from 4 threads
(``tests/e2e/tenant_load.py``). Then each agent reads back what it stored. Goals 0:

- isolation_wrong_tenant_records: sessions, checkpoints or transcripts found under an agent that
  did not write them (the reader included);
- isolation_valid_hooks_401: hooks and digests with a valid token answered 401;
- isolation_wrong_tenant_reads: the reader's answers holding a writer's words;
- isolation_failed_requests: valid requests (writes and reads) answered otherwise (401s too);
- isolation_records_lost_or_doubled: acknowledged prompts not counted in a checkpoint (or counted
  twice), digests not stored once, transcripts not byte-identical, sessions not listed.

``isolation_writes_per_s`` is the writers' throughput in the concurrent phase (informational).
Run alone with ``python -m bench.bench_isolation``.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from unittest import mock

from tests.e2e.local_stack import FLUSH_DELAY_S, LocalStackProcess
from tests.e2e.tenant_load import Load, run_load

LOAD = Load(
    tenants=4, sessions=8, prompts=11, writer_threads=16, reader_threads=4, settle_s=FLUSH_DELAY_S + 3
)


def run() -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="bench-isolation-") as base:
        stack = LocalStackProcess(Path(base) / "data", Path(base) / "stack.log")
        # The readers poll as fast as they are answered: far above a person's rate limit.
        with mock.patch.dict(os.environ, {"CONTINUITY_RATE_LIMIT_PER_MINUTE": "100000"}):
            stack.start()
        try:
            outcome = run_load(stack.url, stack.create_tenant, LOAD)
        finally:
            stack.stop()
    return {
        "isolation_wrong_tenant_records": float(len(outcome.wrong_tenant_records)),
        "isolation_valid_hooks_401": float(outcome.writes_401),
        "isolation_wrong_tenant_reads": float(len(outcome.wrong_tenant_reads)),
        "isolation_failed_requests": float(len(outcome.failed)),
        "isolation_records_lost_or_doubled": float(len(outcome.lost_or_doubled)),
        "isolation_writes_per_s": outcome.writes / outcome.seconds,
    }


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
