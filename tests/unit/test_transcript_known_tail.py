"""The append's fast path without a read: the tail a new delta is redacted after is the one this
instance stored (or read) last, used only when it is proven to be what is stored; a secret split
across two appends is redacted in what is stored whichever way the tail was found."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from continuity_core.models.state import SessionIdentity
from continuity_core.redaction import secret_spans
from continuity_core.transcripts.append import TranscriptAppender
from continuity_core.transcripts.ports import AppendResult, TranscriptHint
from continuity_core.transcripts.read import TranscriptReader
from tests.fakes.transcripts import InMemoryTranscriptStorage
from tests.unit.redaction.support import leaked, load_positives
from tests.unit.test_transcript_redaction_across_appends import unredacted

T0 = datetime(2026, 11, 22, 9, 0, tzinfo=UTC)
AGENT = "default"
ME = SessionIdentity(session_key="s1", harness="claude-code", project="/w", project_normalized="/w")
CARRY = 300
POSITIVES = load_positives()


def instance(storage: InMemoryTranscriptStorage) -> TranscriptAppender:
    """One Lambda instance's appender: its memory is its own."""
    return TranscriptAppender(storage, chunk_chars=1 << 20, keep_chars=CARRY, carry_chars=CARRY)


def started(storage: InMemoryTranscriptStorage, text: str) -> tuple[TranscriptAppender, TranscriptHint]:
    """A transcript started by one instance; the state's hint as the hook service leaves it."""
    appender = instance(storage)
    result = appender.append(AGENT, ME, 0, text, T0, TranscriptHint(-1, None))
    assert result.hint is not None
    return appender, result.hint


def text_of(storage: InMemoryTranscriptStorage) -> str:
    reader = TranscriptReader(storage, None, lambda: T0 + timedelta(minutes=30))
    head = reader.assembled_head(AGENT, "s1", consistent=True)
    return reader.read(AGENT, head) if head else ""


def test_the_next_delta_on_the_instance_that_stored_the_tail_is_one_put_and_no_read() -> None:
    storage = InMemoryTranscriptStorage()
    appender, hint = started(storage, "User: one\n")
    storage.calls.clear()
    result = appender.append(AGENT, ME, 10, "User: two\n", T0 + timedelta(seconds=5), hint)
    # Three prompts on: still no read, as long as each starts where the instance's last one ended
    later = appender.append(AGENT, ME, 20, "User: six\n", T0 + timedelta(seconds=9), TranscriptHint(20, T0))
    assert (result, later) == (AppendResult(20), AppendResult(30))
    assert storage.calls == ["put_append", "put_append"]
    assert text_of(storage) == "User: one\nUser: two\nUser: six\n"


def test_after_another_instance_appended_the_tail_is_read() -> None:
    # Given instance A stored the start, then instance B appended after it
    storage = InMemoryTranscriptStorage()
    a, hint = started(storage, "User: one\n")
    instance(storage).append(AGENT, ME, 10, "User: two\n", T0 + timedelta(seconds=5), hint)
    storage.calls.clear()
    # When A gets the next delta (its memory ends at 10, the delta starts at 20)
    result = a.append(AGENT, ME, 20, "User: three\n", T0 + timedelta(seconds=9), TranscriptHint(20, T0))
    # Then A reads the tail before putting
    assert storage.calls == ["latest_appends", "put_append"]
    assert result == AppendResult(32)
    assert text_of(storage) == "User: one\nUser: two\nUser: three\n"


def test_a_stale_hint_at_the_remembered_end_loses_the_put_and_decides_from_what_is_stored() -> None:
    # Given instance A stored up to 10, and B appended at 10 but the state's hint still says 10 (B
    # stopped before correcting it)
    storage = InMemoryTranscriptStorage()
    a, hint = started(storage, "User: one\n")
    instance(storage).append(AGENT, ME, 10, "User: two\n", T0 + timedelta(seconds=5), hint)
    # When A gets a delta at 10 (a replay of B's, as a client resends its spool)
    result = a.append(AGENT, ME, 10, "User: two\n", T0 + timedelta(seconds=9), hint)
    # Then its put at 10 is refused (the position is taken) and nothing is appended twice
    assert result.length == 20
    assert text_of(storage) == "User: one\nUser: two\n"


def test_a_replayed_delta_on_the_same_instance_appends_nothing() -> None:
    storage = InMemoryTranscriptStorage()
    appender, hint = started(storage, "User: one\n")
    appender.append(AGENT, ME, 10, "User: two\n", T0 + timedelta(seconds=5), hint)
    # When the client resends the second delta (its answer was lost), with the state's hint moved on
    result = appender.append(AGENT, ME, 10, "User: two\n", T0 + timedelta(seconds=9), TranscriptHint(20, T0))
    assert result.length == 20
    assert text_of(storage) == "User: one\nUser: two\n"


def test_a_hint_naming_another_incarnation_of_the_transcript_makes_it_read() -> None:
    storage = InMemoryTranscriptStorage()
    appender, _ = started(storage, "User: one\n")
    storage.calls.clear()
    # When the state's hint says the head was written at another instant than the one remembered
    other = TranscriptHint(10, T0 + timedelta(seconds=1))
    appender.append(AGENT, ME, 10, "User: two\n", T0 + timedelta(seconds=5), other)
    assert storage.calls[0] == "latest_appends"


def test_a_failed_put_leaves_nothing_remembered() -> None:
    # Given instance A stored up to 10, and the position 10 taken by B's append meanwhile
    storage = InMemoryTranscriptStorage()
    a, hint = started(storage, "User: one\n")
    instance(storage).append(AGENT, ME, 10, "User: two\n", T0 + timedelta(seconds=5), hint)
    a.append(AGENT, ME, 10, "User: TWO\n", T0 + timedelta(seconds=6), hint)  # lost the position
    storage.calls.clear()
    # When A gets the next delta at the stored end
    a.append(AGENT, ME, 20, "User: three\n", T0 + timedelta(seconds=9), TranscriptHint(20, T0))
    # Then it reads the tail it now knows nothing of (what it decided from is what B stored)
    assert storage.calls[0] == "latest_appends"
    assert text_of(storage) == "User: one\nUser: two\nUser: three\n"


def appended_in_two(text: str, split: int, same_instance: bool) -> str:
    """``text`` as two deltas cut at ``split``, the second on the instance that stored the first
    (no read) or on another (it reads the tail); the stored transcript, read whole."""
    storage = InMemoryTranscriptStorage()
    first, hint = started(storage, text[:split])
    second = first if same_instance else instance(storage)
    storage.calls.clear()
    result = second.append(AGENT, ME, split, text[split:], T0 + timedelta(seconds=5), hint)
    assert result.length == len(text)
    assert ("latest_appends" in storage.calls) is not same_instance
    return text_of(storage)


@pytest.mark.parametrize("positive", POSITIVES[::5], ids=lambda p: p.kind)
def test_a_secret_straddling_two_appends_is_redacted_in_what_is_stored_read_or_not(positive) -> None:
    text = positive.text
    start = text.index(positive.secret)
    for split in range(start + 1, start + len(positive.secret)):  # every cut inside the secret
        remembered = appended_in_two(text, split, same_instance=True)
        read = appended_in_two(text, split, same_instance=False)
        # Then both store the same text: no piece of the secret, and every character a redaction
        # of the whole text replaces is replaced
        assert remembered == read, split
        assert not leaked(positive.secret, remembered), (split, remembered)
        assert unredacted(secret_spans(text), remembered) == [], split


TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
TOKEN_TEXT = f"$ echo {TOKEN} | pbcopy\nUser: next\n"
TOKEN_CUT = TOKEN_TEXT.index(TOKEN) + 12  # the client's split falls inside the token


def test_a_token_cut_in_two_is_rewritten_in_the_remembered_tail_and_the_next_delta_sees_it() -> None:
    # Given a GitHub token cut by the client's split, the second half appended without a read
    token, text, split = TOKEN, TOKEN_TEXT, TOKEN_CUT
    storage = InMemoryTranscriptStorage()
    appender, hint = started(storage, text[:split])
    appender.append(AGENT, ME, split, text[split:], T0 + timedelta(seconds=5), hint)
    # When a third delta comes to the same instance
    end = len(text)
    appender.append(AGENT, ME, end, "done\n", T0 + timedelta(seconds=9), TranscriptHint(end, T0))
    # Then the first append was rewritten in place and nothing of the token is stored anywhere
    stored = text_of(storage)
    assert storage.calls.count("replace_append") == 1
    assert stored.startswith("$ echo [REDACTED:gi") and stored.endswith("User: next\ndone\n")
    assert not leaked(token, stored)


def test_a_rewrite_from_a_remembered_tail_another_writer_rewrote_since_is_refused() -> None:
    # Given instance A stored the start of a token, and B appended its rest: B rewrote A's append
    token, text, split = TOKEN, TOKEN_TEXT, TOKEN_CUT
    storage = InMemoryTranscriptStorage()
    a, hint = started(storage, text[:split])
    instance(storage).append(AGENT, ME, split, text[split:], T0 + timedelta(seconds=5), hint)
    storage.calls.clear()
    # When A, whose memory still ends at the cut, gets the same rest again (a replay, a stale hint)
    result = a.append(AGENT, ME, split, text[split:], T0 + timedelta(seconds=9), hint)
    # Then its rewrite of the tail is refused (it was rewritten since A stored it) and the append is
    # decided from what is stored: nothing added, B's rewrite kept, no piece of the token anywhere
    assert storage.calls[:2] == ["replace_append", "head"]
    assert result.length == len(text)
    stored = text_of(storage)
    assert stored.startswith("$ echo [REDACTED:gi") and not leaked(token, stored)
