"""The checkpoint queue and its consumer follow the wiring and the SQS event-source advice."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from infra import wiring
from infra.constructs.triggers import VISIBILITY_TIMEOUT_FACTOR

if TYPE_CHECKING:
    from tests.infra.synth import Synthesized

CONSUMERS = [spec for spec in wiring.FUNCTIONS if spec.queue_trigger is not None]


def _queue(synthesized: Synthesized, key: str) -> tuple[str, dict]:
    logical_id = synthesized.logical_id(synthesized.stack.queues.queues[key])
    return logical_id, synthesized.resources("AWS::SQS::Queue")[logical_id]["Properties"]


@pytest.mark.parametrize("spec", CONSUMERS, ids=lambda s: s.key)
def test_each_consumer_reports_batch_item_failures_with_the_wiring_batch_size(
    synthesized: Synthesized, spec: wiring.FunctionSpec
) -> None:
    # Given the consumer's queue trigger
    trigger = spec.queue_trigger
    assert trigger is not None
    queue_id, _ = _queue(synthesized, trigger.queue)
    function = synthesized.logical_id(synthesized.stack.functions.functions[spec.key])
    # Then its event source mapping reads that queue with partial batch responses
    synthesized.template.has_resource_properties(
        "AWS::Lambda::EventSourceMapping",
        {
            "FunctionName": {"Ref": function},
            "EventSourceArn": {"Fn::GetAtt": [queue_id, "Arn"]},
            "BatchSize": trigger.batch_size,
            "FunctionResponseTypes": ["ReportBatchItemFailures"],
        },
    )


@pytest.mark.parametrize("queue", wiring.QUEUES, ids=lambda q: q.key)
def test_each_queue_redrives_to_its_dlq_after_the_wiring_max_receive_count(
    synthesized: Synthesized, queue: wiring.QueueSpec
) -> None:
    # When the queue and its DLQ are read
    _, props = _queue(synthesized, queue.key)
    dlq_id = synthesized.logical_id(synthesized.stack.queues.dead_letter_queues[queue.key])
    dlq = synthesized.resources("AWS::SQS::Queue")[dlq_id]["Properties"]
    # Then messages move to the DLQ after max_receive_count deliveries and wait there 14 days
    assert props["RedrivePolicy"] == {
        "deadLetterTargetArn": {"Fn::GetAtt": [dlq_id, "Arn"]},
        "maxReceiveCount": queue.max_receive_count,
    }
    assert dlq["MessageRetentionPeriod"] == queue.dlq_retention_days * 24 * 3600


@pytest.mark.parametrize("spec", CONSUMERS, ids=lambda s: s.key)
def test_the_visibility_timeout_is_at_least_six_times_the_consumer_timeout(
    synthesized: Synthesized, spec: wiring.FunctionSpec
) -> None:
    # Given the consumer and its queue
    assert spec.queue_trigger is not None
    _, props = _queue(synthesized, spec.queue_trigger.queue)
    function = synthesized.logical_id(synthesized.stack.functions.functions[spec.key])
    timeout = synthesized.resources("AWS::Lambda::Function")[function]["Properties"]["Timeout"]
    # Then a message stays invisible for at least six invocations' worth of time
    assert props["VisibilityTimeout"] >= VISIBILITY_TIMEOUT_FACTOR * timeout


def test_every_queue_is_encrypted_and_refuses_plain_http(synthesized: Synthesized) -> None:
    # Then each queue (DLQs included) has SQS-managed SSE and a policy denying non-TLS access
    queues = synthesized.resources("AWS::SQS::Queue")
    assert all(q["Properties"]["SqsManagedSseEnabled"] is True for q in queues.values())
    policies = synthesized.resources("AWS::SQS::QueuePolicy").values()
    guarded = {
        ref["Ref"]
        for policy in policies
        for statement in policy["Properties"]["PolicyDocument"]["Statement"]
        if statement["Effect"] == "Deny"
        and statement["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}
        for ref in policy["Properties"]["Queues"]
    }
    assert guarded == set(queues)
