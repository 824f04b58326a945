"""Scheduled (EventBridge, every 5 minutes): the final checkpoint of sessions whose end never came.

Sessions with pending prompts and no hook for ``idleCloseMinutes`` get a checkpoint with trigger
``idle``, read from the idle index only (``continuity_core/checkpoints/idle.py``).
"""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from continuity_core.kernel.observability import count, logger, metrics
from continuity_core.roots import idle_sweep as root
from continuity_core.roots.cold_start import ColdStart

sweeper = ColdStart(root.build)  # built on the first invocation: once per cold start

# Stop taking sessions this close to the timeout: the rest stay due for the next run.
STOP_BEFORE_MS = 10_000


@logger.inject_lambda_context(clear_state=True)
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    report = sweeper().run(should_stop=lambda: context.get_remaining_time_in_millis() < STOP_BEFORE_MS)
    if report.closed:
        count("IdleCheckpoints", value=report.closed)
    answer = report.as_dict()
    logger.info("idle sweep", extra=answer)
    return answer
