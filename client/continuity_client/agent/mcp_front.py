"""``continuity mcp``'s front: the handshake answered at once, the SDK for everything else.

Importing the MCP SDK (``mcp``: pydantic, anyio, its types) takes over a second, and a harness waits
for our answer to ``initialize`` (and to the lists) before it goes on. So the front, which
imports only the standard library, answers ``initialize``, ``ping`` and the lists (``tools/list``,
``prompts/list``, ``resources/list``, ``resources/templates/list``) itself, with
the SDK's own answers recorded in ``mcp_handshake.json`` (``python -m
continuity_client.agent.mcp_front --record`` writes it; a test checks it against the SDK, so it
cannot drift). At the first other message (a tool call, or anything the front does not know) it
hands the connection over to the SDK's server (``mcp_server``), unchanged: the messages read so far
are replayed to it in order, the ``initialize`` under an id of its own whose answer is dropped (the
harness already has it), and the rest of stdin follows. Tool calls, validation and errors are the
SDK's. The first tool call pays for the import.

A client that opens without the handshake (the protocol's per-request era), or asks for a protocol
version the recording lacks, or a recording that is missing: the SDK from the first message.

``continuity mcp --sdk`` runs the SDK alone.
"""

from __future__ import annotations

import json
import os
import sys
import threading

HANDSHAKE_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mcp_handshake.json")
REPLAYED_ID = "continuity-front-initialize"  # the id the SDK sees on the replayed initialize
UNKNOWN_VERSION = "*"  # the recording's key for a version the SDK does not know
END = b"continuity-front-end\n"  # not JSON: the SDK never writes it
# What a harness asks when it connects, answered from the recording (the SDK's answers).
LISTS = ("tools/list", "prompts/list", "resources/list", "resources/templates/list")
LOCAL = frozenset({"initialize", "notifications/initialized", "ping", *LISTS})
# The protocol's per-request era (2026-07-28 on; Claude Code speaks it): no handshake, each request
# carries its version in ``_meta``; a client asks ``server/discover`` and subscribes to list changes.
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
SUBSCRIPTION_KEY = "io.modelcontextprotocol/subscriptionId"
DISCOVER, LISTEN, ACKNOWLEDGED = (
    "server/discover",
    "subscriptions/listen",
    "notifications/subscriptions/acknowledged",
)

TYPE_CHECKING = False  # typing costs milliseconds at import; mypy reads this as True
if TYPE_CHECKING:
    from typing import BinaryIO


def load_handshake(path: str = HANDSHAKE_FILE) -> dict | None:
    """The recorded answers, or None when there is no usable recording."""
    try:
        with open(path, "rb") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return None
    ok = (
        isinstance(data, dict)
        and isinstance(data.get("versions"), dict)
        and isinstance(data.get("answers"), dict)
    )
    return data if ok else None


def _parse(line: bytes) -> dict | None:
    try:
        message = json.loads(line)
    except ValueError:
        return None
    return message if isinstance(message, dict) else None


class Front:
    """The stdio loop before the handover: reads ``source``, writes answers to ``out`` (fds)."""

    def __init__(self, handshake: dict, source: BinaryIO, out: int) -> None:
        self.handshake = handshake
        self.source = source
        self.out = out
        self.read: list[bytes] = []  # what the SDK must see first, in order
        self.answered: dict | None = None  # the recorded answers for the negotiated version
        self.listening: set[str] = set()  # subscriptions acknowledged here, replayed to the SDK

    def answer(self, message_id: object, result: object) -> None:
        self.write({"jsonrpc": "2.0", "id": message_id, "result": result})

    def write(self, message: dict) -> None:
        data = json.dumps(message, separators=(",", ":")).encode("utf-8") + b"\n"
        while data:
            data = data[os.write(self.out, data) :]

    def handle(self, line: bytes) -> bool:
        """Answer ``line`` here if it is part of the handshake; False when the SDK must take over."""
        message = _parse(line)
        if message is None or message.get("jsonrpc") != "2.0":
            return False
        method, params = message.get("method"), message.get("params")
        params = params if isinstance(params, dict) else {}
        meta = params.get("_meta")
        if isinstance(meta, dict) and VERSION_KEY in meta:
            return self.per_request(line, message, str(method), params, meta[VERSION_KEY])
        if method not in LOCAL or ("id" in message) == (method == "notifications/initialized"):
            return False
        if method == "ping":
            self.answer(message["id"], {})
            return True
        if method == "initialize":
            return self.initialize(message, params)
        if self.answered is None or params.get("cursor"):
            return False  # before the handshake, or a page the recording does not have
        if method in LISTS:
            if method not in self.answered:
                return False
            self.answer(message["id"], self.answered[method])
        else:
            self.read.append(line)  # notifications/initialized: the SDK's session needs it too
        return True

    def initialize(self, message: dict, params: dict) -> bool:
        if self.answered is not None:  # a second initialize: the SDK says what it thinks of it
            return False
        requested = params.get("protocolVersion")
        versions = self.handshake["versions"]
        answered = versions.get(requested) if isinstance(requested, str) else None
        answers = self.handshake["answers"].get(answered or versions.get(UNKNOWN_VERSION))
        if not isinstance(answers, dict):
            return False
        self.answer(message["id"], answers["initialize"])
        self.answered = answers
        replayed = {**message, "id": REPLAYED_ID}
        self.read.append(json.dumps(replayed).encode("utf-8") + b"\n")
        return True

    def per_request(self, line: bytes, message: dict, method: str, params: dict, version: object) -> bool:
        """A request of the per-request era: discover, the lists and the subscription from the
        recording at its version; anything else (or after a handshake) is the SDK's."""
        recorded = self.handshake.get("modern", {}).get(version) if isinstance(version, str) else None
        if self.answered is not None or not isinstance(recorded, dict) or "id" not in message:
            return False
        if params.get("cursor"):
            return False
        if method == DISCOVER or method in LISTS:
            if method not in recorded:
                return False
            self.answer(message["id"], recorded[method])
            return True
        subscription = recorded.get(LISTEN)
        wanted = {key: value for key, value in params.items() if key != "_meta"}
        if method != LISTEN or not isinstance(subscription, dict) or wanted != subscription["params"]:
            return False
        ack = {"_meta": {SUBSCRIPTION_KEY: message["id"]}, **subscription["acknowledged"]}
        self.write({"jsonrpc": "2.0", "method": ACKNOWLEDGED, "params": ack})
        self.listening.add(json.dumps(message["id"]))
        self.read.append(line)  # the SDK keeps the subscription open after the handover
        return True

    def serve(self) -> bytes | None:
        """Answer the handshake until a message the SDK must handle (returned) or the end (None)."""
        while True:
            line = self.source.readline()
            if not line:
                return None
            if line.strip() and not self.handle(line):
                return line


def _copy(lines: list[bytes], source: BinaryIO, into: int) -> None:
    """Feed the SDK's stdin: the replayed lines, then the rest of the harness's stdin."""
    try:
        with os.fdopen(into, "wb", buffering=0) as pipe:
            for line in lines:
                pipe.write(line)
            for line in iter(source.readline, b""):
                pipe.write(line)
    except OSError:  # the SDK went away: nothing more to feed
        pass


def _answered_here(message: dict | None, acknowledged: set[str]) -> bool:
    """Whether the SDK's ``message`` repeats what the front already sent: its answer to the replayed
    initialize, or its acknowledgement of a replayed subscription (each once: ``acknowledged``
    loses it)."""
    if message is None:
        return False
    if message.get("id") == REPLAYED_ID and "method" not in message:
        return True
    params = message.get("params")
    if message.get("method") != ACKNOWLEDGED or not isinstance(params, dict):
        return False
    meta = params.get("_meta")
    key = json.dumps(meta.get(SUBSCRIPTION_KEY)) if isinstance(meta, dict) else None
    if key in acknowledged:
        acknowledged.discard(key)
        return True
    return False


def _filter(source: int, out: int, acknowledged: set[str]) -> None:
    """Forward the SDK's stdout to the harness, without what the front already sent
    (``_answered_here``), until the ``END`` line (the SDK's stdio transport may keep a copy of the
    pipe open, so no EOF)."""
    replayed = True
    with os.fdopen(source, "rb") as pipe:
        for line in pipe:
            if line == END:
                return
            if (replayed or acknowledged) and _answered_here(_parse(line), acknowledged):
                replayed = replayed and REPLAYED_ID.encode() not in line
                continue
            while line:
                line = line[os.write(out, line) :]


def hand_over(lines: list[bytes], source: BinaryIO, out: int, acknowledged: set[str] | None = None) -> int:
    """Run the SDK's server on fds 0 and 1, fed through pipes: ``lines`` first, then ``source``
    (``acknowledged``: the subscriptions among them the harness has its acknowledgement of)."""
    from continuity_client.agent import mcp_server

    server = mcp_server.build_server()
    stdin_read, stdin_write = os.pipe()
    stdout_read, stdout_write = os.pipe()
    os.dup2(stdin_read, 0)
    os.dup2(stdout_write, 1)
    os.close(stdin_read)
    feeder = threading.Thread(target=_copy, args=(lines, source, stdin_write), daemon=True)
    forwarder = threading.Thread(
        target=_filter, args=(stdout_read, out, set(acknowledged or ())), daemon=True
    )
    feeder.start()
    forwarder.start()
    try:
        server.run("stdio")
    finally:
        sys.stdout.flush()
        os.write(stdout_write, END)  # after all the SDK wrote: the forwarder ends there
        forwarder.join(timeout=10)
    return 0


def main(argv: list[str]) -> int:
    if argv and argv[0] in ("-h", "--help"):
        sys.stdout.write(
            "usage: continuity mcp [--sdk]\n\nRun the MCP server on stdio (started by the harness).\n"
        )
        return 0
    import importlib.util

    if importlib.util.find_spec("mcp") is None:
        from continuity_client.setup.hints import extra_hint

        sys.stderr.write(f"continuity mcp needs the MCP SDK: {extra_hint('mcp')}\n")
        return 1
    handshake = None if "--sdk" in argv else load_handshake()
    if handshake is None:
        from continuity_client.agent import mcp_server

        return mcp_server.main([])
    # Our own descriptors for the harness's pipes: fds 0 and 1 go to the SDK at the handover.
    source = os.fdopen(os.dup(0), "rb")
    out = os.dup(1)
    front = Front(handshake, source, out)
    pending = front.serve()
    if pending is None:
        return 0
    return hand_over([*front.read, pending], source, out, front.listening)


# ---- the recording ------------------------------------------------------------------------------


def record(path: str = HANDSHAKE_FILE) -> dict:
    """Ask the SDK's server (``continuity mcp --sdk``) for its handshake answers at each protocol
    version it offers through ``initialize`` (and one it does not know), and write them to ``path``."""
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

    versions: dict[str, str] = {}
    answers: dict[str, dict] = {}
    for requested in (*HANDSHAKE_PROTOCOL_VERSIONS, UNKNOWN_VERSION):
        initialize, *lists = sdk_answers(requested)
        answered = str(initialize["protocolVersion"])
        versions[requested] = answered
        answers[answered] = {"initialize": initialize, **dict(zip(LISTS, lists, strict=True))}
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    modern = {version: sdk_modern_answers(version) for version in MODERN_PROTOCOL_VERSIONS}
    data = {"versions": versions, "answers": answers, "modern": modern}
    with open(path, "w") as handle:
        json.dump(data, handle, indent=1, sort_keys=True)
        handle.write("\n")
    return data


def handshake_messages(version: str) -> list[dict]:
    """A client's opening: initialize at ``version``, initialized, the lists."""
    return [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": "continuity-record", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        *({"jsonrpc": "2.0", "id": 2 + n, "method": method} for n, method in enumerate(LISTS)),
    ]


def converse(args: list[str], messages: list[dict], answers: int, env: dict | None = None) -> list[dict]:
    """Start ``continuity mcp <args>``, send ``messages``, read ``answers`` answers, close stdin."""
    import subprocess

    command = [sys.executable, "-m", "continuity_client", "mcp", *args]
    with subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env) as server:
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write(b"".join(json.dumps(message).encode() + b"\n" for message in messages))
        server.stdin.flush()
        read = [json.loads(server.stdout.readline()) for _ in range(answers)]
        server.stdin.close()
        server.wait(timeout=30)
    return read


LISTENED = {
    "notifications": {"toolsListChanged": True, "promptsListChanged": True, "resourcesListChanged": True}
}


def modern_messages(version: str) -> list[dict]:
    """A per-request-era client's opening, as Claude Code sends it: discover, a subscription to
    list changes, the lists."""
    meta = {
        VERSION_KEY: version,
        "io.modelcontextprotocol/clientInfo": {"name": "continuity-record", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    return [
        {"jsonrpc": "2.0", "id": "discover", "method": DISCOVER, "params": {"_meta": meta}},
        {"jsonrpc": "2.0", "id": "listen:0", "method": LISTEN, "params": {"_meta": meta, **LISTENED}},
        *(
            {"jsonrpc": "2.0", "id": n, "method": method, "params": {"_meta": meta}}
            for n, method in enumerate(LISTS)
        ),
    ]


def sdk_modern_answers(version: str) -> dict:
    """The SDK's results for discover and the lists at ``version``, and its acknowledgement of the
    subscription (without the subscription's id, which is the request's)."""
    found = converse(["--sdk"], modern_messages(version), 2 + len(LISTS))
    results = {str(a["id"]): a["result"] for a in found if "result" in a}
    ack = next(a["params"] for a in found if a.get("method") == ACKNOWLEDGED)
    acknowledged = {key: value for key, value in ack.items() if key != "_meta"}
    return {
        DISCOVER: results["discover"],
        **{method: results[str(n)] for n, method in enumerate(LISTS)},
        LISTEN: {"params": LISTENED, "acknowledged": acknowledged},
    }


def sdk_answers(version: str) -> list[dict]:
    """The SDK's own results for initialize at ``version`` and for each of the lists."""
    return [answer["result"] for answer in converse(["--sdk"], handshake_messages(version), 1 + len(LISTS))]


if __name__ == "__main__":
    if sys.argv[1:] == ["--record"]:
        written = record()
        print(f"{HANDSHAKE_FILE}: {len(written['answers'])} protocol version(s)")
    else:
        sys.exit("usage: python -m continuity_client.agent.mcp_front --record")
