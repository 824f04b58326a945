"""DigestService, TieredRecovery and TokenService on in-memory stores (tests/fakes, tests/contract)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from continuity_core.admin.tokens import (
    BOOTSTRAP_ID,
    DEFAULT_AGENT,
    ForeignAgentError,
    TenantExistsError,
    TenantService,
    TokenService,
    token_sha256,
)
from continuity_core.checkpoints.agent_digests import DigestService, UnknownProjectError
from continuity_core.checkpoints.writer import CheckpointWriter
from continuity_core.extraction.terms import snippet
from continuity_core.hooks.ports import PromptRecord
from continuity_core.kernel.config import load_config
from continuity_core.models.checkpoint_trigger import CheckpointTrigger
from continuity_core.models.digest import DigestRequest
from continuity_core.models.scopes import Scope
from continuity_core.models.session_digest import FactKind
from continuity_core.models.state import SessionIdentity
from continuity_core.models.tokens import CreateTokenRequest
from continuity_core.recovery.tiers import LEVEL_LIMITS, NothingToRecoverError, TieredRecovery
from tests.fakes.stores import Stores
from tests.support.clock import Clock
from tests.unit.conftest import T0

AGENT = "default"
PROJECT = "/work/app"
ME = SessionIdentity(session_key="s1", harness="claude-code", project=PROJECT, project_normalized=PROJECT)


def digests(stores: Stores, clock: Clock, **config: Any) -> DigestService:
    return DigestService(stores.states, stores.checkpoints, stores.ledger, load_config(config), clock)


def request(summary: str = "Froze time in the payment mock.", *decisions: str, **extra: Any) -> DigestRequest:
    return DigestRequest(
        summary=summary,
        decisions=[{"decision": d, "rationale": f"because of {d}"} for d in decisions],
        next_steps=["Run the suite 20 times"],
        **extra,
    )


def periodic_checkpoint(stores: Stores, clock: Clock, *prompts: str) -> None:
    for text in prompts:
        clock.now += timedelta(seconds=1)
        stores.states.record_prompt(AGENT, ME, PromptRecord(text), clock())
    CheckpointWriter(stores.states, stores.checkpoints, load_config({}), clock).flush(AGENT, "s1")


# -- the agent's digest ----------------------------------------------------------------------------


def test_a_digest_is_an_agent_checkpoint_and_its_decisions_enter_the_ledger_in_order(
    stores: Stores, clock: Clock
) -> None:
    stores.states.touch(AGENT, ME, clock())
    checkpoint = digests(stores, clock).write(AGENT, "s1", request("summary", "first", "second", "third"))
    assert (checkpoint.trigger, checkpoint.project_normalized) == (CheckpointTrigger.AGENT, PROJECT)
    assert checkpoint.next_steps == ["Run the suite 20 times"]
    page = stores.ledger.page(AGENT, PROJECT, 10)
    assert [e.decision for e in page.entries] == ["third", "second", "first"]  # newest first


def test_a_digest_merges_into_the_sessions_rolling_digest(stores: Stores, clock: Clock) -> None:
    # Given a periodic checkpoint whose digest holds the user's rule
    periodic_checkpoint(stores, clock, "never use the production database in tests")
    # When the agent writes its digest
    clock.now += timedelta(minutes=1)
    checkpoint = digests(stores, clock).write(
        AGENT, "s1", request("Moved tests to the fixture db.", "use sqlite")
    )
    # Then the digest it carries has both the rule seen before and the agent's decision
    rolled = checkpoint.session_digest
    assert rolled is not None
    texts = [fact.text for fact in rolled.facts]
    assert any("production database" in text for text in texts)
    assert "use sqlite" in [fact.text for fact in rolled.of(FactKind.DECISION)]


def test_a_digest_for_an_unseen_session_needs_a_project(stores: Stores, clock: Clock) -> None:
    with pytest.raises(UnknownProjectError):
        digests(stores, clock).write(AGENT, "unseen", request())
    checkpoint = digests(stores, clock).write(AGENT, "unseen", request(project="/work/./app/"))
    assert checkpoint.project_normalized == PROJECT
    assert stores.states.get(AGENT, "unseen") is not None


def test_a_secret_in_a_digest_is_redacted_before_it_is_stored(stores: Stores, clock: Clock) -> None:
    secret = "AKIAIOSFODNN7EXAMPLE"
    stores.states.touch(AGENT, ME, clock())
    digests(stores, clock).write(AGENT, "s1", request(f"rotated the key {secret}", f"revoke {secret}"))
    stored = stores.checkpoints.latest_for_session(AGENT, "s1")
    assert stored is not None and secret not in stored.model_dump_json()
    assert secret not in stores.ledger.page(AGENT, PROJECT, 10).model_dump_json()


def test_a_digest_sent_again_with_its_key_is_stored_once(stores: Stores, clock: Clock) -> None:
    # Given a digest that was stored, but whose answer the agent never got (a cut connection)
    stores.states.touch(AGENT, ME, clock())
    sent = request("summary", "use sqlite", "keep the mock", idempotency_key="k-1")
    first = digests(stores, clock).write(AGENT, "s1", sent)

    # When the same digest is sent again with the same key
    clock.now += timedelta(seconds=5)
    again = digests(stores, clock).write(AGENT, "s1", sent)

    # Then the answer is the checkpoint stored first, and nothing is stored twice
    assert again == first
    assert [c.id for c in stores.checkpoints.recent_for_session(AGENT, "s1", 10)] == [first.id]
    assert [e.decision for e in stores.ledger.page(AGENT, PROJECT, 10).entries] == [
        "keep the mock",
        "use sqlite",
    ]
    state = stores.states.get(AGENT, "s1")
    assert state is not None and state.checkpoints_written == 1


def test_a_digest_whose_ledger_write_failed_gets_its_decisions_when_sent_again(
    stores: Stores, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a digest whose checkpoint was stored but whose ledger write failed (a 503 to the agent)
    stores.states.touch(AGENT, ME, clock())
    sent = request("summary", "use sqlite", "keep the mock", idempotency_key="k-2")
    append = stores.ledger.append

    def unavailable(*args: Any) -> None:
        raise RuntimeError("503")

    monkeypatch.setattr(stores.ledger, "append", unavailable)
    with pytest.raises(RuntimeError):
        digests(stores, clock).write(AGENT, "s1", sent)
    monkeypatch.setattr(stores.ledger, "append", append)

    # When the agent sends it again
    digests(stores, clock).write(AGENT, "s1", sent)

    # Then the ledger holds its decisions once, in order, and the session one checkpoint
    assert [e.decision for e in stores.ledger.page(AGENT, PROJECT, 10).entries] == [
        "keep the mock",
        "use sqlite",
    ]
    assert len(stores.checkpoints.recent_for_session(AGENT, "s1", 10)) == 1


def test_digests_with_different_keys_or_none_are_each_stored(stores: Stores, clock: Clock) -> None:
    stores.states.touch(AGENT, ME, clock())
    service = digests(stores, clock)
    for key in ("k-a", "k-b", None, None):
        clock.now += timedelta(seconds=1)
        service.write(AGENT, "s1", request("summary", "use sqlite", idempotency_key=key))

    assert len(stores.checkpoints.recent_for_session(AGENT, "s1", 10)) == 4


# -- tiered recovery -------------------------------------------------------------------------------


def tiers(stores: Stores, clock: Clock) -> TieredRecovery:
    return TieredRecovery(stores.checkpoints, stores.ledger, clock)


def test_the_levels_grow_within_their_sizes(stores: Stores, clock: Clock) -> None:
    periodic_checkpoint(stores, clock, *(f"step {n}: tune the retry window" for n in range(10)))
    service = digests(stores, clock)
    for n in range(12):
        clock.now += timedelta(seconds=1)
        service.write(AGENT, "s1", request("decided", f"decision number {n} about the retry window"))
    clock.now += timedelta(seconds=1)
    service.write(AGENT, "s1", request("Froze time in the payment mock.", "Freeze time in the payment mock"))
    one, two, three = (
        tiers(stores, clock).recover(AGENT, level, PROJECT, query="retry window").text for level in (1, 2, 3)
    )
    assert len(one) <= LEVEL_LIMITS[1] and len(two) <= LEVEL_LIMITS[2]
    # Level 1: the briefing's first three sections (the last instruction and the agent's planned next)
    assert "### Next\n> step 9: tune the retry window\n" in one
    assert "- Planned next (prompt 10): Run the suite 20 times" in one
    assert "### Decisions" not in one
    # Level 2: the whole briefing (its decisions, the newest first) and the search hits
    decisions = two.split("### Decisions\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert decisions[0] == "- Freeze time in the payment mock (prompt 10)"
    assert "- decision number 11 about the retry window (prompt 10)" in decisions
    assert "### Search: retry window" in two
    assert "### Every checkpoint of session s1" in three and "decision number 0 about" in three
    assert len(three) > len(two) > len(one)


def _session_with_every_kind(stores: Stores, clock: Clock) -> None:
    periodic_checkpoint(
        stores,
        clock,
        "Never push to main without review.",
        "We decided to use Postgres for the event store.",
        "The flaky test was caused by a race in the retry timer.",
        "Should we keep the v1 endpoint alive?",
        "Now edit src/store/events.py and add the index.",
    )


def test_level_one_is_the_briefings_first_three_sections_within_its_limit(
    stores: Stores, clock: Clock
) -> None:
    _session_with_every_kind(stores, clock)
    one, two = (tiers(stores, clock).recover(AGENT, n, PROJECT, session_key="s1").text for n in (1, 2))
    assert len(one) <= LEVEL_LIMITS[1]
    # Where things stand, next (the last instruction quoted) and the rules in force, nothing else
    assert "### Where things stand\n- Found: The flaky test was caused by a race in the retry timer." in one
    assert "### Next\n> Now edit src/store/events.py and add the index.\n" in one
    assert "### Rules in force\n- Never push to main without review. (prompt 1)" in one
    assert "### Decisions" not in one and "### Open" not in one and "### Files" not in one
    # The decision and the open question are level 2's
    assert "### Decisions\n- We decided to use Postgres for the event store. (prompt 2)" in two
    assert "### Open\n- Should we keep the v1 endpoint alive? (prompt 4)" in two


def test_level_two_adds_decisions_and_files_and_labels_where_decisions_come_from(
    stores: Stores, clock: Clock
) -> None:
    _session_with_every_kind(stores, clock)
    clock.now += timedelta(seconds=1)
    digests(stores, clock).write(AGENT, "s1", request("done", "Keep the v1 endpoint for a month"))
    one, two = (tiers(stores, clock).recover(AGENT, n, PROJECT, session_key="s1").text for n in (1, 2))
    assert len(two) <= LEVEL_LIMITS[2] and two != one
    assert "- Found: The flaky test was caused by a race in the retry timer." in two
    assert "### Files\n- `src/store/events.py`" in two
    decisions = two.split("### Decisions\n", 1)[1].split("\n\n", 1)[0]
    assert "- Keep the v1 endpoint for a month (prompt 5)" in decisions
    assert "- We decided to use Postgres for the event store. (prompt 2)" in decisions


def test_level_one_after_an_agent_digest_alone_has_its_summary_and_next_steps(
    stores: Stores, clock: Clock
) -> None:
    # Given a session whose only checkpoint is the agent's digest (no prompt checkpointed before it)
    stores.states.touch(AGENT, ME, clock())
    digests(stores, clock).write(AGENT, "s1", request("Froze time in the payment mock.", "Freeze time"))
    one = tiers(stores, clock).recover(AGENT, 1, PROJECT, session_key="s1").text
    # Then level 1 says where things stand (the agent's summary) and what it planned next
    assert "### Where things stand\n- Froze time in the payment mock." in one
    assert "### Next\n- Planned next: Run the suite 20 times" in one


def test_a_long_last_instruction_says_it_was_truncated(stores: Stores, clock: Clock) -> None:
    # Given the prompt as the hook keeps it (its first 200 characters, the cut marked "…")
    kept = snippet("Rewrite the parser so that " + "it keeps every token " * 99)
    assert kept is not None
    periodic_checkpoint(stores, clock, kept)
    one, two = (tiers(stores, clock).recover(AGENT, n, PROJECT, session_key="s1").text for n in (1, 2))
    assert len(one) <= LEVEL_LIMITS[1] and "### Next\n> Rewrite the parser" in one
    assert "[truncated]" in one and "[truncated]" in two


def test_the_asked_sessions_checkpoint_comes_before_the_projects_newer_one(
    stores: Stores, clock: Clock
) -> None:
    periodic_checkpoint(stores, clock, "mine")
    other = SessionIdentity(
        session_key="s2", harness="claude-code", project=PROJECT, project_normalized=PROJECT
    )
    clock.now += timedelta(minutes=1)
    stores.states.record_prompt(AGENT, other, PromptRecord("theirs"), clock())
    CheckpointWriter(stores.states, stores.checkpoints, load_config({}), clock).flush(AGENT, "s2")
    assert tiers(stores, clock).recover(AGENT, 1, PROJECT, session_key="s1").session_key == "s1"
    assert tiers(stores, clock).recover(AGENT, 1, PROJECT, session_key="unknown").session_key == "s2"


def test_nothing_stored_is_nothing_to_recover(stores: Stores, clock: Clock) -> None:
    with pytest.raises(NothingToRecoverError):
        tiers(stores, clock).recover(AGENT, 1, PROJECT)


# -- tokens ----------------------------------------------------------------------------------------


def tokens(stores: Stores, clock: Clock, bootstrap: str | None = None) -> TokenService:
    return TokenService(stores.tokens, clock, bootstrap)


def test_a_token_is_shown_once_and_stored_only_as_its_hash(stores: Stores, clock: Clock) -> None:
    created = tokens(stores, clock).create("alice", CreateTokenRequest(scopes=[Scope.HOOKS]))
    [stored] = stores.tokens.for_agent("alice")
    assert stored.token_sha256 == token_sha256(created.token)
    assert created.token not in stored.model_dump_json()
    record = tokens(stores, clock).authorize(created.token)
    assert record is not None and (record.agent_id, record.scopes) == ("alice", [Scope.HOOKS])


def test_a_token_works_until_it_expires(stores: Stores, clock: Clock) -> None:
    service = tokens(stores, clock)
    created = service.create("alice", CreateTokenRequest(scopes=[Scope.READ], expires_in_days=1))
    clock.now = T0 + timedelta(hours=23, minutes=59)
    assert service.authorize(created.token) is not None
    clock.now = T0 + timedelta(days=1)
    assert service.authorize(created.token) is None


def test_a_token_without_an_expiry_never_expires(stores: Stores, clock: Clock) -> None:
    service = tokens(stores, clock)
    created = service.create("alice", CreateTokenRequest(scopes=[Scope.READ]))
    clock.now = T0 + timedelta(days=3650)
    assert service.authorize(created.token) is not None


def test_a_revoked_token_is_refused_and_still_listed(stores: Stores, clock: Clock) -> None:
    service = tokens(stores, clock)
    created = service.create("alice", CreateTokenRequest(scopes=[Scope.READ]))
    revoked = service.revoke("alice", created.token_id)
    assert revoked is not None and revoked.revoked_at == T0
    assert service.authorize(created.token) is None
    assert [t.token_id for t in service.list("alice")] == [created.token_id]
    assert service.revoke("alice", "no-such-token") is None


def test_an_admin_names_only_its_own_agent_and_reaches_no_other(stores: Stores, clock: Clock) -> None:
    service = tokens(stores, clock)
    alices = service.create("alice", CreateTokenRequest(agent_id="alice", scopes=[Scope.READ]))

    with pytest.raises(ForeignAgentError):
        service.create("bob", CreateTokenRequest(agent_id="alice", scopes=[Scope.ADMIN]))
    assert service.list("bob") == [] and service.revoke("bob", alices.token_id) is None
    assert service.authorize(alices.token) is not None
    assert [t.agent_id for t in service.list("alice")] == ["alice"]


def test_the_operator_creates_a_tenant_with_its_first_admin_token_once(stores: Stores, clock: Clock) -> None:
    operator = TenantService(stores.tokens, clock)

    created = operator.create_tenant("carol", name="ops")

    record = tokens(stores, clock).authorize(created.token)
    assert record is not None and (record.agent_id, set(record.scopes)) == ("carol", set(Scope))
    with pytest.raises(TenantExistsError):
        operator.create_tenant("carol")
    assert operator.tenants() == ["carol", DEFAULT_AGENT]
    assert [t.token_id for t in operator.tokens()] == [created.token_id]


def test_the_bootstrap_token_is_the_default_agents_admin_and_nothing_else_is(
    stores: Stores, clock: Clock
) -> None:
    service = tokens(stores, clock, bootstrap=token_sha256("bootstrap-secret").upper())
    record = service.authorize("bootstrap-secret")
    assert record is not None
    assert (record.token_id, record.agent_id, set(record.scopes)) == (BOOTSTRAP_ID, DEFAULT_AGENT, set(Scope))
    assert service.authorize("a-guess") is None
