"""Route matching: HTTP API path templates from the wiring."""

import pytest

from infra import wiring
from infra.local.routes import RouteTable, compile_template, path_parameters
from infra.wiring import HttpRoute
from tests.unit.local.support import throwaway


@pytest.mark.parametrize(
    ("method", "path", "function", "route_key", "params"),
    [
        (
            "POST",
            "/api/hooks/user-prompt-submit",
            "hooks",
            "POST /api/hooks/{event}",
            {"event": "user-prompt-submit"},
        ),
        ("GET", "/api/health", "read_api", "GET /api/health", {}),
        ("GET", "/api/checkpoints", "read_api", "GET /api/checkpoints", {}),
        (
            "GET",
            "/api/checkpoints/s%201",
            "read_api",
            "GET /api/checkpoints/{session_key}",
            {"session_key": "s 1"},
        ),
    ],
)
def test_every_wiring_route_matches_its_function(
    method: str, path: str, function: str, route_key: str, params: dict[str, str]
) -> None:
    match = RouteTable(wiring.FUNCTIONS).match(method, path)

    assert match is not None
    assert (match.route.function.key, match.route.route_key, match.path_parameters) == (
        function,
        route_key,
        params,
    )


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/api/hooks/user-prompt-submit"),  # wrong method: HTTP APIs answer 404, not 405
        ("POST", "/api/hooks"),
        ("POST", "/api/hooks/a/b"),
        ("POST", "/api/hooks/"),
        ("GET", "/api/health/"),
        ("GET", "/"),
    ],
)
def test_requests_without_a_route_do_not_match(method: str, path: str) -> None:
    assert RouteTable(wiring.FUNCTIONS).match(method, path) is None


def test_a_literal_segment_wins_over_a_parameter_and_a_greedy_route_comes_last() -> None:
    table = RouteTable(
        [
            throwaway("greedy", routes=(HttpRoute("ANY", "/files/{proxy+}"),)),
            throwaway("param", routes=(HttpRoute("GET", "/files/{name}"),)),
            throwaway("literal", routes=(HttpRoute("GET", "/files/readme"),)),
        ]
    )

    def winner(method: str, path: str) -> str | None:
        match = table.match(method, path)
        return match.route.function.key if match else None

    assert winner("GET", "/files/readme") == "literal"
    assert winner("GET", "/files/other") == "param"
    assert winner("DELETE", "/files/other") == "greedy"
    assert winner("GET", "/files/a/b") == "greedy"
    encoded = table.match("GET", "/files/a/b%2Fc")
    assert encoded is not None and encoded.path_parameters == {"proxy": "a/b/c"}


def test_the_same_route_declared_twice_is_refused() -> None:
    route = HttpRoute("GET", "/x")

    with pytest.raises(ValueError, match="declared by a and b"):
        RouteTable([throwaway("a", routes=(route,)), throwaway("b", routes=(route,))])


@pytest.mark.parametrize("template", ["api/x", "/api/{a", "/{proxy+}/x"])
def test_malformed_templates_are_refused(template: str) -> None:
    with pytest.raises(ValueError):
        compile_template(template)


def test_path_parameters_of_a_path_that_does_not_match_raise() -> None:
    with pytest.raises(ValueError, match="does not match"):
        path_parameters("/api/hooks/{event}", "/api/other/x")
