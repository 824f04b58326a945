"""Client settings: the user's config file, overridden by environment variables.

On the hook path, so it imports only ``fastjson`` and ``os`` (no pathlib, dataclasses or typing:
each costs milliseconds of start-up in every hook).

| variable | config.json key | default |
|---|---|---|
| ``CONTINUITY_URL`` | ``url`` | - (hooks do nothing until set) |
| ``CONTINUITY_TOKEN`` | ``token`` | - |
| ``CONTINUITY_HOME`` | - | ``~/.continuity`` |
| ``CONTINUITY_HOOK_TIMEOUT_S`` | ``hook_timeout_s`` | 2 s; 4 s for session-start and pre-compaction |
| ``CONTINUITY_HOOK_TIMEOUT_S_<EVENT>`` | ``timeouts.<event>`` | - (e.g. ``..._SESSION_START``) |
| ``CONTINUITY_BACKOFF_S`` | ``backoff_s`` | 10 |
| ``CONTINUITY_SPOOL_MAX_BYTES`` | ``spool_max_bytes`` | 5 MiB |
| ``CONTINUITY_INJECTION_CAP_CHARS`` | ``injection_cap_chars`` | 9000 (harnesses without a known cap) |
| ``CONTINUITY_BACKGROUND`` | ``background`` | on (``0``, ``false``, ``off``: every hook waits) |
| ``CONTINUITY_SYNC_CONTEXT_TOKENS`` | ``sync_context_tokens`` | 90 % of the service's nudge, else 100000 |
"""

from __future__ import annotations

import os

from continuity_client.hook import fastjson as json

TYPE_CHECKING = False  # typing costs milliseconds at import; mypy reads this as True
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

DEFAULT_TIMEOUT_S = 2.0
# The recovery read and the pre-compaction checkpoint matter most and happen rarely.
# The recovery read and the last checkpoint before a compaction get more time. post-compaction does
# not: it runs between the two in the same compaction turn, and its checkpoint can wait in the spool.
EVENT_DEFAULT_TIMEOUT_S = {"session-start": 4.0, "pre-compaction": 4.0}
MIN_TIMEOUT_S, MAX_TIMEOUT_S = 0.1, 60.0
DEFAULT_BACKOFF_S = 10.0
DEFAULT_SPOOL_MAX_BYTES = 5 * 1024 * 1024
# The most characters of context a harness injects, for harnesses whose cap we do not know
# (harness.INJECTION_CAP_CHARS has the known ones); the service's accepted range.
DEFAULT_INJECTION_CAP_CHARS = 9000
MIN_INJECTION_CAP_CHARS, MAX_INJECTION_CAP_CHARS = 200, 100_000
CONFIG_FILE = "config.json"
# From this context size on, a prompt waits for the service's answer, which may be the compaction
# nudge (the service's default: 65 % of 200,000 tokens); below it, it is delivered in the background.
DEFAULT_SYNC_CONTEXT_TOKENS = 100_000
OFF = frozenset({"0", "false", "off", "no"})


def home_dir(env: Mapping[str, str]) -> str:
    explicit = env.get("CONTINUITY_HOME")
    if explicit:
        return explicit
    user_home = env.get("HOME") or os.path.expanduser("~")
    return os.path.join(user_home, ".continuity")


def config_path(env: Mapping[str, str]) -> str:
    return os.path.join(home_dir(env), CONFIG_FILE)


def read_file_config(path: str) -> dict[str, Any]:
    """The config file as a dict; {} when absent or unreadable (the hook must still run)."""
    try:
        with open(path, "rb") as handle:
            data = json.loads(handle.read() or b"{}")
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _number(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return None
    return None


def event_env_name(event: str) -> str:
    return "CONTINUITY_HOOK_TIMEOUT_S_" + event.upper().replace("-", "_")


class Settings:
    """Resolved settings; ``sources`` says where url and token came from (for ``doctor``)."""

    __slots__ = (
        "_env",
        "_file",
        "background",
        "backoff_s",
        "config_file",
        "file_values",
        "home",
        "injection_cap_chars",
        "sources",
        "spool_max_bytes",
        "sync_context_set",
        "sync_context_tokens",
        "token",
        "url",
    )

    def __init__(self, env: Mapping[str, str]) -> None:
        self._env = env
        self.home = home_dir(env)
        self.config_file = os.path.join(self.home, CONFIG_FILE)
        self._file = read_file_config(self.config_file)
        # read-only use: the machine's name, the user (hook.machine)
        self.file_values: dict[str, Any] = self._file
        self.sources: dict[str, str] = {}
        self.url = self._text("url", "CONTINUITY_URL").rstrip("/")
        self.token = self._text("token", "CONTINUITY_TOKEN")
        self.backoff_s = self._float("backoff_s", "CONTINUITY_BACKOFF_S", DEFAULT_BACKOFF_S, 0.0, 3600.0)
        self.spool_max_bytes = int(
            self._float("spool_max_bytes", "CONTINUITY_SPOOL_MAX_BYTES", DEFAULT_SPOOL_MAX_BYTES, 256, 1e10)
        )
        self.injection_cap_chars = int(
            self._float(
                "injection_cap_chars",
                "CONTINUITY_INJECTION_CAP_CHARS",
                DEFAULT_INJECTION_CAP_CHARS,
                MIN_INJECTION_CAP_CHARS,
                MAX_INJECTION_CAP_CHARS,
            )
        )
        background = self._env.get("CONTINUITY_BACKGROUND", self._file.get("background", True))
        self.background = str(background).strip().lower() not in OFF
        self.sync_context_tokens = int(
            self._float(
                "sync_context_tokens", "CONTINUITY_SYNC_CONTEXT_TOKENS", DEFAULT_SYNC_CONTEXT_TOKENS, 0, 1e9
            )
        )
        # Set by the person: it wins over the nudge point the service tells (``late_context``).
        self.sync_context_set = any(
            _number(v) is not None
            for v in (self._env.get("CONTINUITY_SYNC_CONTEXT_TOKENS"), self._file.get("sync_context_tokens"))
        )

    def _text(self, key: str, env_name: str) -> str:
        value = self._env.get(env_name)
        if value:
            self.sources[key] = f"environment ({env_name})"
            return value.strip()
        value = self._file.get(key)
        if isinstance(value, str) and value:
            self.sources[key] = f"config file ({self.config_file})"
            return value.strip()
        return ""

    def _float(self, key: str, env_name: str, default: float, low: float, high: float) -> float:
        for candidate in (self._env.get(env_name), self._file.get(key)):
            number = _number(candidate)
            if number is not None:
                return min(max(number, low), high)
        return default

    def timeout_for(self, event: str) -> float:
        """Per-event env > global env > per-event file > global file > built-in default."""
        file_timeouts = self._file.get("timeouts")
        candidates = (
            self._env.get(event_env_name(event)),
            self._env.get("CONTINUITY_HOOK_TIMEOUT_S"),
            file_timeouts.get(event) if isinstance(file_timeouts, dict) else None,
            self._file.get("hook_timeout_s"),
        )
        for candidate in candidates:
            number = _number(candidate)
            if number is not None and number > 0:
                return min(max(number, MIN_TIMEOUT_S), MAX_TIMEOUT_S)
        return EVENT_DEFAULT_TIMEOUT_S.get(event, DEFAULT_TIMEOUT_S)

    @property
    def configured(self) -> bool:
        return bool(self.url and self.token)


def load(env: Mapping[str, str] | None = None) -> Settings:
    return Settings(os.environ if env is None else env)


def write_login(env: Mapping[str, str], url: str, token: str) -> str:
    """Write url and token into the user config file (mode 0600, directory 0700); keep other keys."""
    home = home_dir(env)
    os.makedirs(home, mode=0o700, exist_ok=True)
    path = os.path.join(home, CONFIG_FILE)
    data = read_file_config(path)
    data["url"] = url.strip().rstrip("/")
    data["token"] = token.strip()
    _write_private(path, data)
    return path


def write_value(env: Mapping[str, str], key: str, value: str | None) -> str:
    """Set (or, with None, remove) one key of the user config file; keep the others."""
    home = home_dir(env)
    os.makedirs(home, mode=0o700, exist_ok=True)
    path = os.path.join(home, CONFIG_FILE)
    data = read_file_config(path)
    if value is None:
        data.pop(key, None)
    else:
        data[key] = value
    _write_private(path, data)
    return path


def clear_login(env: Mapping[str, str]) -> tuple[str, bool]:
    """Remove url and token from the user config file (other keys stay; a file left empty goes).
    (path, whether there was a login to remove)."""
    path = config_path(env)
    data = read_file_config(path)
    had = "url" in data or "token" in data
    data.pop("url", None)
    data.pop("token", None)
    if had and not data:
        os.unlink(path)
    elif had:
        _write_private(path, data)
    return path, had


def _write_private(path: str, data: dict[str, Any]) -> None:
    temporary = path + ".tmp"
    # Created 0600 from the start: the token is never readable by others, not even briefly.
    import json as standard_json  # indent: not on the hook path

    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        standard_json.dump(data, handle, indent=2)
        handle.write("\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.chmod(temporary, 0o600)
    os.replace(temporary, path)
