"""cost_per_100k_prompts_usd: list-price cost of 100,000 prompts, measured on moto (docs/COST.md).

One agent session of ``SESSION_PROMPTS`` prompts runs through the handlers in-process on moto, the
way the client drives it: session-start, prompts that each carry the transcript's new part,
one compaction half-way (pre-compaction, then session-start ``source=compact``), session-end;
every flush delivered to the writer. Per AWS operation it records:

* requests (botocore ``request-created``, as ``bench_requests`` counts them);
* DynamoDB capacity units from item sizes (DynamoDB's sizing rules, the item read before and after
  each write: a write costs ⌈max(before, after) / 1 KB⌉ units, doubled in a transaction, plus the GSI
  copies it changes; a read ⌈bytes / 4 KB⌉, halved when eventually consistent);
* S3 requests and bytes, SQS requests;
* warm handler durations (median) and the bytes the handlers log (Powertools lines at INFO, the
  deployed level, and the EMF metrics).

The authorizer is measured on its own with an agent token from the token store. ``cost_model``
prices the per-prompt usage. ``python -m bench.bench_cost --markdown`` prints docs/COST.md's tables.
"""

from __future__ import annotations

import contextlib
import functools
import io
import math
import os
import random
import statistics
import sys
import time
import warnings
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from bench.aws_time import AwsTime
from bench.bench_requests import PROJECT, RequestCounter
from bench.bench_transcripts import moto_stack
from bench.cost_model import Usage, costs, markdown
from continuity_core.kernel import names

SESSION_PROMPTS = 40
COMPACT_AFTER = SESSION_PROMPTS // 2
TRANSCRIPT_CHARS_PER_PROMPT = 8_000  # readable transcript (tool results trimmed) per turn
PROMPT_CHARS = 300
CLIENT_ORIGIN = "0123456789abcdef"  # the client's random id (its ``origin`` file) in every hook key
# The session's 320,000 characters pass one S3 chunk of this size: a move to S3 every 33 prompts,
# four times as often as the default chunk (1 Mi characters), so its share is an upper bound.
BENCH_CHUNK_CHARS = 262_144
AUTHORIZER_RUNS = 50
WRITE_OPS = {"PutItem", "UpdateItem", "DeleteItem", "TransactWriteItems", "BatchWriteItem"}
# DynamoDB: an item's storage size adds 100 bytes of overhead (per table and per index copy).
ITEM_OVERHEAD = 100


# --------------------------------------------------------------------------------------------
# DynamoDB item sizes and capacity units
# --------------------------------------------------------------------------------------------


def attribute_size(value: dict[str, Any]) -> int:
    """Bytes of one attribute value in DynamoDB JSON, by DynamoDB's item-size rules."""
    (kind, data), *_ = value.items()
    if kind == "S":
        return len(str(data).encode())
    if kind == "N":
        return number_size(str(data))
    if kind == "B":
        return len(data) if isinstance(data, bytes | bytearray) else len(str(data).encode())
    if kind in ("BOOL", "NULL"):
        return 1
    if kind == "SS":
        return sum(len(s.encode()) for s in data)
    if kind == "NS":
        return sum(number_size(n) for n in data)
    if kind == "BS":
        return sum(len(b) for b in data)
    if kind == "L":
        return 3 + sum(attribute_size(v) + 1 for v in data)
    if kind == "M":
        return 3 + sum(len(k.encode()) + attribute_size(v) + 1 for k, v in data.items())
    raise ValueError(f"unknown DynamoDB type {kind}")


def number_size(text: str) -> int:
    digits = str(Decimal(text).normalize()).lstrip("-").replace(".", "").lstrip("0") or "0"
    digits = digits.split("E")[0]
    return math.ceil(len(digits) / 2) + 1


def item_size(item: dict[str, Any] | None) -> int:
    if not item:
        return 0
    return sum(len(name.encode()) + attribute_size(value) for name, value in item.items())


def write_units(size: int) -> int:
    return max(1, math.ceil(size / 1024))


def read_units(size: int, consistent: bool) -> float:
    return max(1, math.ceil(size / 4096)) * (1.0 if consistent else 0.5)


@dataclass(frozen=True)
class TableKeys:
    partition_key: str
    sort_key: str
    # index name -> (partition key, sort key, projected attributes or None for ALL)
    indexes: dict[str, tuple[str, str, tuple[str, ...] | None]]

    def key(self, item: dict[str, Any]) -> dict[str, Any]:
        return {k: item[k] for k in (self.partition_key, self.sort_key)}

    def projection(self, item: dict[str, Any] | None, index: str) -> dict[str, Any] | None:
        if not item:
            return None
        pk, sk, attributes = self.indexes[index]
        if pk not in item or sk not in item:
            return None  # a sparse index: the item is not in it
        if attributes is None:
            return item
        kept = {self.partition_key, self.sort_key, pk, sk, *attributes}
        return {k: v for k, v in item.items() if k in kept}


@dataclass
class CapacityLedger:
    """Request units of every DynamoDB call of a client, from item sizes read through ``probe``."""

    probe: Any  # an uncounted client on the same moto
    tables: dict[str, TableKeys]  # physical table name -> keys
    wru: float = 0.0
    rru: float = 0.0
    wru_by_item: Counter[str] = field(default_factory=Counter)  # "UpdateItem TRANSCRIPT" -> units
    max_size_by_item: dict[str, int] = field(default_factory=dict)  # "TRANSCRIPT" -> bytes
    # The reads of items before a write happen before the call starts (``AwsTime`` counts those
    # after it): the bench's time, to leave out of the handler's own.
    probe_seconds: float = 0.0

    def register(self, client: Any) -> None:
        client.meta.events.register("before-parameter-build.dynamodb", self.before)
        client.meta.events.register("after-call.dynamodb", self.after)

    def before(self, params: dict[str, Any], model: Any, context: dict[str, Any], **_: Any) -> None:
        context["cost_params"] = params
        if model.name in WRITE_OPS:
            started = time.perf_counter()
            writes = list(self._writes(model.name, params))
            context["cost_writes"] = [
                (table, key, self._get(table, key), factor) for table, key, factor in writes
            ]
            self.probe_seconds += time.perf_counter() - started

    def after(self, parsed: dict[str, Any], model: Any, context: dict[str, Any], **_: Any) -> None:
        if model.name in WRITE_OPS:
            for table, key, before, factor in context.get("cost_writes", []):
                after = self._get(table, key)
                units = self._write_cost(table, before, after, factor)
                kind = item_kind(key, self.tables[table])
                self.wru += units
                self.wru_by_item[f"{model.name} {kind}"] += units
                self.max_size_by_item[kind] = max(self.max_size_by_item.get(kind, 0), item_size(after))
        elif "Error" not in parsed:
            self.rru += self._read_cost(model.name, parsed, context.get("cost_params", {}))

    def _writes(self, op: str, params: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any], int]]:
        if op in ("UpdateItem", "DeleteItem"):
            yield params["TableName"], params["Key"], 1
        elif op == "PutItem":
            yield params["TableName"], self.tables[params["TableName"]].key(params["Item"]), 1
        elif op == "TransactWriteItems":
            for entry in params["TransactItems"]:
                (kind, request), *_ = entry.items()
                table = request["TableName"]
                yield table, request["Key"] if kind != "Put" else self.tables[table].key(request["Item"]), 2
        elif op == "BatchWriteItem":
            for table, requests in params["RequestItems"].items():
                for request in requests:
                    if "PutRequest" in request:
                        yield table, self.tables[table].key(request["PutRequest"]["Item"]), 1
                    else:
                        yield table, request["DeleteRequest"]["Key"], 1

    def _get(self, table: str, key: dict[str, Any]) -> dict[str, Any] | None:
        item = self.probe.get_item(TableName=table, Key=key, ConsistentRead=True).get("Item")
        return dict(item) if item else None

    def _write_cost(
        self, table: str, before: dict[str, Any] | None, after: dict[str, Any] | None, factor: int = 1
    ) -> int:
        """``factor`` 2 in a transaction: DynamoDB writes each item of the transaction twice (prepare,
        commit); the index copies propagate after the commit, as ordinary writes."""
        units = factor * write_units(max(item_size(before), item_size(after)))
        keys = self.tables[table]
        for index in keys.indexes:
            old, new = keys.projection(before, index), keys.projection(after, index)
            if old == new:
                continue
            if old and new and _index_key(keys, index, old) == _index_key(keys, index, new):
                units += write_units(max(item_size(old), item_size(new)))
            else:  # added, removed, or moved: a delete and/or a put in the index
                units += (write_units(item_size(old)) if old else 0) + (
                    write_units(item_size(new)) if new else 0
                )
        return units

    def _read_cost(self, op: str, parsed: dict[str, Any], params: dict[str, Any]) -> float:
        consistent = bool(params.get("ConsistentRead"))
        if op == "GetItem":
            return read_units(item_size(parsed.get("Item")), consistent)
        if op in ("Query", "Scan"):
            items = parsed.get("Items", [])
            size = sum(item_size(i) for i in items)
            scanned, count = parsed.get("ScannedCount", len(items)), len(items)
            if count and scanned > count:
                size = size * scanned // count
            return read_units(size, consistent)
        if op == "BatchGetItem":
            consistent = any(r.get("ConsistentRead") for r in params.get("RequestItems", {}).values())
            found = [i for items in parsed.get("Responses", {}).values() for i in items]
            return sum(read_units(item_size(i), consistent) for i in found)
        if op == "TransactGetItems":
            return sum(2 * read_units(item_size(r.get("Item")), True) for r in parsed.get("Responses", []))
        return 0.0


def item_kind(key: dict[str, Any], keys: TableKeys) -> str:
    """Which kind of item a write touched, for the breakdown: ``STATE``, ``CP``, ``TRANSCRIPT``, ``RATE``…

    Tenant items (``A#{agent}#…``) are named by their sort key's head, the others by their pk's;
    a transcript's appends are ``TRANSCRIPT#D``.
    """
    pk, sk = str(key[keys.partition_key].get("S", "?")), str(key[keys.sort_key].get("S", "?"))
    if sk.startswith(names.TRANSCRIPT_APPEND_PREFIX):
        return names.TRANSCRIPT_APPEND_PREFIX.rstrip("#")
    return sk.split("#", 1)[0] if pk.startswith(names.AGENT_PREFIX) else pk.split("#", 1)[0]


def _index_key(keys: TableKeys, index: str, item: dict[str, Any]) -> tuple[Any, Any]:
    pk, sk, _ = keys.indexes[index]
    return item[pk]["S"], item[sk]["S"]


def stored_bytes(probe: Any, tables: dict[str, TableKeys]) -> int:
    """Storage of every item, with the 100-byte overhead, plus each GSI's copy."""
    total = 0
    for table, keys in tables.items():
        for page in probe.get_paginator("scan").paginate(TableName=table):
            for item in page["Items"]:
                total += item_size(item) + ITEM_OVERHEAD
                for index in keys.indexes:
                    projected = keys.projection(item, index)
                    total += item_size(projected) + ITEM_OVERHEAD if projected else 0
    return total


# --------------------------------------------------------------------------------------------
# Requests, durations and log bytes
# --------------------------------------------------------------------------------------------


class OperationCounter(RequestCounter):
    """``bench_requests``' counter, by ``service:Operation`` too."""

    def __init__(self) -> None:
        super().__init__()
        self.by_operation: Counter[str] = Counter()

    def __call__(self, **kwargs: Any) -> None:
        super().__call__(**kwargs)
        service = str(kwargs.get("event_name", "request-created.unknown")).split(".")[1]
        self.by_operation[f"{service}:{kwargs.get('operation_name')}"] += 1


@dataclass
class S3Bytes:
    put_bytes: int = 0

    def __call__(self, params: dict[str, Any], **_: Any) -> None:
        body = params.get("Body", b"")
        self.put_bytes += len(body.encode() if isinstance(body, str) else body)


class ByteCounter(io.TextIOBase):
    def __init__(self) -> None:
        self.bytes = 0

    def write(self, text: str) -> int:
        self.bytes += len(text.encode())
        return len(text)


@contextlib.contextmanager
def deployed_logging(counter: ByteCounter) -> Iterator[None]:
    """The handlers log as deployed (INFO, EMF metrics on) into ``counter`` instead of stdout."""
    from continuity_core.kernel.observability import logger

    handler: Any = logger.registered_handler
    level = logger.log_level
    disabled = os.environ.get("POWERTOOLS_METRICS_DISABLED")
    stream = handler.setStream(counter)
    logger.setLevel("INFO")
    os.environ["POWERTOOLS_METRICS_DISABLED"] = "false"
    try:
        with contextlib.redirect_stdout(counter):  # EMF is print()ed
            yield
    finally:
        handler.setStream(stream)
        logger.setLevel(level)
        if disabled is None:
            os.environ.pop("POWERTOOLS_METRICS_DISABLED", None)
        else:
            os.environ["POWERTOOLS_METRICS_DISABLED"] = disabled


@dataclass
class Timed:
    own_ms: float = 0.0  # our own time: time in AWS calls and in the bench's probes left out
    calls: int = 0  # AWS calls made


@dataclass
class Timings:
    """Our own milliseconds per invocation, and the AWS calls each made."""

    aws: AwsTime
    ledger: CapacityLedger
    hooks: list[float] = field(default_factory=list)
    writer: list[float] = field(default_factory=list)
    authorizer: list[float] = field(default_factory=list)
    hooks_calls: list[float] = field(default_factory=list)
    writer_calls: list[float] = field(default_factory=list)
    authorizer_calls: list[float] = field(default_factory=list)

    @contextlib.contextmanager
    def span(self, services: tuple[str, ...]) -> Iterator[Timed]:
        """Time the block; count the calls to ``services`` made in it."""
        span = Timed()
        started, aws, probes = time.perf_counter(), self.aws.seconds, self.ledger.probe_seconds
        calls = self.aws.total_calls(services)
        yield span
        inside = (self.aws.seconds - aws) + (self.ledger.probe_seconds - probes)
        span.own_ms = (time.perf_counter() - started - inside) * 1000
        span.calls = self.aws.total_calls(services) - calls


HOOK_SERVICES = ("dynamodb", "s3", "sqs")
# The writer's own calls; the SQS receive and delete are the event source mapping's (priced apart).
WRITER_SERVICES = ("dynamodb", "s3")


@functools.cache
def _corpus() -> tuple[str, str]:
    """(code, prose) a coding agent reads and writes: this repository's own sources and docs, so the
    transcript compresses as a real one does (~3x with zlib), not as repeated filler would (~20x)."""
    root = Path(__file__).resolve().parent.parent
    code = "\n".join(p.read_text() for p in sorted((root / "layers").rglob("*.py")))
    prose = "\n".join(p.read_text() for p in sorted((root / "docs").glob("*.md")))
    return code, prose


def prompt_text(n: int) -> str:
    """``PROMPT_CHARS`` of what a user types: prose from the docs, starting at a word."""
    _, prose = _corpus()
    at = random.Random(-n).randrange(len(prose) - 2 * PROMPT_CHARS)
    at = prose.index(" ", at) + 1
    return f"step {n}: " + " ".join(prose[at : at + 2 * PROMPT_CHARS].split())[: PROMPT_CHARS - 9]


def transcript_text(n: int, size: int = TRANSCRIPT_CHARS_PER_PROMPT) -> str:
    """``size`` characters of readable transcript for turn ``n`` (empty for 0): the user's turn, tool
    calls with their (trimmed) results from real source files, the assistant's prose."""
    if size <= 0:
        return ""
    code, prose = _corpus()
    rng = random.Random(n)
    blocks = [f"User: step {n}: make the payment mock deterministic\n\n"]
    while sum(map(len, blocks)) < size:
        at = rng.randrange(len(code) - 1500)
        blocks.append(f"Tool Read: layers/continuity_core/file_{at}.py\nResult: {code[at : at + 1200]}\n\n")
        at = rng.randrange(len(prose) - 800)
        blocks.append(f"Assistant: {prose[at : at + 600]}\n\n")
    return "".join(blocks)[:size]


@dataclass
class Session:
    """Drives one session like the client: hooks carry the transcript's new part and its size."""

    service: Any
    timings: Timings
    transcript_chars: int = TRANSCRIPT_CHARS_PER_PROMPT
    key: str = "cost-session"
    offset: int = 0
    hooks: int = 0
    writer_batches: int = 0

    def hook(self, event: str, transcript: str | None = None, **fields: Any) -> Any:
        body: dict[str, Any] = {
            "session_id": self.key,
            "cwd": PROJECT,
            "project_normalized": PROJECT,
            **fields,
        }
        # The client's key (``{session}:{event}:{origin}.{seq}``): the state item keeps its digests.
        body["idempotency_key"] = f"{self.key}:{event}:{CLIENT_ORIGIN}.{self.hooks + 1}"
        if transcript:
            body["transcript"] = {"offset": self.offset, "text": transcript}
            self.offset += len(transcript)
            body["transcript_chars"] = self.offset
        with self.timings.span(HOOK_SERVICES) as span:
            status, answer = self.service.hook(event, body)
        self.timings.hooks.append(span.own_ms)
        self.timings.hooks_calls.append(span.calls)
        assert status == 200, (event, status, answer)
        self.hooks += 1
        self.drain()
        return answer

    def drain(self) -> None:
        with self.timings.span(WRITER_SERVICES) as span:
            delivered = self.service.drain_queue()
        if delivered:
            self.timings.writer.append(span.own_ms / delivered)
            self.timings.writer_calls.append(span.calls / delivered)
            self.writer_batches += delivered

    def run(self) -> None:
        self.hook("session-start", source="startup", hook_event_name="SessionStart")
        for n in range(1, SESSION_PROMPTS + 1):
            self.hook("user-prompt-submit", self.transcript(n), prompt=prompt_text(n))
            if n == COMPACT_AFTER:
                self.hook("pre-compaction", self.transcript(n, 200), trigger="auto")
                self.hook("session-start", source="compact", hook_event_name="SessionStart")
        self.hook("session-end", self.transcript(SESSION_PROMPTS + 1, 200), reason="logout")

    def transcript(self, n: int, size: int | None = None) -> str:
        return transcript_text(n, min(size or self.transcript_chars, self.transcript_chars))


def prune_everything(ledger: CapacityLedger) -> tuple[float, float]:
    """(WRU, RRU) of the pruner once everything the session left is past retention: it deletes the
    state and the transcript head (write units by item size) and leaves the checkpoints and the
    injection records to DynamoDB's TTL, whose deletes are free."""
    from datetime import UTC, datetime, timedelta

    from continuity_core.kernel.config import load_config
    from continuity_core.retention.dynamo_retention import DynamoRetentionStore
    from continuity_core.retention.retention import Pruner
    from continuity_core.transcripts.s3_bodies import S3BodyStore

    config = load_config({})
    kept = max(config.retention_days, config.transcript_retention_days)
    later = datetime.now(UTC) + timedelta(days=kept + 2)
    store = DynamoRetentionStore(os.environ[names.TABLE_ENV], S3BodyStore())
    before, rru = Counter(ledger.wru_by_item), ledger.rru
    report = Pruner(store, config, clock=lambda: later).run()
    assert report.deleted["state"] and report.left_to_ttl and not report.deleted["checkpoint"], report
    # Its cursor's writes (a lease and a save per 6-hour bucket) are a fixed hourly cost, not a prompt's.
    deletes = Counter(ledger.wru_by_item)
    deletes.subtract(before)
    return sum(units for kind, units in deletes.items() if not kind.endswith(" PRUNER")), ledger.rru - rru


def measure_authorizer(timings: Timings, ledger: CapacityLedger) -> float:
    """RRU of one authorizer invocation with an agent token; its durations go to ``timings``."""
    from continuity_core.models.scopes import Scope
    from continuity_core.models.tokens import CreateTokenRequest
    from functions.authorizer.handler import lambda_handler
    from tests.support.lambda_events import FakeContext
    from tests.support.on_aws import token_service

    created = token_service().create("bench", CreateTokenRequest(scopes=[Scope.HOOKS, Scope.READ]))
    event = {"version": "2.0", "type": "REQUEST", "headers": {"authorization": f"Bearer {created.token}"}}
    before = ledger.rru
    for _ in range(AUTHORIZER_RUNS):
        with timings.span(HOOK_SERVICES) as span:
            answer = lambda_handler(event, FakeContext())  # type: ignore[arg-type]
        timings.authorizer.append(span.own_ms)
        timings.authorizer_calls.append(span.calls)
        assert answer["isAuthorized"], answer
    return (ledger.rru - before) / AUTHORIZER_RUNS


def table_keys() -> dict[str, TableKeys]:
    from infra.wiring import TABLES

    return {
        os.environ[spec.env_var]: TableKeys(
            spec.partition_key,
            spec.sort_key,
            {i.name: (i.partition_key, i.sort_key, i.projection) for i in spec.indexes},
        )
        for spec in TABLES
    }


def _mean(values: list[float]) -> float:
    return round(statistics.fmean(values), 2) if values else 0.0


def _median_ms(values: list[float]) -> float:
    return round(statistics.median(values), 1) if values else 0.0


@dataclass
class Measurement:
    usage: Usage
    by_operation: dict[str, float]  # requests per prompt, by service:Operation (hook path)
    wru_by_item: dict[str, float]  # write units per prompt, by operation and item kind
    max_item_sizes: dict[str, int]  # the largest each kind of item grew, bytes


def measure(transcript_chars: int = TRANSCRIPT_CHARS_PER_PROMPT) -> Measurement:
    import boto3

    from continuity_core.kernel.aws import client
    from infra import wiring

    chunk = {"CONTINUITY_TRANSCRIPT_CHUNK_CHARS": str(BENCH_CHUNK_CHARS)}
    with moto_stack(**chunk) as (service, _), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Powertools warns of empty metric sets
        tables = table_keys()
        ledger = CapacityLedger(boto3.client("dynamodb"), tables)  # the probe is not counted
        operations, s3_bytes, log_bytes = OperationCounter(), S3Bytes(), ByteCounter()
        ledger.register(client("dynamodb"))
        timings = Timings(AwsTime().attach(HOOK_SERVICES), ledger)  # after the ledger: see probe_seconds
        for name in ("dynamodb", "sqs", "s3"):
            client(name).meta.events.register("request-created", operations)
        client("s3").meta.events.register("before-parameter-build.s3.PutObject", s3_bytes)

        session = Session(service, timings, transcript_chars=transcript_chars)
        with deployed_logging(log_bytes):
            session.run()
        stored = stored_bytes(ledger.probe, tables)
        hook_wru, hook_rru, wru_by_item = ledger.wru, ledger.rru, dict(ledger.wru_by_item)
        hook_operations = dict(operations.by_operation)
        max_item_sizes = dict(sorted(ledger.max_size_by_item.items()))
        pruner_wru, pruner_rru = prune_everything(ledger)
        by_operation = {op: count / SESSION_PROMPTS for op, count in sorted(hook_operations.items())}
        authorizer_rru = measure_authorizer(timings, ledger)

    per_prompt = 1 / SESSION_PROMPTS
    usage = Usage(
        http_requests=session.hooks * per_prompt,
        writer_invocations=session.writer_batches * per_prompt,
        hooks_ms=_median_ms(timings.hooks),
        writer_ms=_median_ms(timings.writer),
        authorizer_ms=_median_ms(timings.authorizer),
        hooks_aws_calls=_mean(timings.hooks_calls),
        writer_aws_calls=_mean(timings.writer_calls),
        authorizer_aws_calls=_mean(timings.authorizer_calls),
        hooks_memory_mb=wiring.HOOKS.memory_mb,
        writer_memory_mb=wiring.CHECKPOINT_WRITER.memory_mb,
        authorizer_memory_mb=wiring.AUTHORIZER.memory_mb,
        dynamodb_wru=hook_wru * per_prompt,
        dynamodb_rru=hook_rru * per_prompt,
        pruner_wru=pruner_wru * per_prompt,
        pruner_rru=pruner_rru * per_prompt,
        authorizer_rru=authorizer_rru,
        dynamodb_stored_bytes=round(stored * per_prompt),
        s3_puts=by_operation.get("s3:PutObject", 0.0),
        s3_gets=by_operation.get("s3:GetObject", 0.0),
        s3_stored_bytes=round(s3_bytes.put_bytes * per_prompt),
        sqs_requests=sum(v for k, v in by_operation.items() if k.startswith("sqs:")),
        app_log_bytes=round(log_bytes.bytes * per_prompt),
    )
    wru_per_prompt = {k: v * per_prompt for k, v in sorted(wru_by_item.items(), key=lambda kv: -kv[1])}
    return Measurement(usage, by_operation, wru_per_prompt, max_item_sizes)


def run() -> dict[str, float]:
    usage = measure().usage
    without = measure(transcript_chars=0).usage
    return {
        **{key: round(value, 4) for key, value in costs(usage).items()},
        "cost_per_100k_prompts_without_transcripts_usd": round(
            costs(without)["cost_per_100k_prompts_usd"], 4
        ),
        "cost_dynamodb_wru_per_prompt": round(usage.dynamodb_wru, 3),
        "cost_http_requests_per_prompt": round(usage.http_requests, 3),
    }


def main(argv: list[str]) -> int:
    transcript_chars = 0 if "--without-transcripts" in argv else TRANSCRIPT_CHARS_PER_PROMPT
    measurement = measure(transcript_chars)
    if "--markdown" in argv:
        print(markdown(measurement.usage))
        print("| requests per prompt (hook path) | count |\n|---|---|")
        for operation, count in measurement.by_operation.items():
            print(f"| `{operation}` | {count:.3g} |")
        print("\n| write units per prompt | WRU |\n|---|---|")
        for item, units in measurement.wru_by_item.items():
            print(f"| {item} | {units:.3g} |")
        print("\n| item | largest size (bytes) |\n|---|---|")
        for kind, size in measurement.max_item_sizes.items():
            print(f"| `{kind}` | {size:,} |")
    else:
        for key, value in costs(measurement.usage).items():
            print(f"{key:<28} {value:.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
