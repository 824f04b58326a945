"""Drive the service in-process: post hooks, drain the checkpoint queue, read checkpoints."""

from __future__ import annotations

import json
import os
from typing import Any

import boto3

from continuity_core.kernel.names import QUEUE_ENV
from infra import wiring
from tests.support.lambda_events import http_event, invoke, sqs_event


class InProcessService:
    """The functions called in-process, each as Lambda runs it (``lambda_events.invoke``)."""

    def __init__(self, agent_id: str = "default", token_name: str | None = None) -> None:
        self.agent_id = agent_id
        self.token_name = token_name  # the calling token's name (a person's, by convention)

    def hook(self, event: str, body: Any = None, raw_body: str | None = None) -> tuple[int, Any]:
        request = http_event(
            "POST",
            f"/api/hooks/{event}",
            "/api/hooks/{event}",
            body=body,
            raw_body=raw_body,
            path_parameters={"event": event},
            agent_id=self.agent_id,
            token_name=self.token_name,
        )
        return _decode(invoke(wiring.HOOKS.key, request))

    def get(self, path: str, route: str, **kwargs: Any) -> tuple[int, Any]:
        request = http_event("GET", path, route, agent_id=self.agent_id, token_name=self.token_name, **kwargs)
        return _decode(invoke(wiring.READ_API.key, request))

    def agent_api(self, method: str, path: str, route: str, **kwargs: Any) -> tuple[int, Any]:
        request = http_event(
            method, path, route, agent_id=self.agent_id, token_name=self.token_name, **kwargs
        )
        return _decode(invoke(wiring.AGENT_API.key, request))

    def sessions(self, path: str, route: str, **kwargs: Any) -> tuple[int, Any]:
        request = http_event("GET", path, route, agent_id=self.agent_id, token_name=self.token_name, **kwargs)
        return _decode(invoke(wiring.SESSIONS.key, request))

    def handoff(self, session_key: str, body: dict[str, Any]) -> tuple[int, Any]:
        return self.agent_api(
            "POST",
            f"/api/sessions/{session_key}/handoff",
            "/api/sessions/{session_key}/handoff",
            body=body,
            path_parameters={"session_key": session_key},
        )

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
            result = invoke(wiring.CHECKPOINT_WRITER.key, sqs_event(messages))
            failed = {f["itemIdentifier"] for f in result.get("batchItemFailures", [])}
            for message in messages:
                if message["MessageId"] not in failed:
                    sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
            delivered += len(messages)


def _decode(response: dict[str, Any]) -> tuple[int, Any]:
    body = response.get("body")
    return response["statusCode"], json.loads(body) if body else None
