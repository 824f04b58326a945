"""Scheduled (EventBridge, hourly): deletes what outlived its retention, keeps what must stay.

Session state, transcript heads and their S3 bodies, read from the expiry index's due buckets only;
checkpoints and injection records are left to DynamoDB's TTL, except an active session's newest
checkpoint, kept a bucket ahead (``continuity_core/retention/retention.py``). A run that runs short of
time stops between buckets and the next run goes on from there.
"""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from continuity_core.kernel.observability import count, logger, metrics
from continuity_core.roots import pruner as root
from continuity_core.roots.cold_start import ColdStart

pruner = ColdStart(root.build)  # built on the first invocation: once per cold start

# Stop starting buckets this close to the timeout: the cursor still has to be saved.
STOP_BEFORE_MS = 30_000


@logger.inject_lambda_context(clear_state=True)
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    report = pruner().run(should_stop=lambda: context.get_remaining_time_in_millis() < STOP_BEFORE_MS)
    count("PrunerRuns")
    for kind, deleted in report.deleted.items():
        if deleted:
            count("PrunedItems", value=deleted, kind=str(kind))
    if report.kept_latest:
        count("PrunerKeptLatest", value=report.kept_latest)
    if report.left_to_ttl:
        count("PrunerLeftToTtl", value=report.left_to_ttl)
    count("PrunerItemsRead", value=report.items_read)  # ÷ PrunedItems: the bench's read ratio, live
    answer = report.as_dict()
    logger.info("pruned", extra=answer)
    return answer
