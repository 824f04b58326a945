"""Live transcripts and session search, in-process on moto.

- transcript_bytes_ratio: a 100-prompt session whose readable transcript grows 1.5 to 6 KB per prompt
  (some non-ASCII), each hook carrying only the new part. ``transcript_bytes_sent_ratio`` = UTF-8
  bytes of the deltas the client sent ÷ the final transcript; ``transcript_bytes_stored_ratio`` =
  bytes at rest (gzip S3 chunks + the zlib-compressed append items, every one of them: moved
  appends stay until their TTL) ÷ the final transcript;
  ``transcript_bytes_ratio`` = the larger of the two (goal ≤ 1.05). For the record,
  ``transcript_storage_write_ratio`` = request bytes our clients sent to DynamoDB and S3 for the
  transcript ÷ the final transcript (text reaches DynamoDB first, then moves to S3 once).
- hook_requests_per_prompt_with_transcript: the same session's AWS requests per prompt (DynamoDB, SQS,
  S3; writer included), to compare with ``hook_requests_per_prompt`` (goal: at most one more).
- search_ms_10 / _50 / _200: median latency of ``POST /api/sessions/search`` (handler in-process)
  over a project with 10 / 50 / 200 sessions of 100 KB in scope, on a warm function (what it indexed
  stays indexed); search_cold_ms_*: the first search of each, which reads every body (S3) and indexes
  it. search_ms_200_of_2000: the same 200 in scope while 2,000 sessions of that project are stored.
  search_own_ms_*: the same medians without the time spent inside AWS calls. moto answers a GSI
  query by scanning every item of the table and deep-copying the matches, so on moto the store's
  share grows with what is stored; DynamoDB reads only the ``Limit`` items of the partition.
"""

from __future__ import annotations

import itertools
import os
import random
import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

from bench.aws_time import AwsTime
from continuity_core.kernel import names

PROMPTS = 100
SESSION_CHARS = 100_000
SEARCH_RUNS = 15
_SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "zen", "pra", "qui", "dor", "bel", "fin", "gus"]
_COMMON = ["the", "agent", "edited", "tests", "and", "ran", "fixture", "payment", "mock", "writer", "queue"]
_ACCENTED = ["café", "naïve", "→", "😀", "größe"]


def vocabulary(rng: random.Random, size: int = 20_000) -> list[str]:
    """Common words first, then made-up ones: sampled by 1/rank (Zipf), like prose and code."""
    made = {"".join(rng.choices(_SYLLABLES, k=rng.randint(2, 4))) for _ in range(size * 2)}
    return [*_COMMON, *sorted(made)[: size - len(_COMMON)]]


class Counter:
    def __init__(self) -> None:
        self.requests = 0
        self.bytes = 0

    def __call__(self, request: Any = None, **_: Any) -> None:
        self.requests += 1
        body = getattr(request, "body", None)
        if body is not None:
            self.bytes += len(body) if isinstance(body, bytes | str) else 0


@contextmanager
def moto_stack(**settings: str) -> Iterator[tuple[Any, Counter]]:
    from bench.bench_requests import moto_service
    from continuity_core.kernel.aws import client
    from tests.support.cold_starts import reset_functions

    os.environ.update(settings)
    reset_functions()
    try:
        with moto_service() as (service, _):
            counter = Counter()
            for name in ("dynamodb", "sqs", "s3"):
                client(name).meta.events.register("request-created", counter)
            yield service, counter
    finally:
        for name in settings:
            os.environ.pop(name, None)
        reset_functions()


def prose(rng: random.Random, chars: int, words: list[str] | None = None) -> str:
    words = words or vocabulary(rng, 2000)
    weights = [1 / (rank + 1) for rank in range(len(words))]
    picked = rng.choices(words, cum_weights=list(itertools.accumulate(weights)), k=chars // 5 + 1)
    text = " ".join(rng.choice(_ACCENTED) if rng.random() < 0.01 else w for w in picked)
    return text[:chars]


def transcript_session() -> dict[str, float]:
    rng = random.Random(7)
    with moto_stack() as (service, counter):
        import boto3

        from continuity_core.kernel.dynamo_items import session_pk
        from tests.support import on_aws

        service.hook("session-start", {"session_id": "bench", "cwd": "/bench/project"})
        text, sent_bytes = "", 0
        before = counter.requests
        for n in range(PROMPTS):
            delta = f"User: step {n}\nAssistant: " + prose(rng, rng.randint(1500, 6000)) + "\n"
            body = {
                "session_id": "bench",
                "cwd": "/bench/project",
                "prompt": f"step {n}",
                "transcript": {"offset": len(text), "text": delta},
            }
            text += delta
            sent_bytes += len(delta.encode("utf-8"))
            status, _ = service.hook("user-prompt-submit", body)
            assert status == 200
            service.drain_queue()
        requests = counter.requests - before
        head = on_aws.transcript_reader().assembled_head("default", "bench")
        assert head is not None and on_aws.transcript_reader().read("default", head) == text
        s3 = boto3.client("s3")
        objects = s3.list_objects_v2(Bucket=os.environ[names.BUCKET_ENV]).get("Contents", [])
        appends = boto3.client("dynamodb").query(
            TableName=os.environ[names.TABLE_ENV],
            KeyConditionExpression=f"{names.PK} = :pk AND begins_with({names.SK}, :d)",
            ExpressionAttributeValues={
                ":pk": {"S": session_pk("default", "bench")},
                ":d": {"S": names.TRANSCRIPT_APPEND_PREFIX},
            },
        )["Items"]
        at_rest = sum(o["Size"] for o in objects) + sum(len(a["z"]["B"]) for a in appends)
        final = len(text.encode("utf-8"))

    with moto_stack() as (service, counter):  # the same session without transcripts: the write path
        service.hook("session-start", {"session_id": "bench", "cwd": "/bench/project"})
        before_bytes = counter.bytes
        for n in range(PROMPTS):
            service.hook(
                "user-prompt-submit", {"session_id": "bench", "cwd": "/bench/project", "prompt": f"step {n}"}
            )
            service.drain_queue()
        baseline_bytes = counter.bytes - before_bytes

    with moto_stack() as (service, counter):
        rng = random.Random(7)
        service.hook("session-start", {"session_id": "bench", "cwd": "/bench/project"})
        text = ""
        before_bytes = counter.bytes
        for n in range(PROMPTS):
            delta = f"User: step {n}\nAssistant: " + prose(rng, rng.randint(1500, 6000)) + "\n"
            service.hook(
                "user-prompt-submit",
                {
                    "session_id": "bench",
                    "cwd": "/bench/project",
                    "prompt": f"step {n}",
                    "transcript": {"offset": len(text), "text": delta},
                },
            )
            text += delta
            service.drain_queue()
        write_bytes = counter.bytes - before_bytes - baseline_bytes

    sent_ratio, stored_ratio = sent_bytes / final, at_rest / final
    return {
        "transcript_bytes_ratio": max(sent_ratio, stored_ratio),
        "transcript_bytes_sent_ratio": sent_ratio,
        "transcript_bytes_stored_ratio": stored_ratio,
        "transcript_storage_write_ratio": write_bytes / final,
        "transcript_s3_objects": float(len(objects)),
        "hook_requests_per_prompt_with_transcript": requests / PROMPTS,
    }


def seed(project: str, sessions: int, start: datetime, rng: random.Random, pool: str, prefix: str) -> None:
    """``sessions`` transcripts of ~100 KB in ``project``, updated one second apart from ``start``,
    written as a prompt hook writes them (the state's update with the transcript hint, the append)."""
    from continuity_core.hooks.ports import PromptRecord
    from continuity_core.models.state import SessionIdentity
    from continuity_core.transcripts.ports import TranscriptHint
    from tests.support import on_aws

    appender, states = on_aws.transcript_appender(), on_aws.state_store()
    for n in range(sessions):
        at = rng.randrange(0, len(pool) - SESSION_CHARS)
        text = pool[at : at + SESSION_CHARS - 40] + f" marker {prefix}{n} end of session.\n"
        identity = SessionIdentity(
            session_key=f"{prefix}{n}", harness="claude-code", project=project, project_normalized=project
        )
        now = start + timedelta(seconds=n)
        states.record_prompt("default", identity, PromptRecord("seed", transcript_end=len(text)), now)
        written = appender.append("default", identity, 0, text, now, TranscriptHint(-1, None))
        if written.hint is not None:  # as the hook service does: the state learns of the head
            states.set_transcript_hint(
                "default", identity.session_key, written.hint.previous_end, written.hint.head_written_at
            )


def search_latency(api: Any, project: str, query: str, aws: AwsTime) -> tuple[float, float, float]:
    """(cold ms: the first search; warm median ms; warm median ms outside AWS calls)."""

    def once() -> tuple[float, float]:
        before = aws.seconds
        started = time.perf_counter()
        status, body = api.search(query=query, project=project, limit=10)
        elapsed = time.perf_counter() - started
        assert status == 200 and body["results"], body
        return elapsed * 1000, (elapsed - (aws.seconds - before)) * 1000

    cold, _ = once()
    runs = [once() for _ in range(SEARCH_RUNS)]
    return cold, statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


def search_scaling() -> dict[str, float]:
    from tests.support.sessions import SessionsApi

    rng = random.Random(11)
    words = vocabulary(rng)
    pool = prose(rng, 2_000_000, words)
    query = f"{words[60]} {words[600]} fixture"  # a frequent, a rarer and a common word
    out: dict[str, float] = {}
    base = datetime.now(UTC) - timedelta(days=1)
    with moto_stack(CONTINUITY_SEARCH_MAX_SESSIONS="200"):
        api, aws = SessionsApi(), AwsTime()
        aws.attach()
        for size in (10, 50, 200):
            project = f"/bench/search-{size}"
            seed(project, size, base + timedelta(hours=1), rng, pool, f"p{size}-")
            cold, warm, own = search_latency(api, project, query, aws)
            out[f"search_cold_ms_{size}"], out[f"search_ms_{size}"], out[f"search_own_ms_{size}"] = (
                cold,
                warm,
                own,
            )
        # 1,800 older sessions of the same project: 2,000 stored, the newest 200 in scope
        seed("/bench/search-200", 1800, base, rng, pool, "old-")
        _, out["search_ms_200_of_2000"], out["search_own_ms_200_of_2000"] = search_latency(
            api, "/bench/search-200", query, aws
        )
    return out


def run() -> dict[str, float]:
    return {**transcript_session(), **search_scaling()}
