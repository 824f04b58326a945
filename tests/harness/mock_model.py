"""A scripted model endpoint on 127.0.0.1 for the real harness CLIs.

One server speaks the four wire formats the harnesses use, told apart by the request's path:

| harness | API | path |
|---|---|---|
| Claude Code | Anthropic Messages (JSON or SSE) | ``POST /v1/messages`` (and ``/count_tokens``) |
| Gemini CLI | Gemini API (JSON or SSE) | ``POST /v1beta/models/{model}:streamGenerateContent`` (and others) |
| Codex | OpenAI Responses (SSE) | ``POST /v1/responses`` |
| OpenCode | OpenAI chat completions (JSON or SSE) | ``POST /v1/chat/completions`` |

Every request is recorded as an :class:`Exchange` (the body as sent), so a test asserts on what
the CLI put in front of the model - the recovery block after a compaction, the inherited block in
a sub-agent's first request, the tools advertised. What the model answers comes from the test's
script: :meth:`MockModel.on` rules, first match wins, tried against the newest user turn of each
request (a turn that carries a tool's result matches nothing, so a scripted tool call is made
once and the model then answers the default text). The model is not a model: it never decides
anything the script did not say.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

ANTHROPIC, GEMINI, RESPONSES, CHAT = "anthropic", "gemini", "responses", "chat"
DEFAULT_TEXT = "Done."


@dataclass(frozen=True)
class ToolCall:
    """A call of the advertised tool whose name is ``name`` or ends with ``__name`` / ``_name``."""

    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Reply:
    """What the model answers: text, tool calls, and the input tokens it reports having read."""

    text: str = ""
    calls: tuple[ToolCall, ...] = ()
    input_tokens: int = 1_000

    @classmethod
    def tool(cls, name: str, arguments: dict[str, Any], text: str = "", input_tokens: int = 1_000) -> Reply:
        return cls(text=text, calls=(ToolCall(name, arguments),), input_tokens=input_tokens)


@dataclass
class Exchange:
    """One request a CLI sent, as sent, and what it was answered."""

    api: str
    path: str
    body: dict[str, Any]
    headers: dict[str, str]
    at: float
    reply: Reply | None = None

    def strings(self) -> Iterator[str]:
        """Every string in the body: the system prompt, messages, tool results, tool schemas."""
        stack: list[Any] = [self.body]
        while stack:
            value = stack.pop()
            if isinstance(value, str):
                yield value
            elif isinstance(value, dict):
                stack.extend(value.values())
            elif isinstance(value, list):
                stack.extend(value)

    def contains(self, text: str) -> bool:
        return any(text in value for value in self.strings())

    @property
    def tools(self) -> list[str]:
        """The names of the tools advertised to the model."""
        if self.api == GEMINI:
            return [
                str(declaration.get("name"))
                for group in self.body.get("tools") or []
                for declaration in group.get("functionDeclarations") or []
            ]
        names = []
        for tool in self.body.get("tools") or []:
            if tool.get("type") == "namespace":  # Codex groups an MCP server's tools: <server>__<tool>
                names += [f"{tool['name']}__{inner['name']}" for inner in tool.get("tools") or []]
                continue
            function = tool.get("function") if isinstance(tool.get("function"), dict) else tool
            if function.get("name"):
                names.append(str(function["name"]))
        return names

    @property
    def user_text(self) -> str:
        """The text of the newest user turn; '' when that turn carries a tool's result."""
        return "\n".join(_user_turn(self.api, self.body))

    @property
    def tool_result(self) -> str:
        """The result of a tool the newest turn carries, as JSON text; '' when it carries none."""
        if self.api == RESPONSES:
            items = self.body.get("input")
            last = items[-1] if isinstance(items, list) and items else {}
            found = last.get("output") if last.get("type", "").endswith("_output") else None
        elif self.api == GEMINI:
            contents = self.body.get("contents") or [{}]
            found = [
                p["functionResponse"] for p in contents[-1].get("parts") or [] if "functionResponse" in p
            ]
        else:
            messages = [
                m for m in self.body.get("messages") or [] if m.get("role") not in ("system", "developer")
            ]
            last = messages[-1] if messages else {}
            content = last.get("content")
            if last.get("role") == "tool":
                found = content
            else:
                found = (
                    [p for p in content if p.get("type") == "tool_result"]
                    if isinstance(content, list)
                    else None
                )
        return json.dumps(found) if found else ""

    @property
    def is_main_turn(self) -> bool:
        """A request of the agent's loop (it advertises tools), not a title or summary side call."""
        return bool(self.tools)


def _text_parts(content: Any) -> Iterator[str]:
    if isinstance(content, str):
        yield content
        return
    for part in content if isinstance(content, list) else []:
        if isinstance(part, dict) and isinstance(part.get("text"), str):
            yield part["text"]


def _user_turn(api: str, body: dict[str, Any]) -> list[str]:
    if api == GEMINI:
        contents = [c for c in body.get("contents") or [] if isinstance(c, dict)]
        last = contents[-1] if contents else {}
        parts = last.get("parts") or []
        if last.get("role", "user") != "user" or any("functionResponse" in p for p in parts):
            return []
        return [p["text"] for p in parts if isinstance(p.get("text"), str)]
    if api == RESPONSES:
        items = body.get("input")
        if isinstance(items, str):
            return [items]
        items = [i for i in items or [] if isinstance(i, dict)]
        if not items or items[-1].get("type") in ("function_call_output", "custom_tool_call_output"):
            return []
        texts: list[str] = []
        for item in reversed(items):
            if item.get("role") != "user":
                break
            texts[:0] = list(_text_parts(item.get("content")))
        return texts
    # Claude Code appends system turns (environment notes) after the user's; they are not the turn.
    turns = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    messages = [m for m in turns if m.get("role") not in ("system", "developer")]
    last = messages[-1] if messages else {}
    if last.get("role") != "user":
        return []
    content = last.get("content")
    if isinstance(content, list) and any(
        isinstance(p, dict) and p.get("type") == "tool_result" for p in content
    ):
        return []
    # The turn is every user message after the last other one: OpenClaw follows the user's with one
    # of its own (its internal context).
    trailing: list[str] = []
    for message in reversed(messages):
        if message.get("role") != "user":
            break
        trailing[:0] = list(_text_parts(message.get("content")))
    return trailing


Matcher = Callable[[Exchange], bool]
Answer = Reply | Callable[[Exchange], Reply]  # a reply, or one made from the request


@dataclass
class Rule:
    when: Matcher
    reply: Answer
    times: int | None  # None: every time


@dataclass
class MockModel:
    """The scripted endpoint. Start it with ``with MockModel() as model:``; ``model.url``."""

    default: Reply = field(default_factory=lambda: Reply(DEFAULT_TEXT))
    exchanges: list[Exchange] = field(default_factory=list)
    _rules: list[Rule] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _server: ThreadingHTTPServer | None = None
    _ids: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    # ---- the script ------------------------------------------------------------------------
    def on(self, said: str | Matcher, reply: Answer, times: int | None = 1) -> MockModel:
        """Answer ``reply`` to a request of the agent's loop whose newest user turn contains ``said``
        (or any request ``said`` accepts), ``times`` times (None: always). Side calls (a title, a
        summary without tools) never match a ``said`` text."""
        when = said if callable(said) else (lambda e, text=said: e.is_main_turn and text in e.user_text)
        with self._lock:
            self._rules.append(Rule(when, reply, times))
        return self

    def answer(self, exchange: Exchange) -> Reply:
        with self._lock:
            for rule in self._rules:
                if rule.times != 0 and rule.when(exchange):
                    if rule.times is not None:
                        rule.times -= 1
                    return rule.reply(exchange) if callable(rule.reply) else rule.reply
        return self.default

    # ---- what the CLIs sent ----------------------------------------------------------------
    def requests(self, api: str | None = None) -> list[Exchange]:
        with self._lock:
            return [e for e in self.exchanges if api is None or e.api == api]

    def prompted(self, marker: str) -> Exchange:
        """The first request of the agent's loop whose newest user turn holds ``marker``: the one that
        carried a prompt to the model (not a side call such as a title)."""
        found = [e for e in self.requests() if e.is_main_turn and marker in e.user_text]
        assert found, f"no request to the model carried {marker!r}"
        return found[0]

    def after(self, matcher: Matcher) -> Exchange:
        """The first request of the agent's loop after the first request ``matcher`` accepts."""
        requests = self.requests()
        start = next((i for i, e in enumerate(requests) if matcher(e)), None)
        assert start is not None, "no request matched"
        found = next((e for e in requests[start + 1 :] if e.is_main_turn), None)
        assert found is not None, "the CLI sent no request after it"
        return found

    def next_id(self, prefix: str) -> str:
        return f"{prefix}{next(self._ids):06d}"

    def record(self, exchange: Exchange) -> None:
        with self._lock:
            self.exchanges.append(exchange)

    # ---- the server ------------------------------------------------------------------------
    @property
    def url(self) -> str:
        assert self._server is not None, "start the mock model first"
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> MockModel:
        handler = type("Handler", (_Handler,), {"model": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, name="mock-model", daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None


def _api_of(path: str) -> str | None:
    route = path.split("?", 1)[0]
    if route.endswith("/messages") or route.endswith("/messages/count_tokens"):
        return ANTHROPIC
    if ":generateContent" in route or ":streamGenerateContent" in route or ":countTokens" in route:
        return GEMINI
    if route.endswith("/responses"):
        return RESPONSES
    if route.endswith("/chat/completions"):
        return CHAT
    return None


class _Handler(BaseHTTPRequestHandler):
    model: MockModel
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        # Model listings (OpenCode, Codex probe them); an empty list is a valid answer.
        if self.path.split("?", 1)[0].endswith("/models"):
            self._json(200, {"object": "list", "data": [], "models": []})
        else:
            self._json(404, {"error": {"message": f"no route {self.path}"}})

    def do_HEAD(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"_raw": raw.decode("utf-8", "replace")}
        api = _api_of(self.path)
        exchange = Exchange(
            api or "unknown",
            self.path,
            body if isinstance(body, dict) else {"_body": body},
            {k.lower(): v for k, v in self.headers.items()},
            time.time(),
        )
        if api is None:
            self.model.record(exchange)
            self._json(404, {"error": {"message": f"no route {self.path}"}})
            return
        route = self.path.split("?", 1)[0]
        if route.endswith("/count_tokens") or route.endswith(":countTokens"):
            self.model.record(exchange)
            count = len(json.dumps(body)) // 4
            self._json(200, {"input_tokens": count} if api == ANTHROPIC else {"totalTokens": count})
            return
        exchange.reply = self.model.answer(exchange)
        self.model.record(exchange)
        tools = exchange.tools
        render = {ANTHROPIC: _anthropic, GEMINI: _gemini, RESPONSES: _responses, CHAT: _chat}[api]
        stream = bool(body.get("stream")) or ":streamGenerateContent" in route or api == RESPONSES
        status, events_or_json = render(self.model, exchange.reply, tools, body, stream)
        if stream:
            self._sse(events_or_json)
        else:
            self._json(status, events_or_json)

    def _json(self, status: int, value: Any) -> None:
        data = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _sse(self, events: list[tuple[str | None, Any]]) -> None:
        chunks = []
        for name, data in events:
            text = data if isinstance(data, str) else json.dumps(data)
            chunks.append((f"event: {name}\n" if name else "") + f"data: {text}\n\n")
        payload = "".join(chunks).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


def resolve(name: str, tools: list[str]) -> str:
    """The advertised tool ``name`` stands for: itself, or the one named ``<prefix>__name``/``_name``."""
    if name in tools:
        return name
    for tool in tools:
        if tool.endswith(f"__{name}") or tool.endswith(f"_{name}"):
            return tool
    return name  # not advertised: the CLI says so to the model, and the test sees it


Rendered = tuple[int, Any]


def _anthropic(model: MockModel, reply: Reply, tools: list[str], body: dict, stream: bool) -> Rendered:
    blocks: list[dict[str, Any]] = []
    if reply.text or not reply.calls:
        blocks.append({"type": "text", "text": reply.text or DEFAULT_TEXT})
    for call in reply.calls:
        name = resolve(call.name, tools)
        block_id = model.next_id("toolu_")
        blocks.append({"type": "tool_use", "id": block_id, "name": name, "input": call.arguments})
    stop = "tool_use" if reply.calls else "end_turn"
    usage = {"input_tokens": reply.input_tokens, "output_tokens": 10}
    message = {
        "id": model.next_id("msg_"),
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "mock"),
        "content": blocks,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": usage,
    }
    if not stream:
        return 200, message
    opening = {**message, "content": [], "stop_reason": None}
    events: list[tuple[str | None, Any]] = [("message_start", {"type": "message_start", "message": opening})]
    for index, block in enumerate(blocks):
        start: dict[str, Any]
        if block["type"] == "text":
            start = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            start = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        events += [
            ("content_block_start", {"type": "content_block_start", "index": index, "content_block": start}),
            ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}),
            ("content_block_stop", {"type": "content_block_stop", "index": index}),
        ]
    events += [
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": 10},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return 200, events


def _gemini(model: MockModel, reply: Reply, tools: list[str], body: dict, stream: bool) -> Rendered:
    parts: list[dict[str, Any]] = []
    if reply.text or not reply.calls:
        parts.append({"text": reply.text or DEFAULT_TEXT})
    for call in reply.calls:
        parts.append({"functionCall": {"name": resolve(call.name, tools), "args": call.arguments}})
    answer = {
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {
            "promptTokenCount": reply.input_tokens,
            "candidatesTokenCount": 10,
            "totalTokenCount": reply.input_tokens + 10,
        },
        "modelVersion": "mock",
    }
    return 200, [(None, answer)] if stream else answer


def _responses(model: MockModel, reply: Reply, tools: list[str], body: dict, stream: bool) -> Rendered:
    response_id = model.next_id("resp_")
    items: list[dict[str, Any]] = []
    if reply.text or not reply.calls:
        items.append(
            {
                "type": "message",
                "id": model.next_id("msg_"),
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": reply.text or DEFAULT_TEXT, "annotations": []}],
            }
        )
    for call in reply.calls:
        name = resolve(call.name, tools)
        item: dict[str, Any] = {
            "type": "function_call",
            "id": model.next_id("fc_"),
            "call_id": model.next_id("call_"),
            "name": name,
            "arguments": json.dumps(call.arguments),
            "status": "completed",
        }
        namespace, _, inner = name.rpartition("__")
        if namespace and any(
            t.get("type") == "namespace" and t.get("name") == namespace for t in body["tools"]
        ):
            item.update(name=inner, namespace=namespace)  # a tool of a namespace is called by both names
        items.append(item)
    usage = {
        "input_tokens": reply.input_tokens,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 10,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": reply.input_tokens + 10,
    }
    base = {
        "id": response_id,
        "object": "response",
        "created_at": int(time.time()),
        "model": body.get("model"),
    }
    events: list[tuple[str | None, Any]] = [
        ("response.created", {"type": "response.created", "response": {**base, "status": "in_progress"}})
    ]
    for index, item in enumerate(items):
        added: dict[str, Any] = {**item, "status": "in_progress"}
        if item["type"] == "message":
            added["content"] = []
        events.append(
            (
                "response.output_item.added",
                {"type": "response.output_item.added", "output_index": index, "item": added},
            )
        )
        if item["type"] == "message":
            events.append(
                (
                    "response.output_text.delta",
                    {
                        "type": "response.output_text.delta",
                        "item_id": item["id"],
                        "output_index": index,
                        "content_index": 0,
                        "delta": item["content"][0]["text"],
                    },
                )
            )
        events.append(
            (
                "response.output_item.done",
                {"type": "response.output_item.done", "output_index": index, "item": item},
            )
        )
    events.append(
        (
            "response.completed",
            {
                "type": "response.completed",
                "response": {**base, "status": "completed", "output": items, "usage": usage},
            },
        )
    )
    return 200, events


def _chat(model: MockModel, reply: Reply, tools: list[str], body: dict, stream: bool) -> Rendered:
    calls = [
        {
            "index": i,
            "id": model.next_id("call_"),
            "type": "function",
            "function": {"name": resolve(c.name, tools), "arguments": json.dumps(c.arguments)},
        }
        for i, c in enumerate(reply.calls)
    ]
    text = reply.text or ("" if reply.calls else DEFAULT_TEXT)
    finish = "tool_calls" if calls else "stop"
    usage = {"prompt_tokens": reply.input_tokens, "completion_tokens": 10}
    usage["total_tokens"] = reply.input_tokens + 10
    base = {"id": model.next_id("chatcmpl-"), "created": int(time.time()), "model": body.get("model", "mock")}
    if not stream:
        message: dict[str, Any] = {"role": "assistant", "content": text or None}
        if calls:
            message["tool_calls"] = [{k: v for k, v in c.items() if k != "index"} for c in calls]
        return 200, {
            **base,
            "object": "chat.completion",
            "usage": usage,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        }
    chunk = {**base, "object": "chat.completion.chunk"}
    delta: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        delta["tool_calls"] = calls
    events: list[tuple[str | None, Any]] = [
        (None, {**chunk, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}),
        (None, {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}], "usage": usage}),
        (None, "[DONE]"),
    ]
    return 200, events
