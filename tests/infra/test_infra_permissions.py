"""Least privilege, read from the synthesized template by the same evaluator the access guard uses.

That the code calls only what it is granted is checked where the code runs: every integration and
end-to-end test runs each function under its synthesized grant (infra/local/access_guard.py), and
tests/integration/test_declared_access.py drives every function's paths under it. Here: the grant
the guard enforces is the template's, and no function holds more than its job needs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from infra import wiring
from infra.local import access_policies
from infra.local.access_guard import AccessGuard, Request
from infra.local.events import ACCOUNT_ID, REGION
from infra.wiring import Access

if TYPE_CHECKING:
    from tests.infra.synth import Synthesized

NAMES = {
    "continuity_table": "table",
    "checkpoint_queue": "queue",
    "checkpoint_queue#dlq": "queue-dlq",
    "transcript_bucket": "bucket",
}
TABLE = f"arn:aws:dynamodb:{REGION}:{ACCOUNT_ID}:table/table"
QUEUE = f"arn:aws:sqs:{REGION}:{ACCOUNT_ID}:queue"
DLQ = f"arn:aws:sqs:{REGION}:{ACCOUNT_ID}:queue-dlq"
BODY = "arn:aws:s3:::bucket/transcripts/alice/s1/0.gz"
SESSION_ITEM = ("A#alice#S#s1",)
ITEM_WRITES = ("dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:BatchWriteItem")
KEYS = [spec.key for spec in wiring.FUNCTIONS]
COUNTING = [spec.key for spec in wiring.FUNCTIONS if any(route.authorized for route in spec.routes)]
READS_ONLY = [s.key for s in wiring.FUNCTIONS if s.resources.get(wiring.CONTINUITY_TABLE.key) is Access.READ]


@pytest.fixture(scope="module")
def access(synthesized: Synthesized) -> access_policies.StackAccess:
    return access_policies.from_template(synthesized.template.to_json(), synthesized.stack)


@pytest.fixture(scope="module")
def guard(access: access_policies.StackAccess) -> AccessGuard:
    assert set(NAMES) == set(access.resources)
    return AccessGuard(access, NAMES)


def test_the_guard_enforces_the_synthesized_policies_not_a_stale_copy(
    access: access_policies.StackAccess,
) -> None:
    # When the policies are loaded as tests and the local stack load them (cache or synth)
    loaded = access_policies.load()
    # Then they are the ones this synth produced
    assert loaded.to_json() == access.to_json()


@pytest.mark.parametrize("key", READS_ONLY)
def test_a_function_that_only_reads_the_table_writes_nothing_in_it_but_rate_counters(
    guard: AccessGuard, key: str
) -> None:
    spec = wiring.function(key)
    # Then no item write is allowed, on any item but the rate counters (and there only UpdateItem)
    for action in ITEM_WRITES:
        assert not guard.allows(key, Request(action, TABLE, SESSION_ITEM))
    assert not guard.allows(key, Request("dynamodb:PutItem", TABLE, ("RATE#token",)))
    # And a rate counter exactly when it answers authorized requests
    counter = Request("dynamodb:UpdateItem", TABLE, ("RATE#token",))
    assert guard.allows(key, counter) == bool(spec.item_grants)


@pytest.mark.parametrize("key", COUNTING)
def test_every_function_that_answers_authorized_requests_may_count_them(guard: AccessGuard, key: str) -> None:
    # The rate-limit middleware counts each token's requests in a shared counter item.
    assert guard.allows(key, Request("dynamodb:UpdateItem", TABLE, ("RATE#token",)))


@pytest.mark.parametrize("key", KEYS)
def test_only_hooks_sends_checkpoint_requests_and_only_the_writer_receives_them(
    guard: AccessGuard, key: str
) -> None:
    assert guard.allows(key, Request("sqs:SendMessage", QUEUE)) == (key == wiring.HOOKS.key)
    consumes = key == wiring.CHECKPOINT_WRITER.key
    for action in ("sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:ChangeMessageVisibility"):
        assert guard.allows(key, Request(action, QUEUE)) == consumes


@pytest.mark.parametrize("key", KEYS)
def test_only_the_admin_function_reads_the_queues_depth_and_nobody_touches_the_dlqs_messages(
    guard: AccessGuard, key: str
) -> None:
    inspects = key == wiring.TOKENS.key  # the health route
    # (CDK's send and consume grants include the queue's own attributes; the DLQ's are the admin's)
    assert guard.allows(key, Request("sqs:GetQueueAttributes", DLQ)) == inspects
    assert guard.allows(key, Request("sqs:GetQueueAttributes", QUEUE)) or not inspects
    for action in ("sqs:SendMessage", "sqs:ReceiveMessage", "sqs:DeleteMessage"):
        assert not guard.allows(key, Request(action, DLQ))


@pytest.mark.parametrize("key", KEYS)
def test_only_hooks_writes_transcript_bodies_and_only_hooks_the_pruner_and_forget_delete_them(
    guard: AccessGuard, key: str
) -> None:
    assert guard.allows(key, Request("s3:PutObject", BODY)) == (key == wiring.HOOKS.key)
    deletes = key in (wiring.HOOKS.key, wiring.PRUNER.key, wiring.FORGET.key)
    assert guard.allows(key, Request("s3:DeleteObject", BODY)) == deletes
    assert not guard.allows(key, Request("s3:ListBucket", "arn:aws:s3:::bucket"))


@pytest.mark.parametrize("key", KEYS)
def test_a_function_holds_no_wildcard_action_and_nothing_beyond_logs_and_its_resources(
    access: access_policies.StackAccess, key: str
) -> None:
    actions = {action for s in access.functions[key].statements for action in s.actions}
    others = {a for a in actions if not a.startswith(("dynamodb:", "sqs:", "s3:"))}
    assert others == {"logs:CreateLogStream", "logs:PutLogEvents"}
    assert not any("*" in action for action in actions)
    assert all(s.effect == "Allow" for s in access.functions[key].statements)
