"""The hook path's JSON (``hook/fastjson.py``, ``_json`` without ``import json``) reads and writes
what ``json`` does: a difference would change every idempotency key and spooled record."""

from __future__ import annotations

import json

import pytest

from continuity_client.hook import fastjson

VALUES = [
    {"session_id": "s-1", "prompt": 'naïve café ☕ "quoted" \\ back\nline', "n": 3, "none": None},
    [1, -2.5, 1e300, 0, "", [], {}, [{"a": [None, False]}]],
    {"b": 1, "a": {"z": "\u2028", "y": "\x00"}},
    "😀 outside the BMP",
]


@pytest.mark.parametrize("value", VALUES)
@pytest.mark.parametrize("sort_keys", [False, True])
@pytest.mark.parametrize("ensure_ascii", [True, False])
def test_dumps_writes_the_same_text_as_json(value: object, sort_keys: bool, ensure_ascii: bool) -> None:
    for separators in ((", ", ": "), (",", ":")):
        ours = fastjson.dumps(value, separators=separators, ensure_ascii=ensure_ascii, sort_keys=sort_keys)
        theirs = json.dumps(value, separators=separators, ensure_ascii=ensure_ascii, sort_keys=sort_keys)
        assert ours == theirs


@pytest.mark.parametrize("value", VALUES)
def test_loads_reads_back_what_json_reads(value: object) -> None:
    text = json.dumps(value, ensure_ascii=False)
    assert fastjson.loads(f"  {text}\n") == json.loads(text)
    assert fastjson.loads(text.encode("utf-8")) == json.loads(text)


@pytest.mark.parametrize("bad", ["", "{", '{"a": 1} extra', "[1,]", "nope"])
def test_a_malformed_document_is_a_value_error_as_with_json(bad: str) -> None:
    with pytest.raises(ValueError):
        json.loads(bad)
    with pytest.raises(ValueError):
        fastjson.loads(bad)


def test_a_value_json_cannot_write_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        fastjson.dumps({"when": object()})
