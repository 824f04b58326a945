"""The TranscriptStorage contract: the in-memory fake and DynamoDB + S3 (moto) behave alike."""

from __future__ import annotations

from datetime import timedelta

import pytest

from continuity_core.kernel.errors import InvalidPageTokenError
from continuity_core.models.state import SessionIdentity
from continuity_core.models.transcripts import TranscriptHead
from continuity_core.transcripts.ports import ChunkMove, Span, TranscriptBodyMissingError, TranscriptStorage
from tests.contract.conftest import BACKENDS, T0, bucket_name, table_name
from tests.fakes.transcripts import InMemoryTranscriptStorage

RETENTION = timedelta(days=7)
LATER = T0 + timedelta(minutes=5)


@pytest.fixture(params=BACKENDS)
def storage(request: pytest.FixtureRequest) -> TranscriptStorage:
    if request.param == "memory":
        return InMemoryTranscriptStorage(retention=RETENTION)
    from continuity_core.transcripts.dynamo_transcripts import DynamoTranscriptStorage
    from continuity_core.transcripts.s3_bodies import S3BodyStore

    return DynamoTranscriptStorage(table_name(request), S3BodyStore(bucket_name(request)), RETENTION)


def identity(
    session: str = "s1", project: str | None = "/work/app", harness: str = "claude-code"
) -> SessionIdentity:
    return SessionIdentity(session_key=session, harness=harness, project=project, project_normalized=project)


def started(
    storage: TranscriptStorage, agent: str, session: str = "s1", project: str | None = "/work/app"
) -> TranscriptHead:
    assert storage.start_head(agent, identity(session, project), T0)
    head = storage.head(agent, session, T0, consistent=True)
    assert head is not None
    return head


# -- the head --------------------------------------------------------------------------------------


def test_a_started_head_reads_back_with_its_identity_and_nothing_stored(
    storage: TranscriptStorage, agent: str
) -> None:
    head = started(storage, agent)
    assert (head.session_key, head.harness, head.project, head.project_normalized) == (
        "s1",
        "claude-code",
        "/work/app",
        "/work/app",
    )
    assert (head.created_at, head.updated_at, head.length, head.flushed) == (T0, T0, 0, 0)
    assert (head.chunk_ids, head.chunk_ends, head.inline) == ([], [], "")


def test_a_second_start_of_a_live_head_is_refused(storage: TranscriptStorage, agent: str) -> None:
    started(storage, agent)
    assert not storage.start_head(agent, identity(), LATER)
    head = storage.head(agent, "s1", LATER, consistent=True)
    assert head is not None and head.created_at == T0


def test_a_head_past_its_ttl_reads_as_none_and_may_be_started_again(
    storage: TranscriptStorage, agent: str
) -> None:
    # Given a head written at T0 (kept the retention plus a day, plus the TTL grace)
    started(storage, agent)
    much_later = T0 + RETENTION + timedelta(days=5)
    # Then it is gone for reads, and a new incarnation may start under the same key
    assert storage.head(agent, "s1", much_later, consistent=True) is None
    assert storage.heads(agent, ["s1"], much_later) == []
    assert storage.start_head(agent, identity(), much_later)
    head = storage.head(agent, "s1", much_later, consistent=True)
    assert head is not None and head.created_at == much_later


def test_a_head_is_live_for_the_retention_and_a_day_after_its_last_write(
    storage: TranscriptStorage, agent: str
) -> None:
    head = started(storage, agent)
    assert storage.head(agent, "s1", T0 + RETENTION + timedelta(hours=23), consistent=True) is not None
    assert storage.update_head(agent, identity(), head, 10, T0 + timedelta(days=6))
    assert storage.head(agent, "s1", T0 + RETENTION + timedelta(days=6), consistent=True) is not None


def test_an_update_moves_the_summary_and_fills_only_missing_identity_fields(
    storage: TranscriptStorage, agent: str
) -> None:
    head = started(storage, agent, project=None)
    # When another hook of the session, with a project and another harness, refreshes the head
    assert storage.update_head(agent, identity(harness="codex"), head, 42, LATER)
    now = storage.head(agent, "s1", LATER, consistent=True)
    assert now is not None
    assert (now.harness, now.project, now.length, now.updated_at) == ("claude-code", "/work/app", 42, LATER)
    assert now.created_at == T0


def test_an_update_of_an_earlier_incarnation_changes_nothing(storage: TranscriptStorage, agent: str) -> None:
    old = started(storage, agent)
    much_later = T0 + RETENTION + timedelta(days=5)
    assert storage.start_head(agent, identity(), much_later)
    assert not storage.update_head(agent, identity(), old, 99, much_later)
    head = storage.head(agent, "s1", much_later, consistent=True)
    assert head is not None and head.length == 0


def test_a_chunk_is_recorded_once_when_two_movers_read_the_same_head(
    storage: TranscriptStorage, agent: str
) -> None:
    head = started(storage, agent)
    assert storage.update_head(agent, identity(), head, 100, LATER, ChunkMove("first", 60))
    # A second mover read the same head (flushed 0): its chunk is refused
    assert not storage.update_head(agent, identity(), head, 100, LATER, ChunkMove("second", 80))
    now = storage.head(agent, "s1", LATER, consistent=True)
    assert now is not None
    assert (now.flushed, now.chunk_ids, now.chunk_ends) == (60, ["first"], [60])


def test_heads_reads_several_and_leaves_out_missing_ones(storage: TranscriptStorage, agent: str) -> None:
    started(storage, agent, "a")
    started(storage, agent, "b")
    found = storage.heads(agent, ["a", "b", "missing", "a"], T0)
    assert sorted(h.session_key for h in found) == ["a", "b"]


def test_heads_are_per_tenant(storage: TranscriptStorage, agent: str) -> None:
    started(storage, agent)
    assert storage.head(agent + "-other", "s1", T0, consistent=True) is None


# -- appends ---------------------------------------------------------------------------------------


def test_appends_read_back_in_position_order_from_a_start(storage: TranscriptStorage, agent: str) -> None:
    for start, text in ((0, "hello "), (6, "wide "), (11, "world")):
        assert storage.put_append(agent, "s1", start, text, T0, born=None)
    found = storage.appends(agent, "s1", 6, consistent=True)
    assert [(a.span.start, a.span.end, a.text) for a in found] == [(6, 11, "wide "), (11, 16, "world")]
    assert found[0].span.at_ms == int(T0.timestamp() * 1000)


def test_a_taken_position_is_refused_and_keeps_its_text(storage: TranscriptStorage, agent: str) -> None:
    assert storage.put_append(agent, "s1", 0, "mine", T0, born=None)
    assert not storage.put_append(agent, "s1", 0, "yours", LATER, born=None)
    assert not storage.put_append(agent, "s1", 0, "yours", LATER, born=T0)  # written at T0: this incarnation
    assert [a.text for a in storage.appends(agent, "s1", 0, consistent=True)] == ["mine"]


def test_an_append_older_than_born_is_free_to_overwrite(storage: TranscriptStorage, agent: str) -> None:
    # Given an append of an earlier incarnation
    assert storage.put_append(agent, "s1", 0, "old text", T0, born=None)
    reborn = T0 + timedelta(days=10)
    # When the new incarnation (born later) puts at the same position
    assert storage.put_append(agent, "s1", 0, "new", reborn, born=reborn)
    found = storage.appends(agent, "s1", 0, consistent=True)
    assert [(a.span.end, a.text) for a in found] == [(3, "new")]


def test_text_round_trips_whatever_its_characters(storage: TranscriptStorage, agent: str) -> None:
    text = 'naïve café ☕ 😀 \u00a0tab\there «quotes» "json" \\ back\n' * 50
    assert storage.put_append(agent, "s1", 0, text, T0, born=None)
    assert storage.appends(agent, "s1", 0, consistent=True)[0].text == text


def test_the_newest_append_is_the_one_at_the_highest_position(storage: TranscriptStorage, agent: str) -> None:
    assert storage.newest_append(agent, "s1") is None
    storage.put_append(agent, "s1", 0, "abc", T0, born=None)
    storage.put_append(agent, "s1", 3, "de", LATER, born=None)
    assert storage.newest_append(agent, "s1") == Span(3, 5, int(LATER.timestamp() * 1000))


def test_the_latest_appends_below_a_position_read_back_in_position_order(
    storage: TranscriptStorage, agent: str
) -> None:
    for start, text in ((0, "hello "), (6, "wide "), (11, "world")):
        assert storage.put_append(agent, "s1", start, text, T0, born=None)
    assert storage.latest_appends(agent, "s1", 0, 2) == []
    found = storage.latest_appends(agent, "s1", 16, 2)
    assert [(a.span.start, a.text) for a in found] == [(6, "wide "), (11, "world")]
    assert [a.text for a in storage.latest_appends(agent, "s1", 6, 2)] == ["hello "]
    assert storage.latest_appends(agent, "other", 16, 2) == []


def test_the_kind_of_a_redaction_open_at_an_appends_end_reads_back(
    storage: TranscriptStorage, agent: str
) -> None:
    assert storage.put_append(agent, "s1", 0, "key: [REDACTED:jwt]", T0, born=None, open_kind="jwt")
    assert storage.put_append(agent, "s1", 19, " done", T0, born=None)
    found = storage.appends(agent, "s1", 0, consistent=True)
    assert [a.open_kind for a in found] == ["jwt", None]
    assert [a.open_kind for a in storage.latest_appends(agent, "s1", 24, 2)] == ["jwt", None]


def test_an_append_is_rewritten_in_place_only_while_it_is_the_one_read(
    storage: TranscriptStorage, agent: str
) -> None:
    # Given an append read back, whose end a secret completed by the next delta turned out to hold
    assert storage.put_append(agent, "s1", 0, "echo ghp_abcdef", T0, born=None)
    read = storage.appends(agent, "s1", 0, consistent=True)[0]
    # When it is rewritten (same length) / Then the new text reads back where it was
    assert storage.replace_append(agent, "s1", read, "echo [REDACTED]")
    again = storage.appends(agent, "s1", 0, consistent=True)
    assert [(a.span, a.text) for a in again] == [(read.span, "echo [REDACTED]")]
    # and an append of a new incarnation at that position (written later) is not rewritten
    reborn = T0 + timedelta(days=10)
    assert storage.put_append(agent, "s1", 0, "fresh text here", reborn, born=reborn)
    assert not storage.replace_append(agent, "s1", read, "***************")
    assert storage.appends(agent, "s1", 0, consistent=True)[0].text == "fresh text here"
    assert not storage.replace_append(agent, "gone", read, "***************")


def test_a_rewrite_from_a_view_older_than_the_last_rewrite_is_refused(
    storage: TranscriptStorage, agent: str
) -> None:
    # Given an append read by two writers, and rewritten by the first
    assert storage.put_append(agent, "s1", 0, "echo ghp_abcdef ok", T0, born=None)
    read = storage.appends(agent, "s1", 0, consistent=True)[0]
    assert storage.replace_append(agent, "s1", read, "echo [REDACTED]*ok")
    # When the second rewrites from what it read before / Then it is refused: the first rewrite stays
    assert not storage.replace_append(agent, "s1", read, "echo ghp_abcdef ok")
    again = storage.appends(agent, "s1", 0, consistent=True)[0]
    assert again.text == "echo [REDACTED]*ok"
    # and a rewrite from the current view goes through
    assert storage.replace_append(agent, "s1", again, "**** [REDACTED]*ok")
    assert storage.appends(agent, "s1", 0, consistent=True)[0].text == "**** [REDACTED]*ok"


# -- chunks ----------------------------------------------------------------------------------------


def test_a_chunk_reads_back_until_deleted(storage: TranscriptStorage, agent: str) -> None:
    storage.put_chunk(agent, "s1", 0, "c0", "chunk text é")
    assert storage.get_chunk(agent, "s1", 0, "c0") == "chunk text é"
    storage.delete_chunk(agent, "s1", 0, "c0")
    with pytest.raises(TranscriptBodyMissingError):
        storage.get_chunk(agent, "s1", 0, "c0")


# -- the session index -----------------------------------------------------------------------------


def test_the_index_lists_a_projects_transcripts_newest_start_first_in_pages(
    storage: TranscriptStorage, agent: str
) -> None:
    for n in range(5):
        assert storage.start_head(agent, identity(f"s{n}"), T0 + timedelta(minutes=n))
    assert storage.start_head(agent, identity("elsewhere", project="/work/other"), T0)
    assert storage.start_head(agent, identity("no-project", project=None), T0)
    now = T0 + timedelta(hours=1)
    seen: list[str] = []
    token: str | None = None
    for _ in range(5):
        page, token = storage.session_index(agent, "/work/app", 2, token, None, now)
        assert len(page) <= 2
        seen += [s.session_key for s in page]
        if token is None:
            break
    assert seen == ["s4", "s3", "s2", "s1", "s0"]


def test_the_index_filters_by_harness(storage: TranscriptStorage, agent: str) -> None:
    storage.start_head(agent, identity("a", harness="codex"), T0)
    storage.start_head(agent, identity("b"), LATER)
    page, _ = storage.session_index(agent, "/work/app", 10, None, "codex", LATER)
    assert [s.session_key for s in page] == ["a"]


def test_the_index_leaves_out_expired_transcripts(storage: TranscriptStorage, agent: str) -> None:
    storage.start_head(agent, identity("old"), T0)
    fresh = T0 + RETENTION + timedelta(days=5)
    storage.start_head(agent, identity("new"), fresh)
    page, _ = storage.session_index(agent, "/work/app", 10, None, None, fresh)
    assert [s.session_key for s in page] == ["new"]


@pytest.mark.parametrize("token", ["garbage!", "eyJhIjogMX0"])
def test_a_token_not_handed_out_is_refused(storage: TranscriptStorage, agent: str, token: str) -> None:
    with pytest.raises(InvalidPageTokenError):
        storage.session_index(agent, "/work/app", 2, token, None, T0)


def test_a_token_of_another_project_is_refused(storage: TranscriptStorage, agent: str) -> None:
    for n in range(3):
        storage.start_head(agent, identity(f"s{n}"), T0 + timedelta(minutes=n))
    _, token = storage.session_index(agent, "/work/app", 1, None, None, LATER)
    assert token is not None
    with pytest.raises(InvalidPageTokenError):
        storage.session_index(agent, "/work/other", 1, token, None, LATER)
    with pytest.raises(InvalidPageTokenError):
        storage.session_index(agent + "-other", "/work/app", 1, token, None, LATER)


# -- the earlier layout ----------------------------------------------------------------------------


def seed_earlier_layout(storage: TranscriptStorage, agent: str, text: str) -> None:
    """A head as the earlier layout wrote it: its text inline (``parts``), nothing in chunks."""
    if isinstance(storage, InMemoryTranscriptStorage):
        head = TranscriptHead(
            session_key="old", harness="claude-code", created_at=T0, updated_at=T0, length=len(text)
        )
        storage.seed_head(agent, head.model_copy(update={"inline": text}), T0)
        return
    from continuity_core.kernel.aws import client
    from continuity_core.transcripts.dynamo_transcripts import DynamoTranscriptStorage
    from tests.support.earlier_layout import earlier_layout_head

    assert isinstance(storage, DynamoTranscriptStorage)
    table = storage._table
    client("dynamodb").put_item(TableName=table, Item=earlier_layout_head(agent, "old", text, T0))


def test_a_head_of_the_earlier_layout_reads_its_text_as_inline_until_a_chunk_takes_it(
    storage: TranscriptStorage, agent: str
) -> None:
    seed_earlier_layout(storage, agent, "old text here")
    head = storage.head(agent, "old", T0, consistent=True)
    assert head is not None and (head.inline, head.length, head.flushed) == ("old text here", 13, 0)
    mover = SessionIdentity(session_key="old", harness="claude-code")
    assert storage.update_head(agent, mover, head, 20, LATER, ChunkMove("c0", 13))
    moved = storage.head(agent, "old", LATER, consistent=True)
    assert moved is not None and (moved.inline, moved.flushed, moved.chunk_ends) == ("", 13, [13])


def test_appends_are_stored_with_the_dictionary_and_ones_written_before_still_read(
    request: pytest.FixtureRequest, agent: str
) -> None:
    # DynamoDB only: how an append holds its text (each append's write is billed by its size).
    import zlib

    from continuity_core.kernel.aws import client
    from continuity_core.kernel.dynamo_items import TEXT_DICTIONARY_V1, item_key, session_pk
    from continuity_core.transcripts.dynamo_transcripts import DynamoTranscriptStorage, append_sk
    from continuity_core.transcripts.s3_bodies import S3BodyStore

    table = table_name(request)
    storage = DynamoTranscriptStorage(table, S3BodyStore(bucket_name(request)), RETENTION)
    text = (
        "User: the upload times out behind the proxy\n\nTool Bash: pytest tests/unit -q\n"
        "Result: 2 failed, 40 passed in 1.20s\n\nAssistant: The retry wraps the wrong call; I'll move it.\n\n"
    ) * 4
    assert storage.put_append(agent, "s1", 0, text, T0, born=None)
    stored = client("dynamodb").get_item(TableName=table, Key=item_key(session_pk(agent, "s1"), append_sk(0)))
    packed = bytes(stored["Item"]["z"]["B"])
    assert packed[0] == TEXT_DICTIONARY_V1 and len(packed) < len(zlib.compress(text.encode(), 6))
    # Given an append the version before stored with zlib alone
    earlier = "Assistant: written before the dictionary — naïve café\n\n"
    client("dynamodb").put_item(
        TableName=table,
        Item={
            **item_key(session_pk(agent, "s1"), append_sk(len(text))),
            "end": {"N": str(len(text) + len(earlier))},
            "at": {"N": "1"},
            "z": {"B": zlib.compress(earlier.encode(), 6)},
        },
    )
    # Then both read back, in order
    assert [a.text for a in storage.appends(agent, "s1", 0, consistent=True)] == [text, earlier]


def test_a_long_text_round_trips_and_a_cut_one_is_refused() -> None:
    import zlib

    from continuity_core.kernel.dynamo_items import compress_text, decompress_text

    for text in ("", "p", "fix the flaky test in tests/unit/test_api.py — 日本語 too\n", "x" * 100_000):
        assert decompress_text(compress_text(text)) == text
    with pytest.raises(zlib.error):
        decompress_text(compress_text("a text long enough to be cut " * 20)[:-5])
