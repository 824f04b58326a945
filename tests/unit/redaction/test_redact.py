"""The public API's behaviour: surroundings kept, markers kept, reports, nested values."""

from __future__ import annotations

import json
import time

from continuity_core.redaction import marker, redact, redact_value, redact_with_report
from tests.unit.redaction.support import expand

GITHUB = expand("ghp_<alnum:36>", seed="api-tests-github")
STRIPE = expand("sk_live_<alnum:24>", seed="api-tests-stripe")
AWS_ID = expand("AKIA<upper32:16>", seed="api-tests-aws")


def test_mixed_text_keeps_everything_but_the_secrets() -> None:
    # Given prose, a command and two secrets
    text = (
        f"Deploying now.\nexport GITHUB_TOKEN={GITHUB}\n"
        f"curl -s https://api.example.com | jq .\nkey {STRIPE} ok"
    )

    # When redacted
    output = redact(text)

    # Then only the secrets changed
    assert output == (
        "Deploying now.\nexport GITHUB_TOKEN=[REDACTED:github_token]\n"
        "curl -s https://api.example.com | jq .\nkey [REDACTED:stripe_key] ok"
    )


def test_the_report_counts_each_kind() -> None:
    text = f"{GITHUB} and {GITHUB[:-1]}x and {AWS_ID}"

    _, report = redact_with_report(text)

    assert report == {"github_token": 2, "aws_access_key_id": 1}


def test_text_without_secrets_comes_back_as_is() -> None:
    text = "Refactor the token refresh; password validation stays in the form."

    assert redact_with_report(text) == (text, {})
    assert redact("") == ""


def test_markers_are_never_redacted_again() -> None:
    # Given text that was already redacted, and a new secret next to it
    text = f"token=[REDACTED:github_token] and password: [REDACTED:env_secret] then {STRIPE}"

    # When redacted again
    output, report = redact_with_report(text)

    # Then the old markers stay as they are and only the new secret is counted
    assert output == (
        "token=[REDACTED:github_token] and password: [REDACTED:env_secret] then [REDACTED:stripe_key]"
    )
    assert report == {"stripe_key": 1}


def test_redacting_twice_changes_nothing_more() -> None:
    text = f"DB_PASSWORD=Harbor2207!x9\npostgres://app:Harbor2207x9@db/app\nAuthorization: Bearer {GITHUB}"

    once = redact(text)

    assert redact(once) == once
    assert "Harbor2207" not in once


def test_a_secret_in_a_json_transcript_line_is_found_after_an_escaped_newline() -> None:
    # Given a Claude Code transcript record whose tool output holds a .env file
    line = json.dumps({"type": "tool_result", "content": f"NODE_ENV=production\n{AWS_ID}\nDEBUG=1"})

    # When redacted
    output = redact(line)

    # Then the key id is gone and the line is still valid JSON
    assert AWS_ID not in output
    assert json.loads(output)["content"] == "NODE_ENV=production\n[REDACTED:aws_access_key_id]\nDEBUG=1"


def test_a_url_keeps_its_user_and_host() -> None:
    assert redact("postgres://app:Juniper77x2@db.internal:5432/app") == (
        "postgres://app:[REDACTED:url_password]@db.internal:5432/app"
    )


def test_an_authorization_header_keeps_its_scheme() -> None:
    assert (
        redact("Authorization: Basic c3ZjOkp1bmlwZXI3N3gy")
        == "Authorization: Basic [REDACTED:authorization_header]"
    )


def test_a_truncated_private_key_is_redacted_to_where_the_output_stops() -> None:
    body = "\n".join(expand("<b64:64>", seed=f"pk-{n}") for n in range(3))

    output = redact(f"$ head -4 id_rsa\n-----BEGIN RSA PRIVATE KEY-----\n{body}")

    assert output == "$ head -4 id_rsa\n[REDACTED:private_key]"


def test_text_with_characters_that_lower_case_to_two_is_handled() -> None:
    # "İ".lower() is two characters: positions must still line up
    text = f"İstanbul ekibi: export GITHUB_TOKEN={GITHUB} İ"

    assert redact(text) == "İstanbul ekibi: export GITHUB_TOKEN=[REDACTED:github_token] İ"


def test_redact_value_walks_a_model_dump() -> None:
    # Given a dump with nested strings, lists, tuples and other values
    dump = {
        "prompt": f"use {GITHUB}",
        "terms": ["token refresh", f"key {STRIPE}"],
        "pair": ("plain", AWS_ID),
        "count": 3,
        "flag": None,
    }
    report: dict[str, int] = {}

    # When redacted
    output = redact_value(dump, report)

    # Then every string is redacted, the rest untouched, and the counts add up
    assert output == {
        "prompt": "use [REDACTED:github_token]",
        "terms": ["token refresh", "key [REDACTED:stripe_key]"],
        "pair": ("plain", "[REDACTED:aws_access_key_id]"),
        "count": 3,
        "flag": None,
    }
    assert report == {"github_token": 1, "stripe_key": 1, "aws_access_key_id": 1}


def test_redact_value_treats_a_secret_like_field_as_secret_as_a_whole() -> None:
    # The field name says what the bare string does not.
    dump = {
        "password": "Velvet4410#k",
        "client_secret": "Zq8xK29dLw0pR7tV",
        "username": "ci-bot",
        "token": "none",
    }

    output = redact_value(dump)

    assert output == {
        "password": marker("env_secret"),
        "client_secret": marker("env_secret"),
        "username": "ci-bot",
        "token": "none",
    }


def test_redact_value_leaves_the_input_untouched() -> None:
    dump = {"prompt": f"use {GITHUB}"}

    redact_value(dump)

    assert dump == {"prompt": f"use {GITHUB}"}


def test_only_well_formed_markers_are_kept() -> None:
    # "[REDACTED: ...]" with anything else inside is ordinary text, and shields nothing after it
    text = "[REDACTED: see below ] password: Velvet4410#k"

    assert redact(text) == "[REDACTED: see below ] password: [REDACTED:env_secret]"


def test_adversarial_input_costs_linear_time() -> None:
    # Given 400 KB of back-to-back keywords and assignments (a quadratic scan would take minutes)
    text = "password=" * 20_000 + "token " * 20_000 + "pwd=x1y2 " * 10_000

    # When redacted
    started = time.process_time()
    output = redact(text)

    # Then it finishes in well under a few seconds of CPU
    assert time.process_time() - started < 5
    assert "x1y2" not in output
