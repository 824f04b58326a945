"""Minimal API Gateway v2 / SQS events for calling handlers in-process."""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass
class FakeContext:
    function_name: str = "test"
    memory_limit_in_mb: int = 512
    invoked_function_arn: str = "arn:aws:lambda:us-east-1:123456789012:function:test"
    aws_request_id: str = "req"

    def get_remaining_time_in_millis(self) -> int:
        return 10_000


def http_event(
    method: str,
    path: str,
    route: str,
    body: Any = None,
    path_parameters: dict[str, str] | None = None,
    query: dict[str, str] | None = None,
    agent_id: str | None = "default",
    raw_body: str | None = None,
) -> dict[str, Any]:
    text = raw_body if raw_body is not None else (json.dumps(body) if body is not None else None)
    event: dict[str, Any] = {
        "version": "2.0",
        "routeKey": f"{method} {route}",
        "rawPath": path,
        "rawQueryString": "&".join(f"{k}={v}" for k, v in (query or {}).items()),
        "headers": {"content-type": "application/json"},
        "requestContext": {
            "http": {"method": method, "path": path, "protocol": "HTTP/1.1", "sourceIp": "127.0.0.1"},
            "requestId": str(uuid.uuid4()),
            "routeKey": f"{method} {route}",
            "stage": "$default",
        },
        "isBase64Encoded": False,
    }
    if text is not None:
        event["body"] = text
    if path_parameters:
        event["pathParameters"] = path_parameters
    if query:
        event["queryStringParameters"] = query
    if agent_id:
        event["requestContext"]["authorizer"] = {"lambda": {"agent_id": agent_id, "scopes": "hooks,read"}}
    return event


def sqs_event(messages: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    return {
        "Records": [
            {
                "messageId": message.get("MessageId", str(uuid.uuid4())),
                "receiptHandle": message.get("ReceiptHandle", "rh"),
                "body": message["Body"],
                "attributes": {
                    "ApproximateReceiveCount": "1",
                    "SentTimestamp": "1700000000000",
                    "SenderId": "AIDAEXAMPLE",
                    "ApproximateFirstReceiveTimestamp": "1700000000001",
                },
                "messageAttributes": {},
                "md5OfBody": message.get("MD5OfBody", ""),
                "eventSource": "aws:sqs",
                "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:checkpoints",
                "awsRegion": "us-east-1",
            }
            for message in messages
        ]
    }
