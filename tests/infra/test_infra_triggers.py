"""The trigger factory: schedules (for functions like a future pruner) and the SQS timeout rule."""

from __future__ import annotations

import pytest
from aws_cdk import Duration, Stack
from aws_cdk import aws_lambda as lambda_
from aws_cdk.assertions import Template

from infra import wiring
from infra.constructs.queues import Queues
from infra.constructs.triggers import Triggers
from tests.infra.synth import logical_id


def _function(stack: Stack, timeout_s: int = 10) -> lambda_.Function:
    return lambda_.Function(
        stack,
        "Fn",
        runtime=lambda_.Runtime.PYTHON_3_12,
        handler="index.handler",
        code=lambda_.Code.from_inline("def handler(event, context):\n    return None\n"),
        timeout=Duration.seconds(timeout_s),
    )


def test_a_schedule_trigger_becomes_an_events_rule_targeting_the_function(bare_stack: Stack) -> None:
    # Given a function spec with a 15-minute schedule
    spec = wiring.FunctionSpec(
        key="pruner",
        source_dir="functions/pruner",
        handler="handler.lambda_handler",
        description="prunes",
        schedule=wiring.ScheduleTrigger(rate_minutes=15),
    )
    function = _function(bare_stack)
    # When the triggers are built
    Triggers(
        bare_stack,
        "Triggers",
        specs=[spec],
        functions={"pruner": function},
        queues=Queues(bare_stack, "Q", queues=()),
    )
    template = Template.from_stack(bare_stack)
    # Then a rule runs the function at that rate, and Events may invoke it
    function_id = logical_id(bare_stack, function)
    template.has_resource_properties(
        "AWS::Events::Rule",
        {
            "ScheduleExpression": "rate(15 minutes)",
            "State": "ENABLED",
            "Targets": [{"Arn": {"Fn::GetAtt": [function_id, "Arn"]}, "Id": "Target0"}],
        },
    )
    template.has_resource_properties(
        "AWS::Lambda::Permission", {"Principal": "events.amazonaws.com", "Action": "lambda:InvokeFunction"}
    )


def test_a_queue_whose_visibility_timeout_is_below_six_consumer_timeouts_is_refused(
    bare_stack: Stack,
) -> None:
    # Given a consumer whose timeout is more than a sixth of the queue's visibility timeout
    queue = wiring.QueueSpec(key="q", env_var="Q_URL", visibility_timeout_s=60, max_receive_count=3)
    spec = wiring.FunctionSpec(
        key="slow",
        source_dir="functions/slow",
        handler="handler.lambda_handler",
        description="slow consumer",
        queue_trigger=wiring.QueueTrigger(queue="q"),
        timeout_s=30,
    )
    # When the triggers are built / Then the wiring mistake is reported with both numbers
    with pytest.raises(ValueError, match=r"visibility timeout 60s .* \(30s\)"):
        Triggers(
            bare_stack,
            "Triggers",
            specs=[spec],
            functions={"slow": _function(bare_stack, 30)},
            queues=Queues(bare_stack, "Queues", queues=[queue]),
        )
