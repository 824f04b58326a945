"""The cost model: DynamoDB's sizing rules, the pricing arithmetic, and docs/COST.md kept in sync."""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterator
from dataclasses import asdict, fields, replace
from pathlib import Path
from typing import Any

import boto3
import pytest

from bench import bench_cost, cost_model
from bench.bench_cost import CapacityLedger, TableKeys, attribute_size, item_size
from bench.cost_model import Assumptions, Prices, Usage, costs

COST_MD = Path(__file__).resolve().parents[2] / "docs" / "COST.md"
ZERO = Usage(
    **{f.name: 0 for f in fields(Usage)}
    | {"hooks_memory_mb": 512, "writer_memory_mb": 512, "authorizer_memory_mb": 256}
)


def doc_rows() -> dict[str, str]:
    """Every table row of docs/COST.md whose second cell is a `key`: key -> third cell."""
    rows = {}
    for line in COST_MD.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and re.fullmatch(r"`[a-z0-9_]+`", cells[1]):
            rows[cells[1].strip("`")] = cells[2].strip("*").replace(",", "")
    return rows


def test_item_sizes_follow_dynamodbs_rules() -> None:
    assert attribute_size({"S": "héllo"}) == 6  # UTF-8 bytes
    assert attribute_size({"N": "12345"}) == 4  # 5 significant digits: ceil(5/2) + 1
    assert attribute_size({"N": "1000"}) == 2  # trailing zeros do not count
    assert attribute_size({"BOOL": True}) == 1
    assert attribute_size({"L": [{"S": "ab"}, {"S": "c"}]}) == 3 + (2 + 1) + (1 + 1)
    assert attribute_size({"M": {"k": {"S": "v"}}}) == 3 + 1 + 1 + 1
    assert item_size({"pk": {"S": "a"}, "n": {"N": "7"}}) == (2 + 1) + (1 + 2)


@pytest.fixture
def ledger(aws: dict[str, str]) -> tuple[Any, CapacityLedger]:
    """A table ``t`` with one GSI on moto, a client counted by a ledger."""
    dynamodb = boto3.client("dynamodb")
    dynamodb.create_table(
        TableName="t",
        BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": a, "AttributeType": "S"} for a in ("pk", "sk", "g", "h")],
        KeySchema=[
            {"AttributeName": "pk", "KeyType": "HASH"},
            {"AttributeName": "sk", "KeyType": "RANGE"},
        ],
        GlobalSecondaryIndexes=[
            {
                "IndexName": "by_g",
                "KeySchema": [
                    {"AttributeName": "g", "KeyType": "HASH"},
                    {"AttributeName": "h", "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
    )
    counted = boto3.client("dynamodb")
    ledger = CapacityLedger(
        boto3.client("dynamodb"), {"t": TableKeys("pk", "sk", {"by_g": ("g", "h", None)})}
    )
    ledger.register(counted)
    return counted, ledger


def key(sk: str) -> dict[str, Any]:
    return {"pk": {"S": "p"}, "sk": {"S": sk}}


def test_an_update_costs_the_larger_of_the_item_before_and_after(ledger: tuple[Any, CapacityLedger]) -> None:
    dynamodb, units = ledger
    dynamodb.put_item(TableName="t", Item={**key("a"), "body": {"S": "x" * 2500}})  # 3 KB: 3 WRU
    dynamodb.update_item(
        TableName="t",
        Key=key("a"),
        UpdateExpression="SET n = :n",
        ExpressionAttributeValues={":n": {"N": "1"}},
    )  # still ~2.5 KB, a one-byte change: 3 WRU again

    assert units.wru == 6
    assert units.wru_by_item == {"PutItem p": 3, "UpdateItem p": 3}  # named by the pk: not a tenant item


def test_a_transaction_costs_double_and_its_gsi_copy_once(ledger: tuple[Any, CapacityLedger]) -> None:
    dynamodb, units = ledger
    indexed = {**key("b"), "g": {"S": "G"}, "h": {"S": "1"}, "body": {"S": "x" * 1500}}  # 2 KB, in the index

    dynamodb.transact_write_items(TransactItems=[{"Put": {"TableName": "t", "Item": indexed}}])

    # the item twice (prepare, commit); the index copy propagates after the commit, once
    assert units.wru == 2 * 2 + 2


def test_reads_cost_4_kb_units_halved_when_eventually_consistent(ledger: tuple[Any, CapacityLedger]) -> None:
    dynamodb, units = ledger
    dynamodb.put_item(TableName="t", Item={**key("c"), "body": {"S": "x" * 5000}})  # 2 read units of 4 KB

    dynamodb.get_item(TableName="t", Key=key("c"))
    dynamodb.get_item(TableName="t", Key=key("c"), ConsistentRead=True)

    assert units.rru == 1 + 2


def test_the_price_arithmetic_per_service() -> None:
    usage = replace(ZERO, http_requests=1.0, dynamodb_wru=10.0, sqs_requests=1.0)
    no_logs = replace(Assumptions(), platform_log_bytes_per_invocation=0, access_log_bytes_per_request=0)

    cost = costs(usage, Prices(), no_logs)

    assert cost["cost_api_gateway_usd"] == pytest.approx(0.10)  # 100k requests at $1/M
    assert cost["cost_dynamodb_usd"] == pytest.approx(1e6 * 0.625 / 1e6)  # 1M WRU
    assert cost["cost_sqs_usd"] == pytest.approx(0.04)
    lambda_requests = 2 * 100_000 * 0.20 / 1e6  # hooks + authorizer (no cache hits), zero ms measured
    cold_starts = 2 * 100_000 * 0.02 * 0.8  # seconds of init billed
    gb_seconds = cold_starts / 2 * (0.5 + 0.25)
    assert cost["cost_lambda_usd"] == pytest.approx(lambda_requests + gb_seconds * 0.0000133334)
    assert cost["cost_per_100k_prompts_usd"] == pytest.approx(
        sum(v for k, v in cost.items() if k != "cost_per_100k_prompts_usd")
    )


def test_lambda_bills_our_time_by_cpu_share_and_aws_waits_as_they_are() -> None:
    from bench.cost_model import lambda_billed_ms

    warm = replace(Assumptions(), cold_start_share=0.0)
    # 2 ms of our code on a full core takes 1769/512 as long at 512 MB; 3 calls wait 10 ms each
    assert lambda_billed_ms(2.0, 3, 512, warm) == math.ceil(2.0 * 1769 / 512 + 3 * 10)
    assert lambda_billed_ms(2.0, 0, 2048, warm) == 2  # no more than a full core


def test_the_docs_prices_and_assumptions_are_the_modules() -> None:
    rows = doc_rows()

    for name, value in {**asdict(Prices()), **asdict(Assumptions())}.items():
        assert float(rows[name]) == pytest.approx(value), name


def test_the_docs_cost_table_is_the_model_applied_to_the_docs_usage_table() -> None:
    rows = doc_rows()
    values: dict[str, Any] = {
        f.name: int(rows[f.name]) if f.name.endswith("_memory_mb") else float(rows[f.name])
        for f in fields(Usage)
    }
    usage = Usage(**values)

    computed = costs(usage)

    for key_, value in computed.items():
        assert float(rows[key_]) == pytest.approx(value, abs=6e-5), key_


def test_the_markdown_the_bench_prints_has_every_documented_key() -> None:
    printed = cost_model.markdown(ZERO)

    for key_ in doc_rows():
        if key_ in {f.name for f in fields(Usage)} | set(costs(ZERO)) | set(asdict(Prices())):
            assert f"`{key_}`" in printed


@pytest.fixture
def restored_environment() -> Iterator[None]:
    """The bench sets up its moto world in os.environ; give the next tests theirs back."""
    saved = dict(os.environ)
    yield
    os.environ.clear()
    os.environ.update(saved)


@pytest.mark.usefixtures("restored_environment")
def test_a_measured_session_without_transcripts_gives_the_request_mix(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(bench_cost, "SESSION_PROMPTS", 12)  # a periodic flush at 10, compaction at 11
    monkeypatch.setattr(bench_cost, "COMPACT_AFTER", 11)

    measurement = bench_cost.measure(transcript_chars=0)

    usage = measurement.usage
    assert usage.http_requests == pytest.approx((1 + 12 + 2 + 1) / 12)  # starts, prompts, compaction, end
    assert usage.writer_invocations == pytest.approx(1 / 12)
    assert usage.dynamodb_wru > usage.http_requests  # every hook writes at least one unit
    assert measurement.by_operation["sqs:SendMessage"] > 0

    # And its cost is a positive sum of finite, non-negative parts (json.dumps would print a NaN)
    cost = costs(usage)
    parts = {k: v for k, v in cost.items() if k != "cost_per_100k_prompts_usd"}
    assert all(math.isfinite(v) and v >= 0 for v in cost.values()), cost
    assert cost["cost_per_100k_prompts_usd"] == pytest.approx(sum(parts.values()))
    assert cost["cost_api_gateway_usd"] == pytest.approx(usage.http_requests * 0.10)  # $1 per million
    assert cost["cost_s3_usd"] == 0.0  # no transcript, nothing in S3
    # within twice the $1.00 goal: a short session pays its start, compaction and end over 12 prompts
    # only, and a unit slip (per thousand for per million, bytes for GB) moves it by orders of magnitude
    assert 0.1 < cost["cost_per_100k_prompts_usd"] < 2.0
