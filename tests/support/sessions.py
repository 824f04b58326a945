"""Drive the sessions API in-process, and build hooks that carry transcript deltas."""

from __future__ import annotations

import json
from typing import Any

from infra import wiring
from tests.support.lambda_events import http_event, invoke


class SessionsApi:
    def __init__(self, agent_id: str = "default") -> None:
        self.agent_id = agent_id

    def call(self, method: str, path: str, route: str, **kwargs: Any) -> tuple[int, Any]:
        request = http_event(method, path, route, agent_id=self.agent_id, **kwargs)
        response = invoke(wiring.SESSIONS.key, request)
        body = response.get("body")
        return response["statusCode"], json.loads(body) if body else None

    def sessions(self, **query: str) -> tuple[int, Any]:
        return self.call("GET", "/api/sessions", "/api/sessions", query=query)

    def transcript(self, session_key: str, **query: str) -> tuple[int, Any]:
        return self.call(
            "GET",
            f"/api/sessions/{session_key}/transcript",
            "/api/sessions/{session_key}/transcript",
            path_parameters={"session_key": session_key},
            query=query or None,
        )

    def search(self, **body: Any) -> tuple[int, Any]:
        return self.call("POST", "/api/sessions/search", "/api/sessions/search", body=body)


class Transcript:
    """A client's growing readable transcript and its cursor: each hook sends only what is new."""

    def __init__(self, session: str, cwd: str = "/work/app", harness: str = "claude-code") -> None:
        self.session, self.cwd, self.harness = session, cwd, harness
        self.text = ""
        self.sent = 0

    def grow(self, text: str) -> None:
        self.text += text

    def hook_body(self, **extra: Any) -> dict[str, Any]:
        body = {
            "session_id": self.session,
            "cwd": self.cwd,
            "harness": self.harness,
            "transcript": {"offset": self.sent, "text": self.text[self.sent :]},
            **extra,
        }
        self.sent = len(self.text)
        return body
