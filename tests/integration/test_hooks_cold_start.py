"""A cold start of the hooks function loads what a prompt or a stop needs, and nothing only other
events use: the checkpoint writer with the rolling digest's rules, recovery and the checkpoint
models are loaded by the first hook that uses them (``roots/hooks.py``; docs/BENCHMARKS.md,
``cold_start_ratio``). A fresh interpreter, as on Lambda: what this process loaded would hide it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# What the first invocation does before it answers (bench/bench_cold_start.py), then what it loaded.
COLD_START = (
    "import os, sys\n"
    "from continuity_core.kernel.names import BUCKET_ENV, QUEUE_ENV, TABLE_ENV\n"
    "os.environ.update({TABLE_ENV: 't', QUEUE_ENV: 'https://sqs.local/q', BUCKET_ENV: 'b'})\n"
    "import functions.hooks.handler as h\n"
    "h.deps()\n"
    "{then}"
    "print(' '.join(sorted(m for m in sys.modules if m.startswith('continuity_core.'))))\n"
)
# Rules and models only a session start, a compaction, a session end, a remember or a full pending
# list use (each has a figure of its own in `python -X importtime`).
ONLY_OTHER_EVENTS = {
    "continuity_core.checkpoints.writer",
    "continuity_core.checkpoints.rolling",
    "continuity_core.checkpoints.checkpoints",
    "continuity_core.checkpoints.dynamo_checkpoints",
    "continuity_core.extraction.sticky",
    "continuity_core.extraction.verdicts",
    "continuity_core.recovery.recovery",
    "continuity_core.recovery.inherit",
    "continuity_core.models.checkpoint",
    "continuity_core.models.session_digest",
    "continuity_core.hooks.events.session_start",
    "continuity_core.hooks.events.pre_compaction",
}


def loaded_after_cold_start(then: str = "") -> set[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "layers")])}
    done = subprocess.run(
        [sys.executable, "-c", COLD_START.replace("{then}", then)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        check=True,
    )
    return set(done.stdout.split())


def test_a_cold_start_loads_nothing_only_other_events_use() -> None:
    loaded = loaded_after_cold_start()

    assert "continuity_core.hooks.events.user_prompt" in loaded  # a prompt's handler is ready
    assert loaded & ONLY_OTHER_EVENTS == set()


def test_the_first_pre_compaction_loads_its_handler_and_the_writer() -> None:
    # The handler is built by its event's first hook, the writer by its first flush.
    then = (
        "handlers = h.deps().hooks.handlers\n"
        "handlers.pre_compaction.handler()\n"
        "handlers.remember.handler().writer.flush\n"
    )

    loaded = loaded_after_cold_start(then)

    assert {
        "continuity_core.hooks.events.pre_compaction",
        "continuity_core.checkpoints.writer",
        "continuity_core.checkpoints.rolling",
    } <= loaded
