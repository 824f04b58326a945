"""The identifier rules (models/ids.py) on the hook model and the router, without AWS."""

from __future__ import annotations

import string

import pytest
from pydantic import ValidationError

from continuity_core.kernel.http import Resolver
from continuity_core.models.hooks import HookRequest
from continuity_core.models.ids import SESSION_ID_RULE, is_session_id


def test_what_the_harnesses_send_passes_as_it_is() -> None:
    request = HookRequest.model_validate(
        {
            "session_id": "agent:main:whatsapp:dm:+15551234567",
            "agent_id": "agent-7c1e",
            "parentID": "ses_5f2b8c1e0ffeQk3TzYb7mN1aRd",
            "previous_session_key": " 9f1c2a7e-4b1d-4c55-9a39-2d5e8f0b6c11\n",
        }
    )

    assert request.session_key == "agent:main:whatsapp:dm:+15551234567"
    assert (request.subagent_id, request.parent_session_key) == (
        "agent-7c1e",
        "ses_5f2b8c1e0ffeQk3TzYb7mN1aRd",
    )
    assert request.previous_session_key == "9f1c2a7e-4b1d-4c55-9a39-2d5e8f0b6c11"


def test_a_blank_optional_id_is_no_id() -> None:
    request = HookRequest.model_validate({"session_id": "s1", "parentID": "", "agent_id": "  "})

    assert (request.parent_session_key, request.subagent_id) == (None, None)


def test_a_refusal_names_the_rule_and_not_the_value() -> None:
    with pytest.raises(ValidationError) as refused:
        HookRequest.model_validate({"session_id": "s1", "parent_session_key": "x/secret-part"})

    assert SESSION_ID_RULE in str(refused.value.errors()[0]["msg"])
    assert "secret-part" not in str(refused.value.errors()[0]["msg"])


def test_the_router_matches_every_id_the_rule_accepts_and_every_stored_one_without_a_slash() -> None:
    route = Resolver._compile_regex("/api/sessions/<session_key>/transcript")
    accepted = [c for c in string.printable if is_session_id("a" + c)]
    stored_before = ['"', "`", "\\", "\t", "\x00", " ", "é", "%", "#", "?"]

    for character in accepted + stored_before:
        found = route.match(f"/api/sessions/a{character}/transcript")
        assert found is not None and found.group("session_key") == f"a{character}", repr(character)
    assert route.match("/api/sessions/a/b/transcript") is None
