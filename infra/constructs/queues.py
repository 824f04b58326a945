"""SQS queues declared in ``wiring.QUEUES``, each with its dead-letter queue."""

from __future__ import annotations

from collections.abc import Sequence

from aws_cdk import Duration
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from infra.constructs.defaults import construct_id
from infra.wiring import QueueSpec


class Queues(Construct):
    """Standard queues with SQS-managed encryption, TLS-only access and a redrive to a DLQ."""

    def __init__(self, scope: Construct, id: str, *, queues: Sequence[QueueSpec]) -> None:
        super().__init__(scope, id)
        self.specs: dict[str, QueueSpec] = {spec.key: spec for spec in queues}
        self.queues: dict[str, sqs.Queue] = {}
        self.dead_letter_queues: dict[str, sqs.Queue] = {}
        for spec in queues:
            name = construct_id(spec.key)
            dlq = sqs.Queue(
                self,
                f"{name}Dlq",
                retention_period=Duration.days(spec.dlq_retention_days),
                encryption=sqs.QueueEncryption.SQS_MANAGED,
                enforce_ssl=True,
            )
            self.dead_letter_queues[spec.key] = dlq
            self.queues[spec.key] = sqs.Queue(
                self,
                name,
                visibility_timeout=Duration.seconds(spec.visibility_timeout_s),
                dead_letter_queue=sqs.DeadLetterQueue(max_receive_count=spec.max_receive_count, queue=dlq),
                encryption=sqs.QueueEncryption.SQS_MANAGED,
                enforce_ssl=True,
            )
