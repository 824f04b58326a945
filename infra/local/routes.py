"""HTTP API route matching: path templates (``/api/hooks/{event}``, ``/{proxy+}``) from the wiring."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import unquote

from infra.wiring import FunctionSpec, HttpRoute

_PARAM = re.compile(r"^\{([A-Za-z0-9_.:-]+)(\+?)\}$")


@dataclass(frozen=True)
class _Param:
    name: str
    greedy: bool


@dataclass(frozen=True)
class PathTemplate:
    """A compiled HTTP API path template; ``match`` works on the raw (percent-encoded) path."""

    template: str
    segments: tuple[str | _Param, ...]

    @property
    def specificity(self) -> tuple[int, int, int]:
        """Sort key, higher wins: no greedy parameter, then more literal segments, then length."""
        literal = sum(1 for s in self.segments if isinstance(s, str))
        greedy = any(isinstance(s, _Param) and s.greedy for s in self.segments)
        return (0 if greedy else 1, literal, len(self.segments))

    def match(self, raw_path: str) -> dict[str, str] | None:
        parts = raw_path.lstrip("/").split("/")
        params: dict[str, str] = {}
        for index, segment in enumerate(self.segments):
            if isinstance(segment, _Param) and segment.greedy:
                rest = parts[index:]
                if not rest or rest == [""]:
                    return None
                params[segment.name] = unquote("/".join(rest))
                return params
            if index >= len(parts):
                return None
            value = unquote(parts[index])
            if isinstance(segment, _Param):
                if not value:
                    return None
                params[segment.name] = value
            elif segment != value:
                return None
        return params if len(parts) == len(self.segments) else None


@lru_cache(maxsize=256)
def compile_template(template: str) -> PathTemplate:
    if not template.startswith("/"):
        raise ValueError(f"route path must start with '/': {template!r}")
    segments: list[str | _Param] = []
    raw_segments = template.lstrip("/").split("/")
    for index, raw in enumerate(raw_segments):
        found = _PARAM.match(raw)
        if found is None:
            if "{" in raw or "}" in raw:
                raise ValueError(f"malformed path parameter {raw!r} in {template!r}")
            segments.append(raw)
            continue
        greedy = bool(found.group(2))
        if greedy and index != len(raw_segments) - 1:
            raise ValueError(f"a greedy parameter must be the last segment: {template!r}")
        segments.append(_Param(found.group(1), greedy))
    return PathTemplate(template, tuple(segments))


def path_parameters(template: str, raw_path: str) -> dict[str, str]:
    """The path parameters of ``raw_path`` under ``template``; ValueError if it does not match."""
    params = compile_template(template).match(raw_path)
    if params is None:
        raise ValueError(f"path {raw_path!r} does not match route {template!r}")
    return params


@dataclass(frozen=True)
class Route:
    function: FunctionSpec
    http: HttpRoute
    template: PathTemplate

    @property
    def method(self) -> str:
        return self.http.method.upper()

    @property
    def route_key(self) -> str:
        """API Gateway's route key, e.g. ``POST /api/hooks/{event}``."""
        return f"{self.method} {self.http.path}"


@dataclass(frozen=True)
class RouteMatch:
    route: Route
    path_parameters: dict[str, str]


class RouteTable:
    """Every ``HttpRoute`` of the given functions; matches like an HTTP API (most specific wins)."""

    def __init__(self, functions: Iterable[FunctionSpec]) -> None:
        routes: dict[str, Route] = {}
        for spec in functions:
            for http in spec.routes:
                route = Route(spec, http, compile_template(http.path))
                if route.route_key in routes:
                    other = routes[route.route_key].function.key
                    raise ValueError(f"route {route.route_key} is declared by {other} and {spec.key}")
                routes[route.route_key] = route
        self._routes = tuple(routes.values())

    def __iter__(self) -> Iterator[Route]:
        return iter(self._routes)

    def __len__(self) -> int:
        return len(self._routes)

    def match(self, method: str, raw_path: str) -> RouteMatch | None:
        method = method.upper()
        best: tuple[tuple[int, int, int, int], RouteMatch] | None = None
        for route in self._routes:
            if route.method not in (method, "ANY"):
                continue
            params = route.template.match(raw_path)
            if params is None:
                continue
            rank = (*route.template.specificity, 1 if route.method == method else 0)
            if best is None or rank > best[0]:
                best = (rank, RouteMatch(route, params))
        return best[1] if best else None
