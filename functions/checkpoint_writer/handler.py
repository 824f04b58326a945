"""SQS consumer: writes the debounced checkpoint of each flushed session."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.parser.models import SqsRecordModel
from aws_lambda_powertools.utilities.parser.types import Json
from aws_lambda_powertools.utilities.typing import LambdaContext

from continuity_core.checkpoints.ports import FlushOutcome
from continuity_core.kernel.observability import count, logger, metrics
from continuity_core.models.flush import FlushRequest
from continuity_core.roots import checkpoint_writer as root
from continuity_core.roots.cold_start import ColdStart

writer = ColdStart(root.build)  # built on the first invocation: once per cold start


class FlushRecord(SqsRecordModel):
    body: Json[FlushRequest]


processor = BatchProcessor(event_type=EventType.SQS, model=FlushRecord)


def write_checkpoint(record: FlushRecord) -> None:
    request = record.body
    logger.set_correlation_id(request.session_key)
    result = writer().flush(request.agent_id, request.session_key, flush_token=request.flush_token)
    if result.outcome is FlushOutcome.WRITTEN and result.checkpoint:
        count("CheckpointsWritten", trigger=result.checkpoint.trigger.value)
        if result.evicted:
            count("CheckpointsEvicted", value=result.evicted)
    logger.info("flush processed", extra={"outcome": result.outcome.value})


@logger.inject_lambda_context(clear_state=True)
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> PartialItemFailureResponse:
    return process_partial_response(
        event=event, record_handler=write_checkpoint, processor=processor, context=context
    )
