"""This machine and its user, as sessions are labelled with them: for display and ranking only.

- ``machine_id``: a random id made once and kept in ``$CONTINUITY_HOME/machine-id``. Stable, and
  says nothing about the machine (no hostname, MAC or serial), so it may sit beside the session.
- ``machine_name``: what people read ("from ana-laptop"): ``CONTINUITY_MACHINE``, else
  ``machine`` in config.json (``continuity config machine NAME``), else the host's short name.
- ``user``: whose session it is, for keeping automatic cross-session recovery to one person:
  ``CONTINUITY_USER``, else ``user`` in config.json (``continuity config user NAME``), else none
  (a session without a user matches anyone's: one person on many machines needs no setting).

On the hook path: imports only ``os``.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing costs milliseconds at import; mypy reads this as True
if TYPE_CHECKING:
    from collections.abc import Mapping

MACHINE_ID_FILE = "machine-id"
MACHINE_ENV, USER_ENV = "CONTINUITY_MACHINE", "CONTINUITY_USER"
MAX_NAME_CHARS = 64


def machine_id(home: str) -> str | None:
    """This machine's id, made on first use; None when the home cannot hold it."""
    path = os.path.join(home, MACHINE_ID_FILE)
    try:
        with open(path, "rb") as handle:
            known = handle.read(64).decode("ascii", "replace").strip()
        if len(known) == 32 and all(c in "0123456789abcdef" for c in known):
            return known
    except OSError:
        pass
    made = os.urandom(16).hex()
    try:
        os.makedirs(home, mode=0o700, exist_ok=True)
        temporary = f"{path}.{os.getpid()}.tmp"
        with open(temporary, "w", encoding="ascii") as handle:
            handle.write(made + "\n")
        os.replace(temporary, path)
    except OSError:
        return None
    return made


def clean_name(value: object) -> str | None:
    """A label as given: trimmed, printable, at most MAX_NAME_CHARS; None when nothing is left."""
    if not isinstance(value, str):
        return None
    text = "".join(c for c in value.strip() if ord(c) >= 32 and ord(c) != 127)[:MAX_NAME_CHARS]
    return text or None


def machine_name(env: Mapping[str, str], file_config: Mapping[str, object]) -> str | None:
    named = clean_name(env.get(MACHINE_ENV)) or clean_name(file_config.get("machine"))
    if named:
        return named
    try:
        return clean_name(os.uname().nodename.split(".")[0])
    except (AttributeError, OSError):  # no uname (Windows)
        return clean_name(env.get("COMPUTERNAME"))


def user(env: Mapping[str, str], file_config: Mapping[str, object]) -> str | None:
    return clean_name(env.get(USER_ENV)) or clean_name(file_config.get("user"))
