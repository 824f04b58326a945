"""Alarms on DLQ depth, function errors and throttles and API 5xx, all to one encrypted topic; a dashboard."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from aws_cdk.assertions import Match

from infra import wiring

if TYPE_CHECKING:
    from tests.infra.synth import Synthesized


def alarms(synthesized: Synthesized) -> list[dict[str, Any]]:
    return [r["Properties"] for r in synthesized.resources("AWS::CloudWatch::Alarm").values()]


def topic_id(synthesized: Synthesized) -> str:
    return synthesized.logical_id(synthesized.stack.monitoring.topic)


def test_every_alarm_notifies_the_alarm_topic(synthesized: Synthesized) -> None:
    found = alarms(synthesized)

    assert found
    for alarm in found:
        assert alarm["AlarmActions"] == [{"Ref": topic_id(synthesized)}]
        assert alarm["TreatMissingData"] == "notBreaching"


def test_the_alarm_topic_is_encrypted_and_refuses_plain_http(synthesized: Synthesized) -> None:
    synthesized.template.has_resource_properties("AWS::SNS::Topic", {"KmsMasterKeyId": Match.any_value()})
    synthesized.template.has_resource_properties(
        "AWS::SNS::TopicPolicy",
        {
            "PolicyDocument": {
                "Statement": Match.array_with(
                    [
                        Match.object_like(
                            {"Effect": "Deny", "Condition": {"Bool": {"aws:SecureTransport": "false"}}}
                        )
                    ]
                )
            }
        },
    )


def test_a_message_in_a_dead_letter_queue_raises_an_alarm(synthesized: Synthesized) -> None:
    for queue in wiring.QUEUES:
        dlq = synthesized.stack.queues.dead_letter_queues[queue.key]
        name = {"Fn::GetAtt": [synthesized.logical_id(dlq), "QueueName"]}
        matching = [
            a
            for a in alarms(synthesized)
            if a["MetricName"] == "ApproximateNumberOfMessagesVisible"
            and {"Name": "QueueName", "Value": name} in a["Dimensions"]
        ]
        assert [(a["Threshold"], a["ComparisonOperator"]) for a in matching] == [
            (1, "GreaterThanOrEqualToThreshold")
        ]


def test_every_function_has_error_and_throttle_alarms(synthesized: Synthesized) -> None:
    for spec in wiring.FUNCTIONS:
        function = {"Ref": synthesized.logical_id(synthesized.stack.functions.functions[spec.key])}
        metrics = {
            a["MetricName"]
            for a in alarms(synthesized)
            if a.get("Namespace") == "AWS/Lambda"
            and {"Name": "FunctionName", "Value": function} in a["Dimensions"]
        }
        assert metrics == {"Errors", "Throttles"}, spec.key


def test_api_server_errors_raise_an_alarm(synthesized: Synthesized) -> None:
    assert [a for a in alarms(synthesized) if a["Namespace"] == "AWS/ApiGateway" and a["MetricName"] == "5xx"]


def test_a_dashboard_shows_the_service_metrics(synthesized: Synthesized) -> None:
    dashboards = synthesized.resources("AWS::CloudWatch::Dashboard")
    assert len(dashboards) == 1
    body = str(next(iter(dashboards.values()))["Properties"]["DashboardBody"])
    for metric in ("HooksReceived", "CheckpointsWritten", "RecoveryInjected", "FlushesMerged"):
        assert metric in body
