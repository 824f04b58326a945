"""The HTTP API exposes every route of the wiring, authorized as declared."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from aws_cdk.assertions import Match, Template

from infra import wiring
from infra.constructs.defaults import API_THROTTLE_BURST_LIMIT, API_THROTTLE_RATE_LIMIT

if TYPE_CHECKING:
    from tests.infra.synth import Synthesized

ROUTES = [(spec.key, route) for spec in wiring.FUNCTIONS for route in spec.routes]


def _routes_by_key(synthesized: Synthesized) -> dict[str, dict]:
    routes = synthesized.resources("AWS::ApiGatewayV2::Route").values()
    return {route["Properties"]["RouteKey"]: route["Properties"] for route in routes}


def test_the_api_has_exactly_the_routes_of_the_wiring(synthesized: Synthesized) -> None:
    # When the routes are read from the template
    keys = set(_routes_by_key(synthesized))
    # Then they are the wiring's routes, no more
    assert keys == {f"{route.method} {route.path}" for _, route in ROUTES}


@pytest.mark.parametrize(("key", "route"), ROUTES, ids=[f"{r.method} {r.path}" for _, r in ROUTES])
def test_each_route_is_custom_authorized_when_declared_so_and_open_otherwise(
    synthesized: Synthesized, key: str, route: wiring.HttpRoute
) -> None:
    # Given a route of the wiring / When its API Gateway route is read
    props = _routes_by_key(synthesized)[f"{route.method} {route.path}"]
    authorizer_id = synthesized.stack.api.authorizer.authorizer_id
    # Then it uses the Lambda authorizer (CUSTOM) iff the wiring says authorized
    if route.authorized:
        assert props["AuthorizationType"] == "CUSTOM"
        assert props["AuthorizerId"] == synthesized.stack.resolve(authorizer_id)
    else:
        assert props["AuthorizationType"] == "NONE"
        assert "AuthorizerId" not in props


@pytest.mark.parametrize(("key", "route"), ROUTES, ids=[f"{r.method} {r.path}" for _, r in ROUTES])
def test_each_route_integrates_the_function_that_declares_it(
    synthesized: Synthesized, key: str, route: wiring.HttpRoute
) -> None:
    # Given the route's integration
    props = _routes_by_key(synthesized)[f"{route.method} {route.path}"]
    integration_id = props["Target"]["Fn::Join"][1][1]["Ref"]
    integration = synthesized.resources("AWS::ApiGatewayV2::Integration")[integration_id]["Properties"]
    # Then it is a proxy to the declaring function
    function = synthesized.logical_id(synthesized.stack.functions.functions[key])
    assert integration["IntegrationType"] == "AWS_PROXY"
    assert integration["IntegrationUri"] == {"Fn::GetAtt": [function, "Arn"]}


def test_the_authorizer_is_a_cached_request_authorizer_with_simple_responses(
    synthesized: Synthesized,
) -> None:
    # Then the one authorizer reads the Authorization header and invokes the authorizer function
    function = synthesized.logical_id(synthesized.stack.functions.functions[wiring.API_AUTHORIZER.function])
    synthesized.template.resource_count_is("AWS::ApiGatewayV2::Authorizer", 1)
    synthesized.template.has_resource_properties(
        "AWS::ApiGatewayV2::Authorizer",
        {
            "AuthorizerType": "REQUEST",
            "EnableSimpleResponses": True,
            "AuthorizerPayloadFormatVersion": "2.0",
            "IdentitySource": ["$request.header.Authorization"],
            "AuthorizerResultTtlInSeconds": wiring.API_AUTHORIZER.cache_ttl_s,
            "AuthorizerUri": {"Fn::Join": ["", Match.array_with([{"Fn::GetAtt": [function, "Arn"]}])]},
        },
    )


def test_the_default_stage_is_throttled_and_access_logged(template: Template) -> None:
    # Then the $default stage deploys automatically, throttles and writes JSON access logs
    template.has_resource_properties(
        "AWS::ApiGatewayV2::Stage",
        {
            "StageName": "$default",
            "AutoDeploy": True,
            "DefaultRouteSettings": {
                "ThrottlingBurstLimit": API_THROTTLE_BURST_LIMIT,
                "ThrottlingRateLimit": API_THROTTLE_RATE_LIMIT,
            },
            "AccessLogSettings": {
                "DestinationArn": {"Fn::GetAtt": [Match.string_like_regexp("^ApiAccessLogs"), "Arn"]},
                "Format": Match.string_like_regexp(r"\$context\.requestId"),
            },
        },
    )
