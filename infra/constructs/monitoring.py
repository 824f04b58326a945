"""Alarms (to one SNS topic) and a dashboard: is Continuity healthy, and is it doing its job?"""

from __future__ import annotations

from collections.abc import Mapping

from aws_cdk import Duration
from aws_cdk import aws_apigatewayv2 as apigwv2
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_cloudwatch_actions as actions
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from continuity_core.models.checkpoint_trigger import CheckpointTrigger
from continuity_core.models.hooks import HookEvent
from infra.constructs.defaults import construct_id

METRICS_NAMESPACE = "Continuity"
SERVICE = "continuity"
PERIOD = Duration.minutes(5)
# The pruner counts per kind of item: graph whatever kinds it reports.
PRUNED_BY_KIND = f"SEARCH('{{{METRICS_NAMESPACE},kind,service}} MetricName=\"PrunedItems\"', 'Sum', 300)"
API_5XX_THRESHOLD = 5  # per 5 minutes: a blip is a retry, a run of them is an outage


class Monitoring(Construct):
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        functions: Mapping[str, lambda_.IFunction],
        dead_letter_queues: Mapping[str, sqs.IQueue],
        api: apigwv2.HttpApi,
        dashboard_name: str,
    ) -> None:
        super().__init__(scope, id)
        key = kms.Key(self, "AlarmTopicKey", enable_key_rotation=True, description="Continuity alarm topic")
        # CloudWatch alarms publish to an encrypted topic only if they may use its key.
        key.grant_encrypt_decrypt(iam.ServicePrincipal("cloudwatch.amazonaws.com"))
        self.topic = sns.Topic(self, "AlarmTopic", display_name="Continuity alarms", master_key=key)
        self.topic.add_to_resource_policy(
            iam.PolicyStatement(
                sid="DenyInsecureTransport",
                effect=iam.Effect.DENY,
                principals=[iam.AnyPrincipal()],
                actions=["sns:Publish"],
                resources=[self.topic.topic_arn],
                conditions={"Bool": {"aws:SecureTransport": "false"}},
            )
        )
        self.alarms: list[cloudwatch.Alarm] = []

        for queue_key, dlq in dead_letter_queues.items():
            self._alarm(
                f"{construct_id(queue_key)}DlqDepth",
                dlq.metric_approximate_number_of_messages_visible(period=PERIOD, statistic="Maximum"),
                threshold=1,
                description=f"Messages in the {queue_key} dead-letter queue: a flush failed 5 times "
                "(see docs/DEPLOY.md, `make redrive`).",
            )
        for function_key, function in functions.items():
            name = construct_id(function_key)
            self._alarm(
                f"{name}Errors",
                function.metric_errors(period=PERIOD, statistic="Sum"),
                threshold=1,
                description=f"The {function_key} function raised errors.",
            )
            self._alarm(
                f"{name}Throttles",
                function.metric_throttles(period=PERIOD, statistic="Sum"),
                threshold=1,
                description=f"The {function_key} function was throttled.",
            )
        self._alarm(
            "Api5xx",
            api.metric_server_error(period=PERIOD, statistic="Sum"),
            threshold=API_5XX_THRESHOLD,
            description="The HTTP API answered 5xx.",
        )

        self.dashboard = cloudwatch.Dashboard(self, "Dashboard", dashboard_name=dashboard_name)
        self.dashboard.add_widgets(
            _graph(
                "Hooks received by event", [_service_metric("HooksReceived", "event", e) for e in _EVENTS]
            ),
            _graph(
                "Checkpoints written by trigger",
                [_service_metric("CheckpointsWritten", "trigger", t) for t in _TRIGGERS],
            ),
            _graph(
                "Recovery at session start",
                [_service_metric("RecoveryInjected"), _service_metric("RecoveryMissed")],
            ),
            _graph(
                "Debounce",
                [
                    _service_metric("FlushesRequested"),
                    _service_metric("FlushesMerged"),
                    _service_metric("HookReplaysIgnored"),
                ],
            ),
        )
        self.dashboard.add_widgets(
            _graph(
                "Agents",
                [
                    _service_metric("InheritInjected"),
                    _service_metric("CompactionNudges"),
                    _service_metric("SpoolReplays"),
                ],
            ),
            _graph(
                "Protection",
                [
                    _service_metric("Redactions"),
                    _service_metric("RedactedOnServe"),
                    _service_metric("RateLimited"),
                ],
            ),
            _graph(
                "Pruned items by kind",
                [
                    cloudwatch.MathExpression(
                        expression=PRUNED_BY_KIND,
                        label="",
                        period=PERIOD,
                    )
                ],
            ),
        )
        self.dashboard.add_widgets(
            _graph(
                "API requests and errors",
                [api.metric_count(period=PERIOD), api.metric_server_error(period=PERIOD)],
            ),
            _graph("API latency p90", [api.metric_latency(period=PERIOD, statistic="p90")]),
            _graph("Function errors", [f.metric_errors(period=PERIOD) for f in functions.values()]),
            _graph(
                "Function duration p90",
                [f.metric_duration(period=PERIOD, statistic="p90") for f in functions.values()],
            ),
        )
        self.dashboard.add_widgets(
            cloudwatch.AlarmStatusWidget(title="Alarms", alarms=self.alarms, width=24),
        )

    def _alarm(self, id: str, metric: cloudwatch.IMetric, threshold: float, description: str) -> None:
        alarm = cloudwatch.Alarm(
            self,
            id,
            metric=metric,
            threshold=threshold,
            evaluation_periods=1,
            comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
            treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
            alarm_description=description,
        )
        alarm.add_alarm_action(actions.SnsAction(self.topic))
        self.alarms.append(alarm)


# The dashboard's lines: one per hook event and per checkpoint trigger, as the models declare them.
_EVENTS = tuple(event.value for event in HookEvent)
_TRIGGERS = tuple(trigger.value for trigger in CheckpointTrigger)


def _service_metric(name: str, dimension: str | None = None, value: str | None = None) -> cloudwatch.Metric:
    dimensions = {"service": SERVICE}
    label = name
    if dimension and value:
        dimensions[dimension] = value
        label = value
    return cloudwatch.Metric(
        namespace=METRICS_NAMESPACE,
        metric_name=name,
        dimensions_map=dimensions,
        statistic="Sum",
        period=PERIOD,
        label=label,
    )


def _graph(title: str, metrics: list[cloudwatch.IMetric]) -> cloudwatch.GraphWidget:
    return cloudwatch.GraphWidget(title=title, left=metrics, width=6)
