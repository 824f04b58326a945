"""The raw-request rules of every HTTP function (continuity_core.kernel.http_input): what a user's text
may hold without being refused, and how an unreadable character is kept."""

import json

from continuity_core.kernel.http_input import MAX_JSON_DEPTH, clean_text, cleaned, refusal


def test_brackets_and_long_numbers_inside_text_are_not_refused() -> None:
    # A prompt may quote deep brackets, long numbers, the word NaN and escaped quotes
    prompt = "[" * 500 + " 1234567890" * 10 + ' NaN " Infinity \\' + "9" * 100
    body = json.dumps({"session_id": "s", "prompt": prompt})

    assert refusal(body) is None


def test_nesting_past_the_limit_is_refused_whatever_the_strings_hold() -> None:
    deep = "[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1)
    body = '{"a": "\\"[[[", "b": ' + deep[1:-1] + "}"  # an escaped quote must not hide the nesting

    assert refusal(body) == f"JSON nested deeper than {MAX_JSON_DEPTH} levels"


def test_numbers_too_long_and_non_json_numbers_are_refused() -> None:
    assert refusal('{"offset": ' + "9" * 33 + "}") == "a number in the body has more than 32 digits"
    assert refusal('{"offset": ' + "9" * 32 + "}") is None
    assert refusal('{"offset": NaN}') == "NaN and Infinity are not JSON numbers"
    assert refusal('{"offset": -Infinity}') == "NaN and Infinity are not JSON numbers"


def test_a_lone_surrogate_or_nul_becomes_one_replacement_character_and_a_split_pair_is_joined() -> None:
    assert clean_text("a\ud800b\x00c\udfff") == "a\ufffdb\ufffdc\ufffd"
    assert clean_text("\ud83d\ude00") == "\U0001f600"
    assert clean_text("plain") == "plain"


def test_an_event_without_odd_characters_is_handed_on_as_it_came() -> None:
    body = json.dumps({"prompt": "caf\u00e9 \U0001f600"})
    event = {"body": body, "pathParameters": {"session_key": "s"}}

    assert cleaned(event, body) is event


def test_the_body_path_and_query_of_an_event_are_cleaned() -> None:
    body = '{"prompt": "a\\ud800", "k\\u0000": ["\\udc00"]}'
    event = {
        "body": body,
        "rawPath": "/api/sessions/a\x00/transcript",
        "pathParameters": {"session_key": "a\x00"},
        "queryStringParameters": {"project": "/p\ud800"},
    }

    clean = cleaned(event, body)

    assert json.loads(clean["body"]) == {"prompt": "a\ufffd", "k\ufffd": ["\ufffd"]}
    assert clean["rawPath"] == "/api/sessions/a\ufffd/transcript"
    assert clean["pathParameters"] == {"session_key": "a\ufffd"}
    assert clean["queryStringParameters"] == {"project": "/p\ufffd"}
