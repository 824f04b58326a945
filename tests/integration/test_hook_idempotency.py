"""A hook's idempotency key through the hooks function on moto: the same hook again replays, another
hook under a used key answers 409 naming the key and leaves the stored session as it was."""

from __future__ import annotations

import os
from typing import Any

import boto3

from continuity_core.hooks.dynamo_state import legacy_hook_key_digest
from continuity_core.kernel.dynamo_items import session_pk
from continuity_core.kernel.names import PK, SK, STATE_SK, TABLE_ENV
from tests.integration.conftest import prompt
from tests.support.api import InProcessService


def state_item(session: str) -> dict[str, Any]:
    """The session's state item as DynamoDB holds it, every attribute."""
    table = boto3.resource("dynamodb").Table(os.environ[TABLE_ENV])
    return table.get_item(Key={PK: session_pk("default", session), SK: STATE_SK}, ConsistentRead=True)["Item"]


def test_a_hook_key_reused_with_another_body_answers_409_and_changes_nothing(
    service: InProcessService,
) -> None:
    # Given a prompt stored under the client's key, with its transcript part
    first = prompt("s1", 1) | {
        "idempotency_key": "s1:user-prompt-submit:0123456789abcdef.1",
        "transcript": {"offset": 0, "text": "User: step 1\n"},
    }
    assert service.hook("user-prompt-submit", first)[0] == 200
    held = state_item("s1")

    # When another prompt comes under that key
    status, body = service.hook(
        "user-prompt-submit", prompt("s1", 2) | {"idempotency_key": first["idempotency_key"]}
    )

    # Then 409 names the key, and the state item is exactly as it was
    assert status == 409
    assert body == {
        "error": "conflict",
        "detail": "idempotency key 's1:user-prompt-submit:0123456789abcdef.1' was already used for a "
        "different request; send this one with a new key",
    }
    assert state_item("s1") == held


def test_the_same_hook_again_replays_with_another_transcript_part(service: InProcessService) -> None:
    # Given a prompt stored with its transcript part
    hook: dict[str, Any] = {**prompt("s1", 1), "idempotency_key": "k1", "transcript_chars": 10}
    hook |= {"transcript": {"offset": 0, "text": "0123456789"}, "context_tokens": 900}
    assert service.hook("user-prompt-submit", hook)[0] == 200

    # When the client sends it again as its spool kept it (no part), then with the next part
    spooled = {name: value for name, value in hook.items() if name not in ("transcript", "transcript_chars")}
    follow_up = hook | {"transcript": {"offset": 10, "text": "ABC"}, "transcript_chars": 13}

    # Then both are the same hook: 200, counted once, the part appended
    assert service.hook("user-prompt-submit", spooled)[0] == 200
    assert service.hook("user-prompt-submit", follow_up)[0] == 200
    assert int(state_item("s1")["total_prompts"]) == 1
    assert int(state_item("s1")["transcript_end"]) == 13


def test_a_hook_stored_before_body_digests_replays_after_the_deploy(service: InProcessService) -> None:
    # Given a prompt stored by the previous version: its key as a 12-character digest, no body digest
    hook = prompt("s1", 1) | {"idempotency_key": "s1:user-prompt-submit:0123456789abcdef.1"}
    assert service.hook("user-prompt-submit", prompt("s1", 0))[0] == 200
    table = boto3.resource("dynamodb").Table(os.environ[TABLE_ENV])
    table.update_item(
        Key={PK: session_pk("default", "s1"), SK: STATE_SK},
        UpdateExpression="SET hook_keys = :keys ADD total_prompts :one",
        ExpressionAttributeValues={":keys": [legacy_hook_key_digest(hook["idempotency_key"])], ":one": 1},
    )

    # When the client's spool sends that hook again, with this body or another
    assert service.hook("user-prompt-submit", hook)[0] == 200
    assert service.hook("user-prompt-submit", hook | {"prompt": "reworded"})[0] == 200

    # Then it is taken for the replay it is: counted once
    assert int(state_item("s1")["total_prompts"]) == 2
