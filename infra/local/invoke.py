"""``python -m infra.local.invoke FUNCTION EVENT_FILE``: run one function in-process on in-memory moto.

The wiring's resources are provisioned in ``moto.mock_aws`` and the file is wrapped into the event
the function's trigger sends:

- an HTTP route: a payload 2.0 event with the file as its body, after the authorizer for authorized
  routes; path parameters default to the file name up to the first ``.`` without a ``-compact``
  suffix (``events/session-start-compact.json`` posts to ``/api/hooks/session-start``);
- a queue trigger: an SQS event with the file as the one record's body;
- a schedule: a Scheduled Event.

``--raw`` passes the file as the event unchanged. Prints the result, then what is left on the queues.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
from pathlib import Path
from typing import Any

from infra import wiring
from infra.local.environment import ensure_import_paths, shared_environment, token_sha256, use_fake_aws


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m infra.local.invoke", description=__doc__.splitlines()[0])
    parser.add_argument("function", help="function key in infra/wiring.py, e.g. hooks")
    parser.add_argument("event_file", type=Path, help="payload file, e.g. events/user-prompt-submit.json")
    parser.add_argument("--route", help='route key when the function has several, e.g. "GET /api/health"')
    parser.add_argument(
        "--path",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="path parameter (default: the event file's stem)",
    )
    parser.add_argument("--query", default="", help="raw query string for an HTTP route")
    parser.add_argument("--raw", action="store_true", help="pass the file as the event unchanged")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    ensure_import_paths()
    from continuity_core.kernel.config import ConfigError, load_config

    keys = [spec.key for spec in wiring.FUNCTIONS]
    if args.function not in keys:
        print(f"unknown function {args.function!r}; one of: {', '.join(keys)}", file=sys.stderr)
        return 2
    try:
        text = args.event_file.read_text()
        config = load_config()
    except (OSError, ConfigError) as error:
        print(f"invoke: {error}", file=sys.stderr)
        return 2
    use_fake_aws(None)  # mock_aws intercepts AWS endpoints; a custom endpoint would bypass it

    import boto3
    from moto import mock_aws

    from infra.local.authorization import AuthorizerGate
    from infra.local.provision import provision
    from infra.local.runtime import InProcessRuntime

    with mock_aws():
        sqs = boto3.client("sqs")
        provisioned = provision(
            boto3.client("dynamodb"),
            sqs,
            wiring.TABLES,
            wiring.QUEUES,
            s3=boto3.client("s3"),
            buckets=wiring.BUCKETS,
        )
        token = secrets.token_urlsafe(16)
        os.environ.update(config.to_environment())
        os.environ.update(shared_environment(wiring.FUNCTIONS))
        os.environ.update(provisioned.environment)
        os.environ[wiring.API_TOKEN_ENV_VAR] = token_sha256(token)
        runtime = InProcessRuntime(wiring.FUNCTIONS)
        spec = runtime.spec(args.function)
        try:
            event = build_event(args, spec, text, token, provisioned.queues)
        except ValueError as error:
            print(f"invoke: {error}", file=sys.stderr)
            return 2
        if spec.routes and not args.raw and _needs_authorizer(args, spec):
            decision = AuthorizerGate(runtime, wiring.API_AUTHORIZER).authorize(event)
            if not decision.allowed:
                print(f"authorizer answered {decision.status}", file=sys.stderr)
                return 1
            event["requestContext"]["authorizer"] = {"lambda": decision.context}
        invocation = runtime.invoke(spec.key, event)
        if not invocation.ok:
            print(f"invoke: {spec.key} failed: {invocation.error}", file=sys.stderr)
            return 1
        print(json.dumps(invocation.result, indent=2, sort_keys=True))
        for key, queue in provisioned.queues.items():
            attributes = sqs.get_queue_attributes(QueueUrl=queue.url, AttributeNames=["All"])["Attributes"]
            waiting = int(attributes["ApproximateNumberOfMessages"])
            delayed = int(attributes["ApproximateNumberOfMessagesDelayed"])
            if waiting or delayed:
                print(f"{key}: {waiting} message(s) waiting, {delayed} delayed", file=sys.stderr)
    return 0


def build_event(
    args: argparse.Namespace, spec: wiring.FunctionSpec, text: str, token: str, queues: dict[str, Any]
) -> dict[str, Any]:
    from infra.local.events import http_event, scheduled_event, sqs_event, sqs_record
    from infra.local.routes import compile_template

    if args.raw:
        return dict(json.loads(text))
    if spec.routes:
        route = _route(spec, args.route)
        params = {p.split("=", 1)[0]: p.split("=", 1)[1] for p in args.path if "=" in p}
        path = route.path
        for segment in compile_template(route.path).segments:
            if not isinstance(segment, str):
                value = params.setdefault(segment.name, default_path_value(args.event_file))
                path = path.replace("{" + segment.name + ("+" if segment.greedy else "") + "}", value)
        with_body = route.method.upper() not in ("GET", "HEAD")
        return http_event(
            route.method,
            path,
            route=route.path,
            body=text if with_body else None,
            headers={"content-type": "application/json", "authorization": f"Bearer {token}"},
            query=args.query,
            path_parameters=params,
        )
    if spec.queue_trigger is not None:
        queue = queues[spec.queue_trigger.queue]
        return sqs_event([sqs_record(text, queue=queue.arn)])
    if spec.schedule is not None:
        return scheduled_event(f"continuity-local-{spec.key}")
    return dict(json.loads(text))


def default_path_value(event_file: Path) -> str:
    """The file name up to the first '.', without a '-compact' suffix (events/README.md)."""
    return event_file.name.split(".", 1)[0].removesuffix("-compact")


def _route(spec: wiring.FunctionSpec, route_key: str | None) -> wiring.HttpRoute:
    if route_key is None:
        return spec.routes[0]
    for route in spec.routes:
        if f"{route.method.upper()} {route.path}" == route_key:
            return route
    choices = ", ".join(f'"{r.method} {r.path}"' for r in spec.routes)
    raise ValueError(f"{spec.key} has no route {route_key!r}; one of: {choices}")


def _needs_authorizer(args: argparse.Namespace, spec: wiring.FunctionSpec) -> bool:
    return _route(spec, args.route).authorized


if __name__ == "__main__":
    raise SystemExit(main())
