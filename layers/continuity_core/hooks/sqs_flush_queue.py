"""The debounce: a flush request is an SQS message delivered after DelaySeconds."""

from __future__ import annotations

import json

from continuity_core.kernel.aws import client
from continuity_core.models.flush import FlushRequest


class SqsFlushQueue:
    def __init__(self, queue_url: str) -> None:
        self._queue_url = queue_url

    def request_flush(self, agent_id: str, session_key: str, token: str, delay_seconds: int) -> None:
        body = FlushRequest(agent_id=agent_id, session_key=session_key, flush_token=token)
        client("sqs").send_message(
            QueueUrl=self._queue_url,
            MessageBody=json.dumps(body.model_dump()),
            DelaySeconds=delay_seconds,
        )
