"""Context the service answered to a hook delivered in the background, and when a prompt must wait.

A prompt delivered in the background (``run``) has exited before the service answers. The service
answers a prompt with context in two cases: the recovery after a compaction (Gemini CLI's
``compacted``: the client knows, and that prompt waits) and the compaction nudge, once the context
the client reports passes the service's threshold (65 % of 200,000 tokens by default). So a prompt
waits for its answer once its context figure reaches ``sync_context_tokens`` (100,000 by default),
until an answer there carried context (the nudge came: ``<session>.nudged``) and again after the
figure falls below it (a compaction re-arms the service's nudge too).

The service tells its nudge point (tokens) in every hook answer (``X-Continuity-Nudge-Tokens``);
the client keeps it (``nudge-tokens``) and waits from ``LEARNED_SHARE`` of it instead of the
default, so a deployment with a smaller window nudges on time. Should the service nudge below the
figure anyway (before the first answer, or ``sync_context_tokens`` set higher by hand), the
background delivery keeps the answer (``<session>.json``) and the session's next prompt prints it:
one prompt late, never lost. A session start drops a kept answer: its own context replaces the old one.

Files under ``$CONTINUITY_HOME/context/``. On the hook path: imports nothing.
"""

from __future__ import annotations

import os

from continuity_client.hook import fastjson as json
from continuity_client.hook.privatefiles import open_private, safe_name, write_private

TYPE_CHECKING = False  # typing costs milliseconds at import; mypy reads this as True
if TYPE_CHECKING:
    from typing import Any

CONTEXT_DIR = "context"
CHARS_PER_TOKEN = 4  # the service's estimate when the harness records no figure
NUDGE_HEADER = "x-continuity-nudge-tokens"  # the service's nudge point, in its hook answers
LEARNED_FILE = "nudge-tokens"
LEARNED_SHARE = 0.9  # wait a little before the service's point: the two figures may differ a little


def _path(home: str, session: str, suffix: str) -> str:
    return os.path.join(home, CONTEXT_DIR, safe_name(session) + suffix)


def _unlink(path: str) -> None:
    try:  # noqa: SIM105 - contextlib would be one more import on the hook path
        os.unlink(path)
    except OSError:
        pass


def context_figure(body: dict[str, Any]) -> int | None:
    """The context size the service will compare with its nudge threshold: the harness's own figure,
    else the readable transcript's characters / 4."""
    tokens = body.get("context_tokens")
    if isinstance(tokens, int) and not isinstance(tokens, bool):
        return tokens
    chars = body.get("transcript_chars")
    if isinstance(chars, int) and not isinstance(chars, bool):
        return chars // CHARS_PER_TOKEN
    return None


def learn(home: str, headers: dict[str, str]) -> None:
    """Keep the nudge point the service told, when it changed. Never raises."""
    told = headers.get(NUDGE_HEADER, "").strip()
    if not told.isdigit() or told == _learned_text(home):
        return
    try:  # noqa: SIM105 - contextlib would be one more import on the hook path
        write_private(os.path.join(home, CONTEXT_DIR, LEARNED_FILE), told.encode("ascii"))
    except OSError:
        pass


def _learned_text(home: str) -> str:
    try:
        with open(os.path.join(home, CONTEXT_DIR, LEARNED_FILE), "rb") as handle:
            return handle.read().decode("ascii", "replace").strip()
    except OSError:
        return ""


def wait_from(home: str, configured: int, set_by_hand: bool) -> int:
    """The context figure from which a prompt waits for its answer: the person's setting, else
    ``LEARNED_SHARE`` of the service's nudge point once it told one, else the default."""
    learned = _learned_text(home)
    if set_by_hand or not learned.isdigit():
        return configured
    return int(int(learned) * LEARNED_SHARE)


def may_nudge(home: str, session: str, body: dict[str, Any], threshold: int) -> bool:
    """Whether this prompt's answer may be the compaction nudge, so the prompt waits for it."""
    figure = context_figure(body)
    marker = _path(home, session, ".nudged")
    if figure is None or figure < threshold:
        if os.path.exists(marker):
            _unlink(marker)  # below the zone again (a compaction): the next crossing waits again
        return False
    return not os.path.exists(marker)


def note_answer(home: str, session: str, event: str, had_context: bool) -> None:
    """A prompt's answer carried context (the nudge): the session's later prompts need not wait."""
    if event != "user-prompt-submit" or not had_context:
        return
    os.close(open_private(_path(home, session, ".nudged"), os.O_WRONLY | os.O_CREAT))


def keep(home: str, session: str, answer: object) -> None:
    """Keep an answer that came after its hook exited, for the session's next prompt."""
    write_private(_path(home, session, ".json"), json.dumps(answer).encode("utf-8"))


def take(home: str, session: str) -> object:
    """The answer kept for the session (removed), or None."""
    path = _path(home, session, ".json")
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    _unlink(path)
    try:
        return json.loads(data)
    except ValueError:
        return None


def drop(home: str, session: str) -> None:
    """A session start: what was kept for the old context does not apply to the new one."""
    _unlink(_path(home, session, ".json"))
