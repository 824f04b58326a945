"""The StateStore contract: the in-memory fake and DynamoDB (moto) behave alike."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest

from continuity_core.hooks.dynamo_state import MAX_HOOK_KEYS
from continuity_core.hooks.ports import DuplicateHookError, PromptRecord
from continuity_core.models.state import FLUSH_WHEN_PENDING, SessionIdentity
from tests.contract.conftest import T0, StoreSet
from tests.fakes.stores import RETENTION
from tests.support.clock import Clock

LATER = T0 + timedelta(minutes=5)


def me(
    session: str = "s1", harness: str = "claude-code", project: str | None = "/work/app"
) -> SessionIdentity:
    return SessionIdentity(session_key=session, harness=harness, project=project, project_normalized=project)


def prompt(
    snippet: str = "p", key: str | None = None, end: int | None = None, tokens: int | None = None
) -> PromptRecord:
    return PromptRecord(snippet=snippet, idempotency_key=key, transcript_end=end, context_tokens=tokens)


def test_a_session_keeps_the_identity_and_start_of_its_first_hook(stores: StoreSet, agent: str) -> None:
    stores.states.touch(agent, me(project=None), T0)
    state = stores.states.touch(agent, me(harness="codex", project="/work/other"), LATER)
    assert (state.harness, state.project, state.project_normalized) == (
        "claude-code",
        "/work/other",
        "/work/other",
    )
    assert (state.started_at, state.last_activity_at) == (T0, LATER)
    assert stores.states.get(agent, "s1") == state


def test_a_session_keeps_where_it_runs_from_its_first_hook_that_says(stores: StoreSet, agent: str) -> None:
    # Given a session whose first hook came from an older client (no origin), then hooks that say
    origin = {"project_path": "/home/ana/shop", "branch": "fix/refunds", "machine_id": "a" * 32}
    stores.states.touch(agent, me(project="github.com/acme/shop"), T0)
    stores.states.touch(
        agent, me().model_copy(update=origin | {"machine_name": "ana-laptop", "user": "ana"}), T0
    )
    state = stores.states.touch(agent, me().model_copy(update={"branch": "main", "machine_name": "x"}), LATER)

    # Then the first values stay, as its identity does
    assert (state.project_path, state.branch, state.machine_id) == tuple(origin.values())
    assert (state.machine_name, state.user) == ("ana-laptop", "ana")
    assert stores.states.get(agent, "s1") == state


def test_a_prompt_is_counted_with_its_snippet_and_moves_the_version(stores: StoreSet, agent: str) -> None:
    first = stores.states.record_prompt(agent, me(), prompt("one"), T0)
    second = stores.states.record_prompt(agent, me(), prompt("two"), LATER)
    assert (second.total_prompts, second.prompts_since_checkpoint) == (2, 2)
    assert second.pending_snippets == ["one", "two"]
    assert second.version == first.version + 1


def test_a_replayed_idempotency_key_is_refused_and_counts_nothing(stores: StoreSet, agent: str) -> None:
    stores.states.record_prompt(agent, me(), prompt("one", key="k1"), T0)
    with pytest.raises(DuplicateHookError):
        stores.states.record_prompt(agent, me(), prompt("one", key="k1"), LATER)
    with pytest.raises(DuplicateHookError):
        stores.states.record_remember(agent, me(), "note", LATER, idempotency_key="k1")
    state = stores.states.get(agent, "s1")
    assert state is not None
    assert (state.total_prompts, state.pending_snippets, state.pending_remembers) == (1, ["one"], [])


def keyed(key: str, body: str | None, snippet: str = "p") -> PromptRecord:
    return PromptRecord(snippet=snippet, idempotency_key=key, body_fingerprint=body)


def replay_of(stores: StoreSet, agent: str, record: PromptRecord) -> bool | None:
    with pytest.raises(DuplicateHookError) as refused:
        stores.states.record_prompt(agent, me(), record, LATER)
    return refused.value.same_body


def test_a_key_sent_again_with_its_first_body_is_a_replay(stores: StoreSet, agent: str) -> None:
    first = stores.states.record_prompt(agent, me(), keyed("k1", "body-a", "one"), T0)
    assert replay_of(stores, agent, keyed("k1", "body-a", "one")) is True
    assert stores.states.get(agent, "s1") == first


def test_a_key_sent_again_with_another_body_says_so_and_changes_nothing(stores: StoreSet, agent: str) -> None:
    first = stores.states.record_prompt(agent, me(), keyed("k1", "body-a", "one"), T0)
    stores.states.record_prompt(agent, me(), keyed("k2", "body-b", "two"), T0)
    held = stores.states.get(agent, "s1")

    assert replay_of(stores, agent, keyed("k1", "body-other", "other")) is False
    with pytest.raises(DuplicateHookError) as remembered:
        stores.states.record_remember(agent, me(), "note", LATER, idempotency_key="k2", body_fingerprint="x")
    assert remembered.value.same_body is False
    assert stores.states.get(agent, "s1") == held
    assert held is not None and (held.total_prompts, held.pending_snippets) == (2, ["one", "two"])
    assert first.version < held.version


def test_a_key_stored_without_a_body_is_a_replay_whatever_the_body(stores: StoreSet, agent: str) -> None:
    # A state written before body fingerprints holds its keys alone: a resend is taken for a replay.
    stores.states.record_prompt(agent, me(), keyed("old", None), T0)
    stores.states.record_prompt(agent, me(), keyed("new", "body-n"), T0)
    assert replay_of(stores, agent, keyed("old", "body-a")) is None
    assert replay_of(stores, agent, keyed("new", "body-n")) is True


def test_the_newest_keys_keep_their_bodies_past_the_trim(stores: StoreSet, agent: str) -> None:
    for n in range(140):
        stores.states.record_prompt(agent, me(), keyed(f"k{n}", f"body-{n}"), T0)
    assert replay_of(stores, agent, keyed("k139", "body-139")) is True
    assert replay_of(stores, agent, keyed("k139", "body-0")) is False
    oldest_kept = 140 - MAX_HOOK_KEYS  # at least the newest MAX_HOOK_KEYS hooks are kept
    assert replay_of(stores, agent, keyed(f"k{oldest_kept}", "body-x")) is False
    state = stores.states.get(agent, "s1")
    assert state is not None and state.total_prompts == 140


def test_a_prompt_sets_the_transcript_hint_and_returns_where_it_ended_before(
    stores: StoreSet, agent: str
) -> None:
    first = stores.states.record_prompt(agent, me(), prompt(end=10), T0)
    second = stores.states.record_prompt(agent, me(), prompt(end=25), LATER)
    untouched = stores.states.record_prompt(agent, me(), prompt(), LATER)
    assert (first.transcript_prev_end, first.transcript_end) == (-1, 10)
    assert (second.transcript_prev_end, second.transcript_end) == (10, 25)
    assert untouched.transcript_end == 25


def test_the_hint_correction_sets_both_ends_and_the_head_time_but_never_creates_a_state(
    stores: StoreSet, agent: str
) -> None:
    stores.states.record_prompt(agent, me(), prompt(end=10), T0)
    stores.states.set_transcript_hint(agent, "s1", 40, head_written_at=LATER)
    stores.states.set_transcript_hint(agent, "nobody", 40, head_written_at=LATER)
    state = stores.states.get(agent, "s1")
    assert state is not None
    assert (state.transcript_prev_end, state.transcript_end, state.transcript_head_at) == (40, 40, LATER)
    assert stores.states.get(agent, "nobody") is None


def test_the_context_size_stays_when_a_prompt_reports_none(stores: StoreSet, agent: str) -> None:
    stores.states.record_prompt(agent, me(), prompt(tokens=50_000), T0)
    assert stores.states.record_prompt(agent, me(), prompt(), LATER).context_tokens == 50_000


def test_a_remember_is_kept_pending_and_a_digest_is_counted(stores: StoreSet, agent: str) -> None:
    stores.states.record_remember(agent, me(), "use uv", T0)
    state = stores.states.record_digest(agent, me(), LATER)
    assert state.pending_remembers == ["use uv"] and state.pending_remember_at == [T0]
    assert (state.checkpoints_written, state.last_digest_at) == (1, LATER)


def test_the_pending_lists_keep_every_prompt_and_remember_in_order(stores: StoreSet, agent: str) -> None:
    # Bounded by the hook path checkpointing a full list (hooks/ingest.py), never cut by the store.
    for n in range(FLUSH_WHEN_PENDING + 5):
        state = stores.states.record_prompt(agent, me(), prompt(f"p{n}"), T0)
        state = stores.states.record_remember(agent, me(), f"r{n}", T0)
    assert state.is_full
    assert state.pending_snippets == [f"p{n}" for n in range(FLUSH_WHEN_PENDING + 5)]
    assert state.pending_remembers == [f"r{n}" for n in range(FLUSH_WHEN_PENDING + 5)]


def test_one_flush_is_claimed_at_a_time_until_released_or_stale(stores: StoreSet, agent: str) -> None:
    stores.states.record_prompt(agent, me(), prompt(), T0)
    assert stores.states.claim_flush(agent, "s1", "t1", T0, stale_before=T0 - timedelta(minutes=5))
    assert not stores.states.claim_flush(agent, "s1", "t2", LATER, stale_before=T0 - timedelta(minutes=5))
    stores.states.release_flush(agent, "s1", "not-mine")
    state = stores.states.get(agent, "s1")
    assert state is not None and (state.flush_token, state.flush_requested_at) == ("t1", T0)
    # a claim older than ``stale_before`` is presumed lost: it can be taken over
    assert stores.states.claim_flush(agent, "s1", "t3", LATER, stale_before=T0 + timedelta(seconds=1))
    stores.states.release_flush(agent, "s1", "t3")
    state = stores.states.get(agent, "s1")
    assert state is not None and (state.flush_token, state.flush_requested_at) == (None, None)


def test_a_prompt_arms_the_next_flush_only_when_none_is_set_and_a_claim_takes_it_over(
    stores: StoreSet, agent: str
) -> None:
    armed = stores.states.record_prompt(agent, me(), replace(prompt("one"), flush_token="a1"), T0)
    again = stores.states.record_prompt(agent, me(), replace(prompt("two"), flush_token="a2"), T0)
    assert (armed.flush_token, again.flush_token, again.flush_requested_at) == ("a1", "a1", None)
    # an armed token has no request time: a claim takes it over
    assert stores.states.claim_flush(agent, "s1", "t1", LATER, stale_before=T0 - timedelta(minutes=5))
    state = stores.states.record_prompt(agent, me(), replace(prompt("three"), flush_token="a3"), LATER)
    assert (state.flush_token, state.flush_requested_at) == ("t1", LATER)


def test_a_replayed_prompt_arms_nothing(stores: StoreSet, agent: str) -> None:
    stores.states.record_prompt(agent, me(), PromptRecord("one", idempotency_key="k1"), T0)
    with pytest.raises(DuplicateHookError):
        stores.states.record_prompt(
            agent, me(), PromptRecord("one", idempotency_key="k1", flush_token="a1"), LATER
        )
    state = stores.states.get(agent, "s1")
    assert state is not None and state.flush_token is None


def test_ending_a_session_drops_what_is_pending(stores: StoreSet, agent: str) -> None:
    stores.states.record_prompt(agent, me(), prompt("one"), T0)
    stores.states.record_remember(agent, me(), "note", T0)
    stores.states.claim_flush(agent, "s1", "t1", T0, stale_before=T0)
    stores.states.end_session(agent, "s1", LATER)
    stores.states.end_session(agent, "nobody", LATER)
    state = stores.states.get(agent, "s1")
    assert state is not None
    assert (state.prompts_since_checkpoint, state.pending_snippets, state.pending_remembers) == (0, [], [])
    assert (state.ended_at, state.flush_token, state.total_prompts) == (LATER, None, 1)
    assert stores.states.get(agent, "nobody") is None


def test_the_nudge_flag_flips_once_each_way(stores: StoreSet, agent: str) -> None:
    stores.states.record_prompt(agent, me(), prompt(), T0)
    assert stores.states.set_nudged(agent, "s1", True, T0)
    assert not stores.states.set_nudged(agent, "s1", True, T0)
    assert stores.states.set_nudged(agent, "s1", False, LATER)
    assert not stores.states.set_nudged(agent, "s1", False, LATER)
    state = stores.states.get(agent, "s1")
    assert state is not None and (state.nudged, state.nudge_armed_at) == (False, LATER)


def test_a_state_past_its_ttl_reads_as_none(stores: StoreSet, agent: str, clock: Clock) -> None:
    stores.states.touch(agent, me(), T0)
    stores.states.touch(agent, me("fresh"), T0 + RETENTION)
    clock.now = T0 + RETENTION + timedelta(days=2)
    assert stores.states.get(agent, "s1") is None
    assert set(stores.states.get_many(agent, ["s1", "fresh", "nobody"])) == {"fresh"}


def test_states_are_per_tenant(stores: StoreSet, agent: str) -> None:
    stores.states.touch(agent, me(), T0)
    assert stores.states.get(agent + "-other", "s1") is None
    assert stores.states.get_many(agent + "-other", ["s1"]) == {}


def test_a_start_keeps_the_links_it_followed_on_the_state(stores: StoreSet, agent: str, clock: Clock) -> None:
    from continuity_core.hooks.ports import SessionLinks

    identity = SessionIdentity(
        session_key="after", harness="claude-code", project="/p", project_normalized="/p"
    )
    links = SessionLinks(continued_from="before", continued_found_by="/clear", parent_session_key=None)
    stores.states.touch(agent, identity, clock(), links)
    stores.states.touch(agent, identity, clock())  # a later start with no link keeps them
    state = stores.states.get(agent, "after")
    assert state is not None
    assert (state.continued_from, state.continued_found_by, state.parent_session_key) == (
        "before",
        "/clear",
        None,
    )


def test_compactions_and_sub_agents_are_counted_by_the_write_that_marks_activity(
    stores: StoreSet, agent: str
) -> None:
    from continuity_core.models.state import Tally

    stores.states.touch(agent, me(), T0, tally=Tally.COMPACTIONS)
    stores.states.record_prompt(agent, me(), PromptRecord("after it", compacted=True), T0)
    stores.states.record_prompt(agent, me(), prompt("plain"), T0)
    stores.states.touch(agent, me(), LATER, tally=Tally.SUBAGENTS)
    state = stores.states.touch(agent, me(), LATER)
    assert (state.compactions, state.subagents, state.total_prompts) == (2, 1, 2)


def test_a_projects_sessions_are_paged_newest_start_first_transcript_or_not(
    stores: StoreSet, agent: str
) -> None:
    for n in range(3):
        stores.states.touch(agent, me(f"s{n}"), T0 + timedelta(minutes=n))
    stores.states.touch(agent, me("s0"), LATER + timedelta(minutes=9))  # activity moves no session up
    stores.states.touch(agent, me("elsewhere", project="/work/other"), LATER)
    stores.states.touch(agent, me("no-project", project=None), LATER)

    first, token = stores.states.in_project(agent, "/work/app", 2)
    rest, last = stores.states.in_project(agent, "/work/app", 2, token)

    assert [s.session_key for s in first] == ["s2", "s1"] and token is not None
    assert [s.session_key for s in rest] == ["s0"] and last is None
    assert rest[0].last_activity_at == LATER + timedelta(minutes=9)
    assert [s.session_key for s in stores.states.in_project(agent, "/work/other", 5)[0]] == ["elsewhere"]
    assert stores.states.in_project(agent + "-other", "/work/app", 5) == ([], None)


def test_a_projects_sessions_filter_by_harness_and_refuse_a_token_of_another_listing(
    stores: StoreSet, agent: str
) -> None:
    from continuity_core.kernel.errors import InvalidPageTokenError

    stores.states.touch(agent, me("c1"), T0)
    stores.states.touch(agent, me("x1", harness="codex"), LATER)
    stores.states.touch(agent, me("c2"), LATER + timedelta(minutes=1))
    _, token = stores.states.in_project(agent, "/work/app", 1)

    codex, _ = stores.states.in_project(agent, "/work/app", 10, harness="codex")

    assert [s.session_key for s in codex] == ["x1"]
    assert token is not None
    with pytest.raises(InvalidPageTokenError):
        stores.states.in_project(agent, "/work/other", 1, token)
    with pytest.raises(InvalidPageTokenError):
        stores.states.in_project(agent + "-other", "/work/app", 1, token)


def test_snippets_are_stored_compressed_and_plain_ones_written_before_still_read(
    request: pytest.FixtureRequest, agent: str
) -> None:
    # DynamoDB only: how the item holds the snippets (each prompt's write is billed by its size).
    from continuity_core.hooks.dynamo_state import DynamoStateStore
    from continuity_core.kernel.aws import client
    from continuity_core.kernel.dynamo_items import item_key, session_pk
    from continuity_core.kernel.names import STATE_SK
    from tests.contract.conftest import table_name

    table = table_name(request)
    store = DynamoStateStore(table, ttl=RETENTION, clock=Clock(T0))
    text = (
        "the upload to señal_café.md times out behind the proxy — make the payment mock deterministic " * 3
    )[:200]
    store.record_prompt(agent, me(), prompt(text), T0)
    key = item_key(session_pk(agent, "s1"), STATE_SK)
    stored = client("dynamodb").get_item(TableName=table, Key=key)["Item"]["pending_snippets"]["L"]
    assert list(stored[0]) == ["B"] and len(stored[0]["B"]) < 0.8 * len(text.encode())
    # Given a snippet the version before stored as plain text, ahead of the compressed one
    client("dynamodb").update_item(
        TableName=table,
        Key=key,
        UpdateExpression="SET pending_snippets = list_append(:old, pending_snippets)",
        ExpressionAttributeValues={":old": {"L": [{"S": "written before"}]}},
    )
    # Then both read back, in order, with the next prompt's
    state = store.record_prompt(agent, me(), prompt("two"), LATER)
    assert state.pending_snippets == ["written before", text, "two"]
    assert store.get(agent, "s1") == state


def test_a_short_text_round_trips_and_an_unknown_encoding_is_refused() -> None:
    from continuity_core.kernel.dynamo_items import compress_short_text, decompress_short_text

    for text in ("", "p", "fix the flaky test in tests/unit/test_api.py — 日本語 too", "x" * 5000):
        assert decompress_short_text(compress_short_text(text)) == text
    with pytest.raises(ValueError):
        decompress_short_text(b"\x02" + compress_short_text("p")[1:])


def test_each_project_is_listed_once_with_its_sessions_harnesses_and_newest_start(
    stores: StoreSet, agent: str
) -> None:
    # Given two sessions in one project (two harnesses, one touched twice) and one in another
    stores.states.touch(agent, me("s1"), T0)
    stores.states.touch(agent, me("s1"), T0 + timedelta(minutes=1))  # not a new session
    stores.states.touch(agent, me("x1", harness="codex"), LATER)
    stores.states.touch(agent, me("o1", project="/work/other"), T0)
    stores.states.touch(agent, me("nowhere", project=None), LATER)

    # When the agent's projects are listed
    found = {p.project_normalized: p for p in stores.states.projects(agent, 100)}

    # Then each shows once, counting sessions started, with their harnesses and the newest start
    assert set(found) == {"/work/app", "/work/other"}
    app = found["/work/app"]
    assert (app.sessions, app.harnesses, app.last_session_key) == (2, ["claude-code", "codex"], "x1")
    assert (app.first_seen, app.last_session_at, app.project) == (T0, LATER, "/work/app")
    assert found["/work/other"].sessions == 1
    assert stores.states.projects(agent + "-other", 100) == []


def test_a_projects_machines_are_their_names_else_their_ids(stores: StoreSet, agent: str) -> None:
    # Given sessions of one project on a named machine (twice), an unnamed one, and an older client's
    laptop = {"machine_id": "a" * 32, "machine_name": "ana-laptop"}
    stores.states.touch(agent, me("s1").model_copy(update=laptop), T0)
    stores.states.touch(agent, me("s2", harness="codex").model_copy(update=laptop), T0)
    stores.states.touch(agent, me("s3").model_copy(update={"machine_id": "b" * 32}), LATER)
    stores.states.touch(agent, me("s4"), LATER)

    # When the agent's projects are listed
    [app] = stores.states.projects(agent, 100)

    # Then the project shows each machine once, by the name its user set, else by its id
    assert app.machines == ["ana-laptop", "b" * 32]
    assert (app.sessions, app.open_handoffs) == (4, 0)
