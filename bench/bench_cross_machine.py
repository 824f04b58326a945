"""Continuity across machines (issue 23): a new session on a second clone recovers the project's work.

Each scenario is a bare repository cloned twice at different paths, as on two machines (two
CONTINUITY_HOMEs, two machine names), each clone naming the remote its own way (ssh, https with
credentials, ``git@host:``, a port, upper case, ``.git``), some through a worktree or a sub-folder,
some switching harness (Claude Code, then Codex). Machine A works (ten prompts, checkpointed); then
a session starts on machine B. The hook bodies are the client's own (``hook/harness.build_body``,
real ``git`` clones), read by the service's models and rules on in-memory stores.

- cross_machine_recovery_rate: B's new session recovers A's work, marked with A's machine
  (goal 1.0);
- cross_branch_handed_rate: a session on another branch (a worktree) is handed that work as its
  own (goal 0);
- cross_machine_ids_split: scenarios whose two clones derive different project ids (goal 0).

Run alone with ``python -m bench.bench_cross_machine``.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from continuity_client.hook import harness as client
from continuity_core.checkpoints.writer import CheckpointWriter
from continuity_core.hooks.events.shared import HookOutcome
from continuity_core.hooks.normalize import normalize_hook
from continuity_core.kernel.config import load_config
from continuity_core.models.checkpoint_trigger import CheckpointTrigger
from continuity_core.models.hooks import HookEvent, HookRequest
from tests.fakes.hooks import hook_dispatcher
from tests.fakes.stores import in_memory_stores
from tests.support.clock import Clock

AGENT = "bench"
# (machine A's remote, machine B's remote, how B opens the project, B's harness)
SCENARIOS = [
    ("git@github.com:acme/shop.git", "https://github.com/acme/shop", "clone", "claude-code"),
    ("https://ana:s3cret@github.com/Acme/Shop.git", "ssh://git@github.com:22/acme/shop", "clone", "codex"),
    ("ssh://git@GitHub.com/acme/shop.git/", "git@github.com:acme/shop", "worktree", "claude-code"),
    ("https://github.com:443/acme/shop", "http://GITHUB.COM/ACME/SHOP.GIT", "subfolder", "gemini"),
    ("git@gitlab.example.com:team/sub/app.git", "https://gitlab.example.com/team/sub/app", "clone", "codex"),
    (
        "https://x-token:glpat-abcdefghijklmnop1234@gitlab.com/t/a",
        "git@gitlab.com:t/a.git",
        "clone",
        "opencode",
    ),
]
ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "b",
    "GIT_AUTHOR_EMAIL": "b@example.com",
    "GIT_COMMITTER_NAME": "b",
    "GIT_COMMITTER_EMAIL": "b@example.com",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=ENV)


class Service:
    """The hook path on in-memory stores; flushes delivered at once."""

    def __init__(self) -> None:
        self.clock = Clock(datetime(2026, 11, 27, 9, 0, tzinfo=UTC))
        stores = in_memory_stores(self.clock)
        config = load_config({})
        self.flushes = stores.flushes
        self.writer = CheckpointWriter(
            stores.states, stores.checkpoints, config, self.clock, sleep=lambda _: None
        )
        self.hooks = hook_dispatcher(stores, config, self.clock, self.writer)

    def post(self, event: str, body: dict) -> HookOutcome:
        hook = normalize_hook(HookEvent(event), HookRequest.model_validate(body))
        answer = self.hooks.handle(AGENT, hook)
        for request in self.flushes.take():
            self.writer.flush(
                AGENT, request.session_key, CheckpointTrigger.PERIODIC, flush_token=request.token
            )
        return answer


def body(
    payload: dict, folder: Path, home: Path, machine: str, harness: str, env: dict | None = None
) -> dict:
    made = client.build_body({**payload, "cwd": str(folder)}, harness, env or {})
    client.add_origin(made, str(home), {"CONTINUITY_MACHINE": machine}, {})
    return made


def scenario(base: Path, remote_a: str, remote_b: str, how: str, harness_b: str) -> tuple[bool, bool, bool]:
    """(B recovered A's work marked with A's machine, another branch was handed it, ids differed)."""
    bare = base / "server" / "shop.git"
    bare.mkdir(parents=True)
    git("init", "-q", "--bare", "-b", "main", cwd=bare)
    seed = base / "seed"
    git("clone", "-q", str(bare), str(seed), cwd=base)
    git("commit", "-q", "--allow-empty", "-m", "first", cwd=seed)
    (seed / "packages" / "api").mkdir(parents=True)
    (seed / "packages" / "api" / "README").write_text("api\n")
    git("add", "-A", cwd=seed)
    git("commit", "-q", "-m", "api", cwd=seed)
    git("push", "-q", "origin", "main", cwd=seed)
    a, b = base / "laptop" / "src" / "shop", base / "desktop" / "code" / "shop-copy"
    for clone, remote in ((a, remote_a), (b, remote_b)):
        git("clone", "-q", str(bare), str(clone), cwd=base)
        git("remote", "set-url", "origin", remote, cwd=clone)
    opened_b = b
    if how == "worktree":
        opened_b = base / "desktop" / "shop-wt"
        git("worktree", "add", "-q", "-b", "main-wt", str(opened_b), cwd=b)
        git("checkout", "-q", "-B", "main-wt", cwd=a)  # the same branch on both machines
    elif how == "subfolder":
        opened_b = b / "packages" / "api"
    home_a, home_b = base / "home-a", base / "home-b"
    service = Service()
    for n in range(1, 11):
        prompt = {"session_id": "a-1", "prompt": f"step {n}: refund the duplicate charge on order {n}"}
        service.post("user-prompt-submit", body(prompt, a, home_a, "ana-laptop", "claude-code"))
    service.clock.now += timedelta(minutes=20)
    start = {"session_id": "b-1", "source": "startup"}
    started = body(start, opened_b, home_b, "ana-desktop", harness_b)
    first = body({"session_id": "x"}, a, home_a, "ana-laptop", "claude-code")
    answer = service.post("session-start", started)
    recovered = answer.recovery is not None and answer.recovery.checkpoint.session_key == "a-1"
    marked = "from ana-laptop" in (answer.response.additional_context or "")
    # A worktree of B's clone on another branch starts too: it must not be handed A's work.
    other = base / "desktop" / "shop-feature"
    git("worktree", "add", "-q", "-b", "feature/other", str(other), cwd=b)
    elsewhere = service.post(
        "session-start",
        body({"session_id": "c-1", "source": "startup"}, other, home_b, "ana-desktop", "codex"),
    )
    handed = elsewhere.recovery is not None and elsewhere.recovery.checkpoint.session_key == "a-1"
    differ = started["project_normalized"] != first["project_normalized"]
    return recovered and marked, handed, differ


def run() -> dict[str, float]:
    recovered = handed = differ = 0
    with tempfile.TemporaryDirectory(prefix="bench-cross-machine-") as temporary:
        for index, (remote_a, remote_b, how, harness_b) in enumerate(SCENARIOS):
            ok, wrong, split = scenario(Path(temporary) / str(index), remote_a, remote_b, how, harness_b)
            recovered += ok
            handed += wrong
            differ += split
    total = len(SCENARIOS)
    return {
        "cross_machine_recovery_rate": recovered / total,
        "cross_branch_handed_rate": handed / total,
        "cross_machine_ids_split": float(differ),
    }


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
