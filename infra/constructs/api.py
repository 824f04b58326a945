"""The HTTP API: every route of every function in the wiring, guarded by the Lambda authorizer."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

import jsii
from aws_cdk import Acknowledgment, Duration, RemovalPolicy, Validations
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_apigatewayv2 as apigwv2
from aws_cdk import aws_apigatewayv2_authorizers as authorizers
from aws_cdk import aws_apigatewayv2_integrations as integrations
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from constructs import Construct

from infra.constructs.defaults import (
    API_THROTTLE_BURST_LIMIT,
    API_THROTTLE_RATE_LIMIT,
    LOG_RETENTION,
    NAG_PACK,
    construct_id,
)
from infra.wiring import AuthorizerSpec, FunctionSpec

# HTTP API $context variables (must include the request id); one JSON object per request.
ACCESS_LOG_FORMAT = {
    "requestId": "$context.requestId",
    "ip": "$context.identity.sourceIp",
    "requestTime": "$context.requestTime",
    "httpMethod": "$context.httpMethod",
    "routeKey": "$context.routeKey",
    "status": "$context.status",
    "protocol": "$context.protocol",
    "responseLength": "$context.responseLength",
    "responseLatency": "$context.responseLatency",
    "integrationError": "$context.integrationErrorMessage",
    "authorizerError": "$context.authorizer.error",
}


@jsii.implements(apigwv2.IAccessLogSettings)
class _AccessLogSettings:
    def __init__(self, destination: apigwv2.IAccessLogDestination, format: apigw.AccessLogFormat) -> None:
        self._destination = destination
        self._format = format

    @property
    def destination(self) -> apigwv2.IAccessLogDestination:
        return self._destination

    @property
    def format(self) -> apigw.AccessLogFormat:
        return self._format


class ServiceApi(Construct):
    """HTTP API with a throttled, access-logged ``$default`` stage.

    Routes with ``authorized=True`` use the REQUEST-type Lambda authorizer (simple responses,
    identity from the ``Authorization`` header, cached per token); the others have none.
    """

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        specs: Sequence[FunctionSpec],
        functions: Mapping[str, lambda_.IFunction],
        authorizer: AuthorizerSpec,
        log_removal_policy: RemovalPolicy = RemovalPolicy.RETAIN,
    ) -> None:
        super().__init__(scope, id)
        self.api = apigwv2.HttpApi(
            self, "HttpApi", description="Continuity hook and read API", create_default_stage=False
        )
        access_logs = logs.LogGroup(
            self, "AccessLogs", retention=LOG_RETENTION, removal_policy=log_removal_policy
        )
        self.stage = apigwv2.HttpStage(
            self,
            "DefaultStage",
            http_api=self.api,
            stage_name="$default",
            auto_deploy=True,
            throttle=apigwv2.ThrottleSettings(
                burst_limit=API_THROTTLE_BURST_LIMIT, rate_limit=API_THROTTLE_RATE_LIMIT
            ),
            access_log_settings=_AccessLogSettings(
                apigwv2.LogGroupLogDestination(access_logs),
                apigw.AccessLogFormat.custom(json.dumps(ACCESS_LOG_FORMAT)),
            ),
        )
        self.authorizer = authorizers.HttpLambdaAuthorizer(
            "Authorizer",
            functions[authorizer.function],
            response_types=[authorizers.HttpLambdaResponseType.SIMPLE],
            identity_source=[f"$request.header.{_header_name(authorizer.identity_header)}"],
            results_cache_ttl=Duration.seconds(authorizer.cache_ttl_s),
        )
        self.routes: dict[tuple[str, str], apigwv2.HttpRoute] = {}
        for spec in specs:
            if spec.routes:
                self._add_routes(spec, functions[spec.key])

    @property
    def url(self) -> str:
        return self.stage.url

    def _add_routes(self, spec: FunctionSpec, function: lambda_.IFunction) -> None:
        integration = integrations.HttpLambdaIntegration(f"{construct_id(spec.key)}Integration", function)
        for route in spec.routes:
            (added,) = self.api.add_routes(
                path=route.path,
                methods=[apigwv2.HttpMethod(route.method.upper())],
                integration=integration,
                authorizer=self.authorizer if route.authorized else None,
            )
            self.routes[(route.method.upper(), route.path)] = added
            if not route.authorized:
                Validations.of(added).acknowledge(
                    Acknowledgment(
                        id=f"{NAG_PACK}::AwsSolutions-APIG4",
                        reason=f"{route.method} {route.path} is public by design (authorized=False in "
                        "infra/wiring.py, e.g. the health check); public routes return no tenant data.",
                    )
                )


def _header_name(header: str) -> str:
    """``authorization`` -> ``Authorization`` (the canonical spelling in the identity source)."""
    return "-".join(part.capitalize() for part in header.split("-"))
