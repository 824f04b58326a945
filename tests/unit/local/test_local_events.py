"""Event builders and the HTTP API response rules (payload format 2.0)."""

import base64
import hashlib
import json
from datetime import UTC, datetime

import pytest

from infra.local.events import (
    InvalidResponseError,
    authorizer_event,
    http_event,
    http_response,
    scheduled_event,
    sqs_event,
    sqs_record,
    sqs_record_from_message,
)

NOW = datetime(2026, 3, 12, 19, 3, 58, tzinfo=UTC)


def test_http_event_has_the_payload_2_shape() -> None:
    event = http_event(
        "post",
        "/api/hooks/user-prompt-submit",
        "/api/hooks/{event}",
        body={"session_id": "s1"},
        headers=[("X-Trace", "a"), ("x-trace", "b"), ("Cookie", "a=1; b=2"), ("User-Agent", "ua/1")],
        query="project=%2Fw&project=x&empty=",
        source_ip="10.0.0.1",
        request_id="rid",
        now=NOW,
    )

    assert event["version"] == "2.0"
    assert event["routeKey"] == "POST /api/hooks/{event}"
    assert event["rawPath"] == "/api/hooks/user-prompt-submit"
    assert event["rawQueryString"] == "project=%2Fw&project=x&empty="
    assert event["queryStringParameters"] == {"project": "/w,x", "empty": ""}
    assert event["pathParameters"] == {"event": "user-prompt-submit"}
    assert event["cookies"] == ["a=1", "b=2"]
    assert "cookie" not in event["headers"]
    assert event["headers"]["x-trace"] == "a,b"
    assert event["headers"]["content-type"] == "application/json"
    assert json.loads(event["body"]) == {"session_id": "s1"}
    assert event["isBase64Encoded"] is False
    assert event["requestContext"] == {
        "accountId": "123456789012",
        "apiId": "local",
        "domainName": "localhost",
        "domainPrefix": "localhost",
        "http": {
            "method": "POST",
            "path": "/api/hooks/user-prompt-submit",
            "protocol": "HTTP/1.1",
            "sourceIp": "10.0.0.1",
            "userAgent": "ua/1",
        },
        "requestId": "rid",
        "routeKey": "POST /api/hooks/{event}",
        "stage": "$default",
        "time": "12/Mar/2026:19:03:58 +0000",
        "timeEpoch": 1773342238000,
    }


def test_http_event_without_body_query_or_parameters_leaves_those_keys_out() -> None:
    event = http_event("GET", "/api/health")

    assert event["routeKey"] == "GET /api/health"
    assert event["rawQueryString"] == ""
    for key in ("body", "queryStringParameters", "pathParameters", "cookies"):
        assert key not in event
    assert "authorizer" not in event["requestContext"]


def test_a_body_that_is_not_utf8_is_base64_encoded() -> None:
    event = http_event("POST", "/x", body=b"\xff\xfe")

    assert event["isBase64Encoded"] is True
    assert base64.b64decode(event["body"]) == b"\xff\xfe"


def test_the_authorizer_context_goes_to_request_context_authorizer_lambda() -> None:
    event = http_event("GET", "/api/checkpoints", authorizer={"agent_id": "a1", "scopes": "read"})

    assert event["requestContext"]["authorizer"] == {"lambda": {"agent_id": "a1", "scopes": "read"}}


def test_authorizer_event_is_a_request_type_payload_2_without_body() -> None:
    request = http_event(
        "POST",
        "/api/hooks/remember",
        "/api/hooks/{event}",
        body="{}",
        headers={"Authorization": "Bearer t"},
        authorizer={"stale": "context"},
    )

    event = authorizer_event(request, identity_source=["Bearer t"])

    assert event["version"] == "2.0"
    assert event["type"] == "REQUEST"
    assert event["identitySource"] == ["Bearer t"]
    assert (
        event["routeArn"]
        == "arn:aws:execute-api:us-east-1:123456789012:local/$default/POST/api/hooks/remember"
    )
    assert event["routeKey"] == "POST /api/hooks/{event}"
    assert event["headers"]["authorization"] == "Bearer t"
    assert event["pathParameters"] == {"event": "remember"}
    assert "body" not in event
    assert "authorizer" not in event["requestContext"]


def test_a_full_result_becomes_the_response() -> None:
    answer = http_response(
        {
            "statusCode": 201,
            "headers": {"Content-Type": "text/plain", "X-Flag": True},
            "body": base64.b64encode(b"\x00hi").decode(),
            "isBase64Encoded": True,
            "cookies": ["a=1; Path=/", "b=2"],
        }
    )

    assert answer.status == 201
    assert answer.body == b"\x00hi"
    assert answer.header("content-type") == "text/plain"
    assert answer.header("x-flag") == "true"
    assert [v for k, v in answer.headers if k == "set-cookie"] == ["a=1; Path=/", "b=2"]


@pytest.mark.parametrize(
    ("result", "body"),
    [
        ({"message": "hi"}, b'{"message": "hi"}'),
        ("Hello from Lambda!", b"Hello from Lambda!"),
        ([1, 2], b"[1, 2]"),
        (None, b"null"),
    ],
)
def test_a_result_without_status_code_is_a_200_json_body(result: object, body: bytes) -> None:
    answer = http_response(result)

    assert (answer.status, answer.header("content-type"), answer.body) == (200, "application/json", body)


@pytest.mark.parametrize(
    "result",
    [
        {"statusCode": "teapot"},
        {"statusCode": 200, "body": {"not": "a string"}},
        {"statusCode": 200, "body": "%%%", "isBase64Encoded": True},
        {"statusCode": 200, "headers": ["x"]},
        {"statusCode": 99},
    ],
)
def test_a_malformed_result_is_refused(result: object) -> None:
    with pytest.raises(InvalidResponseError):
        http_response(result)


def test_sqs_record_has_the_lambda_shape() -> None:
    record = sqs_record({"agent_id": "a"}, queue="q", message_id="m1", receive_count=3, sent_at=NOW)

    assert record["messageId"] == "m1"
    assert record["body"] == '{"agent_id": "a"}'
    assert record["md5OfBody"] == hashlib.md5(record["body"].encode()).hexdigest()
    assert record["attributes"]["ApproximateReceiveCount"] == "3"
    assert record["attributes"]["SentTimestamp"] == "1773342238000"
    assert record["eventSource"] == "aws:sqs"
    assert record["eventSourceARN"] == "arn:aws:sqs:us-east-1:123456789012:q"
    assert record["awsRegion"] == "us-east-1"
    assert sqs_event([record]) == {"Records": [record]}


def test_a_received_message_becomes_a_lambda_record() -> None:
    message = {
        "MessageId": "m1",
        "ReceiptHandle": "rh",
        "Body": "hello",
        "MD5OfBody": "md5",
        "Attributes": {
            "ApproximateReceiveCount": "2",
            "SentTimestamp": "1",
            "ApproximateFirstReceiveTimestamp": "2",
        },
        "MessageAttributes": {
            "kind": {"StringValue": "flush", "DataType": "String"},
            "blob": {"BinaryValue": b"\x01", "DataType": "Binary"},
        },
        "MD5OfMessageAttributes": "md5attrs",
    }

    record = sqs_record_from_message(message, queue="arn:aws:sqs:us-east-1:123456789012:q")

    assert record["messageId"] == "m1"
    assert record["receiptHandle"] == "rh"
    assert record["attributes"]["ApproximateReceiveCount"] == "2"
    assert record["messageAttributes"]["kind"] == {
        "stringValue": "flush",
        "stringListValues": [],
        "binaryListValues": [],
        "dataType": "String",
    }
    assert record["messageAttributes"]["blob"]["binaryValue"] == "AQ=="
    assert record["md5OfMessageAttributes"] == "md5attrs"
    assert record["eventSourceARN"] == "arn:aws:sqs:us-east-1:123456789012:q"


def test_scheduled_event_is_an_eventbridge_scheduled_event() -> None:
    event = scheduled_event("continuity-local-pruner", now=NOW)

    assert event["detail-type"] == "Scheduled Event"
    assert event["source"] == "aws.events"
    assert event["time"] == "2026-03-12T19:03:58Z"
    assert event["resources"] == ["arn:aws:events:us-east-1:123456789012:rule/continuity-local-pruner"]
    assert event["detail"] == {}
