"""The OpenCode and OpenClaw plugins end to end: installed by ``continuity install``, loaded under node
the way each harness loads them (``plugin_driver.mjs``), their hooks run the real ``continuity hook``
against the local stack; the hooks land and the recovery and inherited blocks come back."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from continuity_client.hook import harness, transcript
from tests.e2e.local_stack import ROOT, Api, LocalStackProcess, agent_env

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed"),
]

DRIVER = ROOT / "tests" / "e2e" / "plugin_driver.mjs"
RECOVERY = "## Session Recovery Context"
INHERITED = "## Inherited from Parent Session"


class Machine:
    """One agent machine: HOME, CONTINUITY_HOME pointed at the local stack, a project folder."""

    def __init__(self, stack: LocalStackProcess, base: Path) -> None:
        self.project = base / "shop"
        self.project.mkdir()
        self.env = {**agent_env(stack, base, drop=("OPENCLAW_", "XDG_")), "CONTINUITY_BACKOFF_S": "0"}

    def install(self, harness_name: str) -> dict[str, Any]:
        done = subprocess.run(
            [sys.executable, "-m", "continuity_client", "install", harness_name, "--no-mcp"],
            capture_output=True,
            text=True,
            env=self.env,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        path = done.stdout.split(":", 1)[0]
        return dict(json.loads(Path(path).read_text()))

    def drive(self, scenario: dict[str, Any]) -> dict[str, Any]:
        done = subprocess.run(
            ["node", str(DRIVER)],
            input=json.dumps(scenario),
            capture_output=True,
            text=True,
            env=self.env,
            timeout=180,
        )
        assert done.returncode == 0, done.stderr
        return dict(json.loads(done.stdout))

    def log(self) -> str:
        path = Path(self.env["CONTINUITY_HOME"]) / "client.log"
        return path.read_text() if path.exists() else ""


@pytest.fixture
def machine(local_stack: LocalStackProcess, tmp_path: Path) -> Machine:
    return Machine(local_stack, tmp_path)


def stored_transcript(api: Api, session: str) -> str:
    answer = api.http.get(f"{api.stack.url}/api/sessions/{session}/transcript", timeout=30)
    assert answer.status_code == 200, answer.text
    return str(answer.json()["text"])


# ---- OpenCode ------------------------------------------------------------------------------------


def info(session: str, project: Path, parent: str | None = None) -> dict[str, Any]:
    found = {"id": session, "projectID": "p", "directory": str(project), "title": "t", "version": "1.18.33"}
    return {**found, "time": {"created": 1, "updated": 1}, **({"parentID": parent} if parent else {})}


def user(session: str, ident: str, text: str) -> dict[str, Any]:
    message = {"id": ident, "sessionID": session, "role": "user", "time": {"created": 1}, "agent": "build"}
    return {"info": message, "parts": [{"id": f"{ident}-p", "type": "text", "text": text}]}


def unsaved(message: dict[str, Any]) -> dict[str, Any]:
    """A user's message as storage holds it while chat.message runs: saved, its parts not yet."""
    return {"info": message["info"], "parts": []}


def reply(session: str, ident: str, text: str, tool: dict[str, Any] | None = None) -> dict[str, Any]:
    tokens = {"input": 900, "output": 30, "reasoning": 0, "cache": {"read": 4000, "write": 0}}
    message = {"id": ident, "sessionID": session, "role": "assistant", "time": {"created": 2, "completed": 3}}
    parts: list[dict[str, Any]] = [{"id": f"{ident}-t", "type": "text", "text": text}]
    if tool:
        parts.append({"id": f"{ident}-tool", "type": "tool", "tool": "bash", "callID": "c", "state": tool})
    return {"info": {**message, "tokens": tokens, "mode": "build"}, "parts": parts}


def created(session: str, project: Path, parent: str | None = None) -> dict[str, Any]:
    return {
        "hook": "event",
        "input": {
            "event": {"type": "session.created", "properties": {"info": info(session, project, parent)}}
        },
    }


def system(session: str, name: str) -> dict[str, Any]:
    return {
        "hook": "experimental.chat.system.transform",
        "input": {"sessionID": session, "model": {}},
        "output": {"system": []},
        "collect": name,
    }


def test_opencode_hooks_land_and_the_recovery_block_comes_back(machine: Machine, api: Api) -> None:
    # Given the plugin installed in OpenCode's config, and a session that works, compacts and ends
    config = machine.install("opencode")
    a, b, child = (f"ses_{uuid.uuid4().hex[:12]}" for _ in range(3))
    first = [user(a, "m1", "Make the payment mock deterministic")]
    worked = [
        *first,
        reply(
            a,
            "m2",
            "The mock's clock is not frozen; freezing it at noon.",
            {"status": "completed", "input": {"command": "pytest -q"}, "output": "3 passed"},
        ),
        user(a, "m3", "Never call the real Stripe API from tests"),
        reply(a, "m4", "Understood: the tests use the stub only."),
    ]
    steps = [
        created(a, machine.project),
        system(a, "a_first"),
        # OpenCode calls chat.message before it saves the prompt's parts: storage holds it bare
        {
            "hook": "chat.message",
            "input": {"sessionID": a},
            "output": {"message": first[0]["info"], "parts": first[0]["parts"]},
            "messages": {a: [unsaved(first[0])]},
        },
        {
            "hook": "chat.message",
            "input": {"sessionID": a},
            "output": {"message": worked[2]["info"], "parts": worked[2]["parts"]},
            "messages": {a: [*worked[:2], unsaved(worked[2])]},
        },
        {
            "hook": "event",
            "input": {"event": {"type": "session.idle", "properties": {"sessionID": a}}},
            "messages": {a: worked},
        },
        {
            "hook": "experimental.session.compacting",
            "input": {"sessionID": a},
            "output": {"context": []},
            "collect": "compaction",
        },
        {"hook": "event", "input": {"event": {"type": "session.compacted", "properties": {"sessionID": a}}}},
        system(a, "a_compacted"),
        created(child, machine.project, parent=a),
        system(child, "child_first"),
        {
            "hook": "event",
            "input": {"event": {"type": "session.deleted", "properties": {"info": info(a, machine.project)}}},
        },
        created(b, machine.project),
        system(b, "b_first"),
    ]

    # When OpenCode runs it through them
    seen = machine.drive(
        {"harness": "opencode", "config": config, "project": str(machine.project), "steps": steps}
    )

    # Then the compaction prompt got the recovery block of the checkpoint written just then
    assert "ERROR" not in machine.log() and "HTTP" not in machine.log(), machine.log()
    [compaction] = seen["compaction"]["context"]
    assert compaction.startswith(RECOVERY) and "_Recovered from this session: pre-compaction" in compaction
    assert "Never call the real Stripe API from tests" in compaction
    # And the compacted session, a sub-agent and the next session each start from what was kept
    assert any(text.startswith(RECOVERY) for text in seen["a_compacted"]["system"])
    assert any(INHERITED in text and f"`{a}`" in text for text in seen["child_first"]["system"])
    assert any(RECOVERY in text and "Stripe" in text for text in seen["b_first"]["system"])
    assert seen["a_first"]["system"] == []  # nothing to recover in a new project
    # And the service holds the whole conversation, as the plugin's copy of OpenCode's storage reads
    copy = Path(machine.env["CONTINUITY_HOME"], "opencode", f"{a}.jsonl")
    records = [json.loads(line) for line in copy.read_text().splitlines()]
    assert [r["info"]["id"] for r in records] == ["m1", "m2", "m3", "m4"]
    stored = stored_transcript(api, a)
    assert stored == transcript.render_all(harness.OPENCODE, records)
    assert "User: Make the payment mock deterministic" in stored
    assert [c["trigger"] for c in api.session_checkpoints(a)][-1] in ("session_end", "pre_compaction")


# ---- OpenClaw ------------------------------------------------------------------------------------


def test_openclaw_hooks_land_and_recovery_and_inheritance_come_back(machine: Machine, api: Api) -> None:
    # Given the plugin installed in OpenClaw's config, a main session and a sub-agent of another agent
    config = machine.install("openclaw")
    agent_id = f"main{uuid.uuid4().hex[:6]}"
    main = f"agent:{agent_id}:main"
    child = f"agent:coder{uuid.uuid4().hex[:6]}:subagent:{uuid.uuid4()}"
    ctx = {
        "agentId": agent_id,
        "sessionKey": main,
        "sessionId": "s-1",
        "workspaceDir": str(machine.project),
        "trigger": "user",
    }

    def build(text: str, ident: str, on: dict[str, Any] = ctx, collect: str | None = None) -> dict[str, Any]:
        event = {"prompt": text, "currentUserMessage": text, "currentUserMessageId": ident, "messages": []}
        return {
            "hook": "before_prompt_build",
            "event": event,
            "ctx": on,
            **({"collect": collect} if collect else {}),
        }

    child_ctx = {**ctx, "agentId": "coder", "sessionKey": child, "sessionId": "c-1"}
    steps = [
        {"hook": "session_start", "event": {"sessionId": "s-1", "sessionKey": main}, "ctx": ctx},
        build("Port the billing job to the new queue", "u1", collect="first"),
        build("Keep the old queue readable until Friday", "u2"),
        {"hook": "before_compaction", "event": {"messageCount": 40, "tokenCount": 120000}, "ctx": ctx},
        {"hook": "after_compaction", "event": {"messageCount": 8, "compactedCount": 32}, "ctx": ctx},
        build("Go on", "u3", collect="after_compaction"),
        {
            "hook": "subagent_spawned",
            "event": {
                "childSessionKey": child,
                "agentId": "coder",
                "mode": "run",
                "threadRequested": False,
                "runId": "r",
            },
            "ctx": {"runId": "r", "childSessionKey": child, "requesterSessionKey": main},
        },
        {"hook": "session_start", "event": {"sessionId": "c-1", "sessionKey": child}, "ctx": child_ctx},
        build("Write the queue adapter", "c1", on=child_ctx, collect="child_first"),
        {
            "hook": "subagent_ended",
            "event": {"targetSessionKey": child, "targetKind": "subagent", "reason": "done", "outcome": "ok"},
        },
        {
            "hook": "session_end",
            "event": {"sessionId": "s-1", "sessionKey": main, "messageCount": 9, "reason": "new"},
            "ctx": ctx,
        },
        {
            "hook": "session_start",
            "event": {"sessionId": "s-2", "sessionKey": main},
            "ctx": {**ctx, "sessionId": "s-2"},
        },
        build("Where were we?", "u4", collect="after_new"),
    ]

    # When OpenClaw runs it through them
    seen = machine.drive({"harness": "openclaw", "config": config, "steps": steps})

    # Then after the compaction and after /new the session starts from its checkpoint
    assert "ERROR" not in machine.log() and "HTTP" not in machine.log(), machine.log()
    assert seen["first"] == {}
    after = seen["after_compaction"]["prependSystemContext"]
    assert after.startswith(RECOVERY) and "Keep the old queue readable until Friday" in after
    cleared = seen["after_new"]["prependSystemContext"]
    assert RECOVERY in cleared and "Keep the old queue readable until Friday" in cleared
    # And the sub-agent of another agent inherits from its requester, not from agent:coder…:main
    inherited = seen["child_first"]["prependSystemContext"]
    assert INHERITED in inherited and f"`{main}`" in inherited and "billing job" in inherited
    # And the service recorded the checkpoints those hooks wrote
    triggers = [c["trigger"] for c in api.session_checkpoints(main)]
    assert "pre_compaction" in triggers and "clear" in triggers
