"""The value heuristics behind the context rules."""

from __future__ import annotations

import pytest

from continuity_core.redaction.context import name_class
from continuity_core.redaction.literals import (
    is_path,
    is_placeholder,
    looks_like_secret_literal,
    looks_random,
)
from tests.unit.redaction.support import expand


@pytest.mark.parametrize("recipe", ["<alnum:24>", "<b64:40>", "<b64url:32>", "<alnum:64>"])
def test_machine_made_tokens_look_random(recipe: str) -> None:
    assert looks_random(expand(recipe, seed=recipe))


@pytest.mark.parametrize(
    "value",
    [
        "TokenRefreshScheduler",
        "test_password_validation_rejects_short",
        "twoWayMediaS3KeyPrefix",
        "_aws_secretsmanager_64b8a1c5",
        "2024-05-01T12:00:00Z",
        "layers/continuity_core/logic",
        "short",
    ],
)
def test_words_identifiers_dates_and_paths_do_not(value: str) -> None:
    assert not looks_random(value)


@pytest.mark.parametrize(
    "value",
    [
        "$TOKEN",
        "${API_KEY}",
        "<token>",
        "{{ secrets.X }}",
        "********",
        "your-api-key-here",
        "changeme",
        "token123",
    ],
)
def test_placeholders_are_recognised(value: str) -> None:
    assert is_placeholder(value)


def test_base64_with_slashes_is_not_a_path() -> None:
    assert is_path("/run/secrets/db_password")
    assert is_path("src/auth/token.ts")
    assert not is_path(expand("<b64:12>/<b64:14>/<b64:12>", seed="path"))


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("DB_PASSWORD", "password"),
        ("PGPASSWORD", "password"),
        ("client_secret", "secret"),
        ("apiKey", "secret"),
        ("AWS_SECRET_ACCESS_KEY", "secret"),
        ("STRIPE_KEY", "secret"),
        ("max_tokens", None),
        ("next_token", None),
        ("password_hash", None),
        ("PARTITION_KEY", None),
        ("key_id", None),
        ("sort_key", None),
    ],
)
def test_secret_like_names(name: str, expected: str | None) -> None:
    assert name_class(name) == expected


def test_a_bare_value_after_a_lower_case_name_must_look_like_a_password() -> None:
    def literal(value: str) -> bool:
        return looks_like_secret_literal(value, quoted=False, env_style=False, min_length=4, password=True)

    assert literal("hunter2x")
    assert not literal("password")  # password = password
    assert not literal("userPassword")
    assert not literal("settings.db_password")
    assert not literal("os.environ['X']")
