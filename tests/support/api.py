"""Drive the service in-process: post hooks, drain the checkpoint queue, read checkpoints."""

from __future__ import annotations

import json
import os
from typing import Any

import boto3

from continuity_core.names import QUEUE_ENV
from tests.support.lambda_events import FakeContext, http_event, sqs_event


class InProcessService:
    def __init__(self, agent_id: str = "default") -> None:
        from functions.checkpoint_writer import handler as writer
        from functions.hooks import handler as hooks
        from functions.read_api import handler as read_api

        self._hooks, self._writer, self._read_api = hooks, writer, read_api
        self.agent_id = agent_id

    def hook(self, event: str, body: Any = None, raw_body: str | None = None) -> tuple[int, Any]:
        request = http_event(
            "POST",
            f"/api/hooks/{event}",
            "/api/hooks/{event}",
            body=body,
            raw_body=raw_body,
            path_parameters={"event": event},
            agent_id=self.agent_id,
        )
        return _decode(self._hooks.lambda_handler(request, FakeContext()))

    def get(self, path: str, route: str, **kwargs: Any) -> tuple[int, Any]:
        request = http_event("GET", path, route, agent_id=self.agent_id, **kwargs)
        return _decode(self._read_api.lambda_handler(request, FakeContext()))

    def agent_api(self, method: str, path: str, route: str, **kwargs: Any) -> tuple[int, Any]:
        from functions.agent_api import handler as agent_api

        request = http_event(method, path, route, agent_id=self.agent_id, **kwargs)
        return _decode(agent_api.lambda_handler(request, FakeContext()))

    def digest(self, session_key: str, body: dict[str, Any]) -> tuple[int, Any]:
        return self.agent_api(
            "POST",
            f"/api/sessions/{session_key}/digest",
            "/api/sessions/{session_key}/digest",
            body=body,
            path_parameters={"session_key": session_key},
        )

    def recover(self, **query: str) -> tuple[int, Any]:
        return self.agent_api("GET", "/api/recovery", "/api/recovery", query=query)

    def session_checkpoints(self, session_key: str) -> list[dict[str, Any]]:
        status, body = self.get(
            f"/api/checkpoints/{session_key}",
            "/api/checkpoints/{session_key}",
            path_parameters={"session_key": session_key},
        )
        assert status == 200, body
        return body["checkpoints"]

    def drain_queue(self) -> int:
        """Deliver every visible flush message to the writer; returns messages delivered.

        Tests run with CONTINUITY_FLUSH_DELAY_SECONDS=0 so nothing waits on the debounce delay.
        """
        sqs = boto3.client("sqs")
        url = os.environ[QUEUE_ENV]
        delivered = 0
        while True:
            messages = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, AttributeNames=["All"]).get(
                "Messages", []
            )
            if not messages:
                return delivered
            result = self._writer.lambda_handler(sqs_event(messages), FakeContext())
            failed = {f["itemIdentifier"] for f in result.get("batchItemFailures", [])}
            for message in messages:
                if message["MessageId"] not in failed:
                    sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
            delivered += len(messages)


def _decode(response: dict[str, Any]) -> tuple[int, Any]:
    body = response.get("body")
    return response["statusCode"], json.loads(body) if body else None
