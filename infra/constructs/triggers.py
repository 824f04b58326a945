"""Non-HTTP triggers from the wiring: SQS event sources and schedules."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from aws_cdk import Duration
from aws_cdk import aws_events as events
from aws_cdk import aws_events_targets as targets
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_lambda_event_sources as sources
from constructs import Construct

from infra.constructs.defaults import construct_id
from infra.constructs.queues import Queues
from infra.wiring import FunctionSpec

# AWS's advice for SQS event sources: visibility timeout at least six times the function timeout.
VISIBILITY_TIMEOUT_FACTOR = 6


class Triggers(Construct):
    """Connects queue consumers (partial batch responses) and scheduled functions."""

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        specs: Sequence[FunctionSpec],
        functions: Mapping[str, lambda_.Function],
        queues: Queues,
    ) -> None:
        super().__init__(scope, id)
        self.rules: dict[str, events.Rule] = {}
        for spec in specs:
            if spec.queue_trigger is not None:
                self._consume(spec, functions[spec.key], queues)
            if spec.schedule is not None:
                self.rules[spec.key] = events.Rule(
                    self,
                    f"{construct_id(spec.key)}Schedule",
                    description=f"Runs {spec.key} every {spec.schedule.rate_minutes} minute(s).",
                    schedule=events.Schedule.rate(Duration.minutes(spec.schedule.rate_minutes)),
                    targets=[targets.LambdaFunction(functions[spec.key])],
                )

    @staticmethod
    def _consume(spec: FunctionSpec, function: lambda_.Function, queues: Queues) -> None:
        trigger = spec.queue_trigger
        assert trigger is not None
        queue_spec = queues.specs[trigger.queue]
        if queue_spec.visibility_timeout_s < VISIBILITY_TIMEOUT_FACTOR * spec.timeout_s:
            raise ValueError(
                f"queue {trigger.queue!r}: visibility timeout {queue_spec.visibility_timeout_s}s is below "
                f"{VISIBILITY_TIMEOUT_FACTOR}x the timeout of {spec.key!r} ({spec.timeout_s}s)"
            )
        window = trigger.max_batching_window_s
        function.add_event_source(
            sources.SqsEventSource(
                queues.queues[trigger.queue],
                batch_size=trigger.batch_size,
                max_batching_window=Duration.seconds(window) if window else None,
                report_batch_item_failures=True,
            )
        )
