"""A secret split across two transcript appends is redacted in what is stored: no read, whole or
with any offset/limit, returns a character the redaction of the whole transcript would replace."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest

from continuity_core.models.state import SessionIdentity
from continuity_core.models.transcripts import TranscriptHead
from continuity_core.redaction import redact_same_length, secret_spans
from continuity_core.sessions.sessions import SessionReader
from continuity_core.transcripts.append import TranscriptAppender
from continuity_core.transcripts.ports import TranscriptHint
from continuity_core.transcripts.read import TranscriptReader
from tests.fakes.transcripts import InMemoryTranscriptStorage
from tests.unit.redaction.support import leaked, load_positives

T0 = datetime(2026, 11, 22, 9, 0, tzinfo=UTC)
AGENT = "default"
ME = SessionIdentity(session_key="s1", harness="claude-code", project="/w", project_normalized="/w")
POSITIVES = load_positives()
# What a stored redaction looks like: fitted markers, their ``*`` padding, a continuation's ``*``.
_REDACTED_RUN = re.compile(r"(?:\[REDACTED(?::[a-z_]{1,40})?\]|\*)+")


def appended_in_two(text: str, split: int, fast: bool) -> tuple[InMemoryTranscriptStorage, str]:
    """``text`` appended as two deltas cut at ``split``; the stored transcript, read whole."""
    storage = InMemoryTranscriptStorage()
    appender = TranscriptAppender(storage, chunk_chars=1 << 20, keep_chars=3000)
    first = appender.append(AGENT, ME, 0, text[:split], T0, TranscriptHint(-1, None))
    assert first.length == split
    # The next prompt: the state's hint fits (the one-put path), or there is none (the careful path)
    hint = TranscriptHint(split, T0) if fast else None
    second = appender.append(AGENT, ME, split, text[split:], T0 + timedelta(seconds=5), hint)
    assert second.length == len(text)
    reader = TranscriptReader(storage, None, lambda: T0 + timedelta(seconds=6))
    head = reader.assembled_head(AGENT, "s1", consistent=True)
    assert head is not None
    return storage, reader.read(AGENT, head)


def unredacted(raw_spans: list[tuple[int, int, str]], stored: str) -> list[int]:
    """Positions the redaction of the whole raw text replaces (``raw_spans``, its secret spans)
    that ``stored`` still shows."""
    covered = bytearray(len(stored))
    for match in _REDACTED_RUN.finditer(stored):
        covered[match.start() : match.end()] = b"\x01" * (match.end() - match.start())
    return [i for start, end, _ in raw_spans for i in range(start, end) if not covered[i]]


@pytest.mark.parametrize("positive", POSITIVES, ids=lambda p: p.kind)
def test_every_corpus_secret_split_at_every_position_is_redacted_in_what_is_stored(positive) -> None:
    text = positive.text
    start = text.index(positive.secret)
    near = range(start - 64, start + len(positive.secret) + 64)
    raw_spans = secret_spans(text)  # the same for every cut: found once
    checked: set[str] = set()  # stored texts already checked (most cuts store the same text)
    for split in range(1, len(text)):
        # The one-put path at every cut; the careful path (the same redaction, its tail read with
        # the head) at every cut near the secret.
        for fast in (True, False) if split in near else (True,):
            # Given the text sent as two deltas cut at ``split``
            _, stored = appended_in_two(text, split, fast)
            # Then the stored transcript keeps the client's offsets, holds no piece of the secret,
            # and redacts every character a redaction of the whole text would
            assert len(stored) == len(text)
            if stored in checked:  # the checks below are pure functions of the stored text
                continue
            checked.add(stored)
            assert not leaked(positive.secret, stored), (split, fast, stored)
            assert unredacted(raw_spans, stored) == [], (split, fast, stored)
            # and a whole read has nothing more to redact: what it serves is what is stored
            assert redact_same_length(stored)[0] == stored, (split, fast, stored)


@pytest.mark.parametrize("positive", POSITIVES[::7], ids=lambda p: p.kind)
def test_every_window_of_a_split_secret_is_the_stored_text_and_never_joins_into_the_secret(
    positive,
) -> None:
    text = positive.text
    start = text.index(positive.secret)
    for split in range(start + 1, start + len(positive.secret)):  # every cut inside the secret
        storage, stored = appended_in_two(text, split, fast=True)
        # What the session API answers a page with: the head as read for it, then its characters
        reader = TranscriptReader(storage, None, lambda: T0 + timedelta(minutes=1))
        whole = SessionReader(reader, None).transcript(AGENT, "s1", 0, len(text))
        head = reader.assembled_head(AGENT, "s1", consistent=True)
        assert whole is not None and head is not None and whole.text == stored

        def window(
            offset: int, limit: int, head: TranscriptHead = head, reader: TranscriptReader = reader
        ) -> str:
            return reader.read(AGENT, head, offset, offset + limit)

        # Every 1-character window is the stored character
        assert "".join(window(i, 1) for i in range(len(text))) == stored
        # and the two reads that meet at the cut (the attack: join them) are stored text too
        for i in range(split):
            assert window(i, split - i) == stored[i:split]
        for j in range(split + 1, len(text) + 1):
            assert window(split, j - split) == stored[split:j]
        assert not leaked(positive.secret, window(0, split) + window(split, len(text)))


def test_a_github_token_cut_in_two_reads_as_redacted_in_both_pieces() -> None:
    # Given a GitHub token cut after its 12th character by the client's split of two deltas
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    text = f"$ echo {token} | pbcopy\nUser: next\n"
    split = text.index(token) + 12
    # When the two pieces are read back, before and after the cut
    storage, stored = appended_in_two(text, split, fast=True)
    # Then neither holds a raw character of it: the first append was rewritten in place
    assert stored[:split] == "$ echo [REDACTED:gi"  # the marker, cut where the first append ends
    assert stored[split:].startswith("thub_token]****")
    assert stored[len(text) - len("User: next\n") :] == "User: next\n"
    assert storage.calls.count("replace_append") == 1


def test_a_secret_the_first_delta_ended_inside_is_continued_into_the_next() -> None:
    # Given a token long enough to be recognised in the first delta, whose last characters come next
    token = "ghp_" + "Zy9Xw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa12" + "tail99"
    text = f"token: {token} done\n"
    split = text.index("tail99")
    _, stored = appended_in_two(text, split, fast=True)
    # Then the rest of it is redacted too (the stored redaction ran to the first delta's end)
    assert "tail99" not in stored
    assert stored.endswith(" done\n")


def test_a_secret_whose_name_came_with_the_previous_delta_is_redacted() -> None:
    # Given ``DB_PASSWORD=`` at the end of one delta and the value at the start of the next
    text = "export DB_PASSWORD=Velvet2231#Qz7 && ./run\n"
    split = text.index("Velvet")
    _, stored = appended_in_two(text, split, fast=True)
    assert "Velvet2231" not in stored
    assert stored.startswith("export DB_PASSWORD=") and stored.endswith(" && ./run\n")


def test_text_without_secrets_is_stored_as_sent_across_any_cut() -> None:
    text = "User: what is the secret to good tests?\nAssistant: small ones, password validation too.\n"
    for split in range(1, len(text)):
        assert appended_in_two(text, split, fast=True)[1] == text
