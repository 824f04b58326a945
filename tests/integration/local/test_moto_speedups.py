"""The local stack's moto speed-ups answer every request as moto itself does.

Each test runs the same requests on the same data with the speed-ups off (moto as released) and on,
and compares the answers whole: items, their order, counts, ``LastEvaluatedKey`` page by page.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import boto3
import pytest
from moto import mock_aws

from infra.local import moto_speedups

TABLE, FLAT = "speedups", "flat"
PARTITIONS = 12


def _value(rng: random.Random, depth: int = 0) -> dict[str, Any]:
    """An attribute value of any type, nested a little."""
    kinds = ["S", "N", "B", "SS", "NS", "BS", "NULL", "BOOL"] + (["M", "L"] if depth < 3 else [])
    kind = rng.choice(kinds)
    if kind == "S":
        return {"S": rng.choice(["", "plain", "café → 😀", "<script>", "a" * rng.randint(1, 300)])}
    if kind == "N":
        return {"N": rng.choice(["0", "-1", "3.25", "1e3", "123456789012345678901234567890"])}
    if kind == "B":
        return {"B": rng.randbytes(rng.randint(1, 64))}
    if kind == "SS":
        return {"SS": rng.sample(["x", "y", "z", "é", "w w"], rng.randint(1, 4))}
    if kind == "NS":
        return {"NS": rng.sample(["1", "2.5", "-3", "10"], rng.randint(1, 3))}
    if kind == "BS":
        return {"BS": [bytes([n]) * rng.randint(1, 9) for n in rng.sample(range(256), rng.randint(1, 3))]}
    if kind == "NULL":
        return {"NULL": True}
    if kind == "BOOL":
        return {"BOOL": rng.random() < 0.5}
    if kind == "M":
        return {"M": {f"k{n}": _value(rng, depth + 1) for n in range(rng.randint(0, 4))}}
    return {"L": [_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]}


@pytest.fixture
def dynamodb() -> Iterator[Any]:
    """Two tables full of items of every type: one with a sort key and two indexes, one without."""
    moto_speedups.uninstall()
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        client.create_table(
            TableName=TABLE,
            KeySchema=[
                {"AttributeName": "pk", "KeyType": "HASH"},
                {"AttributeName": "sk", "KeyType": "RANGE"},
            ],
            AttributeDefinitions=[
                {"AttributeName": "pk", "AttributeType": "S"},
                {"AttributeName": "sk", "AttributeType": "S"},
                {"AttributeName": "gpk", "AttributeType": "S"},
                {"AttributeName": "gsk", "AttributeType": "S"},
                {"AttributeName": "npk", "AttributeType": "N"},
            ],
            GlobalSecondaryIndexes=[
                {
                    "IndexName": "by_g",
                    "KeySchema": [
                        {"AttributeName": "gpk", "KeyType": "HASH"},
                        {"AttributeName": "gsk", "KeyType": "RANGE"},
                    ],
                    "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["a0", "a1"]},
                },
                {
                    "IndexName": "by_n",
                    "KeySchema": [{"AttributeName": "npk", "KeyType": "HASH"}],
                    "Projection": {"ProjectionType": "KEYS_ONLY"},
                },
            ],
            BillingMode="PAY_PER_REQUEST",
        )
        client.create_table(
            TableName=FLAT,
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )
        rng = random.Random(20261126)
        for n in range(400):
            item: dict[str, Any] = {
                "pk": {"S": f"P#{n % PARTITIONS}"},
                "sk": {"S": f"{rng.choice(['CP#', 'TRANSCRIPT#D#', 'STATE', 'X'])}{n:05d}"},
                **{f"a{k}": _value(rng) for k in range(rng.randint(0, 6))},
            }
            if rng.random() < 0.7:  # sparse indexes: some items are in no index
                item["gpk"] = {"S": f"G#{n % 5}"}
                item["gsk"] = {"S": f"{rng.randint(0, 40):03d}"}  # not unique: ties sort by the table key
            if rng.random() < 0.5:
                item["npk"] = {"N": rng.choice(["1", "1.0", "2", "10"])}  # 1 and 1.0 are one number
            client.put_item(TableName=TABLE, Item=item)
            client.put_item(TableName=FLAT, Item={"pk": {"S": f"F#{n}"}, "v": _value(rng)})
        yield client
    moto_speedups.uninstall()


def _pages(call: Callable[..., dict[str, Any]], request: dict[str, Any]) -> list[dict[str, Any]]:
    """Every page of the request (``ExclusiveStartKey`` from each answer), metadata dropped."""
    pages, request = [], dict(request)
    while True:
        answer = call(**request)
        answer.pop("ResponseMetadata", None)
        pages.append(answer)
        if "LastEvaluatedKey" not in answer or len(pages) > 200:
            return pages
        request["ExclusiveStartKey"] = answer["LastEvaluatedKey"]


def _both(run: Callable[[], Any]) -> tuple[Any, Any]:
    """What ``run`` answers with moto as released and with the speed-ups (an error is an answer:
    moto's own projection raises on a nested path into a value that is not a map)."""

    def answer() -> Any:
        try:
            return run()
        except Exception as error:  # compared, not handled
            return ("raised", type(error).__name__, str(error))

    moto_speedups.uninstall()
    released = answer()
    moto_speedups.install()
    try:
        faster = answer()
    finally:
        moto_speedups.uninstall()
    return released, faster


def _queries() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for p in (0, 3, 11, 99):  # 99: a partition that holds nothing
        key = {":pk": {"S": f"P#{p}"}}
        out += [
            {"KeyConditionExpression": "pk = :pk", "ExpressionAttributeValues": key},
            {
                "KeyConditionExpression": "pk = :pk",
                "ExpressionAttributeValues": key,
                "ScanIndexForward": False,
            },
            {"KeyConditionExpression": "pk = :pk", "ExpressionAttributeValues": key, "Limit": 3},
            {
                "KeyConditionExpression": "pk = :pk AND begins_with(sk, :d)",
                "ExpressionAttributeValues": {**key, ":d": {"S": "TRANSCRIPT#D#"}},
                "Limit": 2,
                "ScanIndexForward": False,
            },
            {
                "KeyConditionExpression": "pk = :pk AND sk BETWEEN :a AND :b",
                "ExpressionAttributeValues": {**key, ":a": {"S": "CP#"}, ":b": {"S": "CP#~"}},
                "ConsistentRead": True,
            },
            {
                "KeyConditionExpression": "pk = :pk AND sk > :a",
                "ExpressionAttributeValues": {**key, ":a": {"S": "T"}},
                "ProjectionExpression": "sk, a0, #m",
                "ExpressionAttributeNames": {"#m": "a1"},
            },
            {
                "KeyConditionExpression": "pk = :pk",
                "FilterExpression": "attribute_exists(a2)",
                "ExpressionAttributeValues": key,
                "Limit": 4,
            },
            {"KeyConditionExpression": "pk = :pk", "ExpressionAttributeValues": key, "Select": "COUNT"},
            {  # nested paths: moto's own projection
                "KeyConditionExpression": "pk = :pk",
                "ExpressionAttributeValues": key,
                "ProjectionExpression": "a0.k0, a1[0], a2",
            },
            {  # a name the items may not hold, and the keys
                "KeyConditionExpression": "pk = :pk",
                "ExpressionAttributeValues": key,
                "ProjectionExpression": "a5, pk, sk, nothing",
            },
        ]
    for g in (0, 4, 7):
        key = {":g": {"S": f"G#{g}"}}
        out += [
            {"IndexName": "by_g", "KeyConditionExpression": "gpk = :g", "ExpressionAttributeValues": key},
            {
                "IndexName": "by_g",
                "KeyConditionExpression": "gpk = :g",
                "ExpressionAttributeValues": key,
                "ScanIndexForward": False,
                "Limit": 7,
            },
            {
                "IndexName": "by_g",
                "KeyConditionExpression": "gpk = :g AND gsk >= :s",
                "ExpressionAttributeValues": {**key, ":s": {"S": "020"}},
                "FilterExpression": "attribute_exists(a0)",
                "Limit": 5,
            },
        ]
    for n in ("1", "1.0", "10", "3"):
        out.append(
            {
                "IndexName": "by_n",
                "KeyConditionExpression": "npk = :n",
                "ExpressionAttributeValues": {":n": {"N": n}},
            }
        )
    return out


def test_every_query_answers_as_moto_does_page_by_page(dynamodb: Any) -> None:
    # Given tables of many partitions and sparse indexes
    for request in _queries():
        # When the same query is paged through with moto as released and with the speed-ups
        released, faster = _both(partial(_pages, dynamodb.query, {"TableName": TABLE, **request}))

        # Then every page is the same: items, their order, counts and where the next page starts
        assert faster == released, request


def test_a_table_without_a_sort_key_answers_as_moto_does(dynamodb: Any) -> None:
    for key in ("F#7", "F#399", "F#nothing"):
        request = {
            "TableName": FLAT,
            "KeyConditionExpression": "pk = :p",
            "ExpressionAttributeValues": {":p": {"S": key}},
        }
        released, faster = _both(partial(_pages, dynamodb.query, request))
        assert faster == released


def test_reads_of_every_attribute_type_serialize_as_moto_does(dynamodb: Any) -> None:
    # Given items holding every attribute type, nested maps and lists, sets, binary, empty values
    keys = [{"pk": {"S": f"F#{n}"}} for n in range(0, 400, 5)]

    # When they are read every way a response carries items, with and without the speed-ups
    def reads() -> list[Any]:
        answers = [
            dynamodb.update_item(
                TableName=FLAT,
                Key=keys[0],
                UpdateExpression="SET w = :w",
                ExpressionAttributeValues={
                    ":w": {"M": {"b": {"B": b"\x00\xff"}, "l": {"L": [{"NULL": True}]}}}
                },
                ReturnValues="ALL_NEW",
            )["Attributes"],
            dynamodb.batch_get_item(RequestItems={FLAT: {"Keys": keys}})["Responses"][FLAT],
            _pages(dynamodb.scan, {"TableName": TABLE, "Limit": 50}),
            [dynamodb.get_item(TableName=FLAT, Key=k).get("Item") for k in keys[:20]],
        ]
        return [
            sorted(a, key=repr) if isinstance(a, list) and a and isinstance(a[0], dict) else a
            for a in answers
        ]

    released, faster = _both(reads)

    # Then the answers are equal, value for value
    assert faster == released


def test_a_failed_condition_still_answers_as_moto_does(dynamodb: Any) -> None:
    def attempt() -> Any:
        try:
            dynamodb.put_item(
                TableName=FLAT,
                Item={"pk": {"S": "F#1"}},
                ConditionExpression="attribute_not_exists(pk)",
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
            )
        except dynamodb.exceptions.ConditionalCheckFailedException as error:
            return error.response.get("Item"), error.response["Error"]["Code"]
        return None

    released, faster = _both(attempt)
    assert faster == released and released is not None


def test_the_switch_turns_them_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(moto_speedups.SWITCH_ENV, "0")
    assert not moto_speedups.wanted()
    monkeypatch.setenv(moto_speedups.SWITCH_ENV, "1")
    assert moto_speedups.wanted()


def test_the_speedups_are_the_path_taken(dynamodb: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # Given the speed-ups installed, and moto's whole-table walk and its slow path made to fail
    from moto.dynamodb.models.table import Table

    moto_speedups.install()

    def walked(self: Any) -> list[Any]:
        raise AssertionError("the query walked the whole table")

    monkeypatch.setattr(Table, "all_items", walked)
    slow_values: list[str] = []
    structure = moto_speedups._originals["structure"]

    def counted(self: Any, serialized: Any, value: Any, shape: Any, key: str) -> None:
        if shape.name == "AttributeValue":
            slow_values.append(key)
        structure(self, serialized, value, shape, key)

    monkeypatch.setitem(moto_speedups._originals, "structure", counted)

    def whole_item(self: Any, paths: Any) -> Any:
        raise AssertionError("the index projection converted the whole item per path")

    monkeypatch.setitem(moto_speedups._originals, "project", whole_item)

    try:
        _query_a_partition_and_an_index(dynamodb, slow_values)
    finally:  # moto as released again before the spies go (uninstall restores what _originals holds)
        monkeypatch.undo()
        moto_speedups.uninstall()


def _query_a_partition_and_an_index(dynamodb: Any, slow_values: list[str]) -> None:
    # When a partition and an index are queried
    found = dynamodb.query(
        TableName=TABLE, KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": {"S": "P#1"}}
    )["Items"]
    indexed = dynamodb.query(
        TableName=TABLE,
        IndexName="by_g",
        KeyConditionExpression="gpk = :g",
        ExpressionAttributeValues={":g": {"S": "G#1"}},
    )["Items"]

    # Then neither walked the table, the index's projection took the short way, and no attribute
    # value took the slow path
    assert found and indexed
    assert slow_values == []
