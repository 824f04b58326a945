"""Events and contexts for calling handlers in-process: the local stack's own builders
(infra/local/events.py), with the defaults tests want (a JSON body, the default agent's claims)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from infra import wiring
from infra.local import events
from infra.local.context import LambdaContext, lambda_context
from infra.local.runtime import import_handler
from tests.support.isolation import as_function

ALL_SCOPES = "hooks,read,admin"


def FakeContext(function: str = wiring.HOOKS.key) -> LambdaContext:
    return lambda_context(wiring.function(function))


def invoke(function: str, event: dict[str, Any]) -> Any:
    """The function's handler called in-process as Lambda calls it: with its own context and
    environment, under its role's grant (``tests/support/isolation.py``)."""
    handler = import_handler(wiring.function(function))
    with as_function(function):
        return handler(event, FakeContext(function))


def http_event(
    method: str,
    path: str,
    route: str,
    body: Any = None,
    path_parameters: dict[str, str] | None = None,
    query: dict[str, str] | None = None,
    agent_id: str | None = "default",
    raw_body: str | None = None,
    token_name: str | None = None,
) -> dict[str, Any]:
    """An HTTP API v2 event as the gateway hands it over after the authorizer (``agent_id`` None: none;
    ``token_name``: the name of the token, as the authorizer passes it on)."""
    claims = {"agent_id": agent_id, "scopes": ALL_SCOPES, "token_name": token_name or ""}
    return events.http_event(
        method,
        path,
        route,
        body=raw_body if raw_body is not None else body,
        headers={"content-type": "application/json"},
        query=query,
        path_parameters=path_parameters,
        authorizer=claims if agent_id else None,
    )


def sqs_event(messages: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The writer's event for messages from ReceiveMessage (or ``{"MessageId", "Body"}`` stand-ins)."""
    queue = wiring.CHECKPOINT_QUEUE.key
    records = [
        events.sqs_record_from_message(m, queue=queue)
        if "ReceiptHandle" in m
        else events.sqs_record(m["Body"], queue=queue, message_id=m.get("MessageId"))
        for m in messages
    ]
    return events.sqs_event(records)
