"""The preset dictionary long texts are stored with: shipped, honest about what it never saw."""

from __future__ import annotations

import json
import zlib
from importlib.resources import files

import pytest

from bench import build_text_dictionary as builder
from continuity_core.kernel.dynamo_items import compress_text


def shipped() -> dict[str, object]:
    path = files("continuity_core").joinpath("data/text_dictionary_v1.json")
    return dict(json.loads(path.read_text("utf-8")))


def test_the_shipped_dictionary_fits_deflates_window_and_names_what_it_held_out() -> None:
    model = shipped()
    assert len(str(model["text"]).encode("utf-8")) <= 32 * 1024  # more would never be referenced
    assert model["held_out"] == list(builder.HELD_OUT)


def test_session_text_the_dictionary_never_saw_is_stored_at_least_a_tenth_smaller() -> None:
    # Given the corpus projects the dictionary was built without, rendered as the client sends them
    if not builder.CORPUS.is_dir():
        pytest.skip(f"no corpus at {builder.CORPUS} (../shared/corpus beside the repository)")
    sessions = builder.rendered_sessions()
    texts = builder.pieces([t for path, t in sessions.items() if builder.held_out(path)], 8_000)
    assert len(texts) >= 10
    # When each 8,000 characters is stored as a transcript append is
    before = sum(len(zlib.compress(text.encode("utf-8"), 6)) for text in texts)
    after = sum(len(compress_text(text)) for text in texts)
    # Then the dictionary saves at least 10 % over zlib alone (measured: ~17 %)
    assert after <= 0.9 * before
