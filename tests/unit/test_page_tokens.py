"""The one page-token codec: a listing's last key as an opaque token that only continues that
listing, for that caller."""

from __future__ import annotations

import base64
import json

import pytest

from continuity_core.kernel.dynamo_pages import decode_page_token, encode_page_token
from continuity_core.kernel.errors import InvalidPageTokenError

LEDGER = {"pk": "A#agent-1#L#/work/app"}
ENTRIES = {"sk": "D#"}
LAST = {"pk": {"S": "A#agent-1#L#/work/app"}, "sk": {"S": "D#2026-11-22T09:00:00.000000Z#e1"}}


def test_a_token_continues_the_listing_it_came_from() -> None:
    token = encode_page_token(LAST, LEDGER)

    assert decode_page_token(token, LEDGER, ENTRIES) == LAST


def test_a_token_carries_no_scope_so_a_long_project_path_keeps_it_short() -> None:
    scope = {"pk": "A#agent-1#L#/" + "deep/" * 800}
    token = encode_page_token({"pk": {"S": scope["pk"]}, "sk": LAST["sk"]}, scope)

    assert len(token) < 200
    assert decode_page_token(token, scope, ENTRIES)["pk"] == {"S": scope["pk"]}


@pytest.mark.parametrize(
    "scope",
    [{"pk": "A#agent-2#L#/work/app"}, {"pk": "A#agent-1#L#/work/other"}],
    ids=["another tenant", "another project"],
)
def test_a_token_is_refused_in_another_listing(scope: dict[str, str]) -> None:
    token = encode_page_token(LAST, LEDGER)

    with pytest.raises(InvalidPageTokenError, match="not one this API handed out for this list"):
        decode_page_token(token, scope, ENTRIES)


def test_a_tampered_token_is_refused_with_a_message_that_says_what_to_do() -> None:
    document = json.loads(base64.urlsafe_b64decode(encode_page_token(LAST, LEDGER) + "=="))
    document["key"]["sk"] = "STATE"  # points outside the ledger's entries
    tampered = base64.urlsafe_b64encode(json.dumps(document).encode()).decode()

    with pytest.raises(InvalidPageTokenError) as refused:
        decode_page_token(tampered, LEDGER, ENTRIES)
    assert str(refused.value).endswith("leave it out to start from the first page")


@pytest.mark.parametrize("garbage", ["%%%", "bm90LWpzb24", "e30", "W10", "////", "é"])
def test_garbage_is_an_invalid_page_token_never_another_error(garbage: str) -> None:
    with pytest.raises(InvalidPageTokenError, match="next_token is not one this API handed out"):
        decode_page_token(garbage, LEDGER, ENTRIES)
