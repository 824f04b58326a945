"""The restore drill (``make restore-drill``): back up, lose, restore and compare, on the local stack.

It starts a local stack of its own (a fresh data directory, small S3 chunks so transcripts reach the
bucket), stores sessions through the HTTP API as clients do (prompts with live transcripts,
remembers, session ends, one session left pending), then:

1. **back up**: an on-demand DynamoDB backup of the table (``CreateBackup``); the bucket is versioned
   (as deployed), so its objects' versions are its back-up;
2. **lose**: every item deleted from the table and every object from the bucket, and the API shown
   to answer nothing any more;
3. **restore**: the backup restored into a new table, its items copied back into the service's table
   (the table CDK owns stays where it is), the restored table deleted; in the bucket each delete
   marker removed, so the version before it is current again;
4. **compare**: every item and object, and what the API answers for each session, against what
   they were before the loss. Any difference is printed and the drill exits 1.

Rate-window items (``RATE#``) are left out of the comparison: the drill's own requests move them.
docs/DEPLOY.md says what to do in production (point-in-time recovery, the same copy back).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "restore-drill-token"
PROJECT = "/work/restore-drill"
TABLE = "continuity-local-continuity-table"
BUCKET = "continuity-local-transcript-bucket"
QUEUE = "continuity-local-checkpoint-queue"
RATE_PREFIX = "RATE#"  # names.RATE_PREFIX (infra code may not import the layer before its paths are set)


# --------------------------------------------------------------------------------------------
# What is stored, and how two snapshots differ
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Snapshot:
    items: dict[str, str]  # "pk|sk" -> the item as canonical JSON
    objects: dict[str, str]  # key -> sha256 of the body
    answers: dict[str, str]  # API path -> its answer as canonical JSON


def differences(before: Snapshot, after: Snapshot) -> list[str]:
    """Every item, object or API answer missing, added or changed, one line each."""
    found: list[str] = []
    for kind, old, new in (
        ("item", before.items, after.items),
        ("object", before.objects, after.objects),
        ("answer", before.answers, after.answers),
    ):
        for key in sorted(old.keys() - new.keys()):
            found.append(f"{kind} missing after the restore: {key}")
        for key in sorted(new.keys() - old.keys()):
            found.append(f"{kind} not there before: {key}")
        for key in sorted(k for k in old.keys() & new.keys() if old[k] != new[k]):
            found.append(f"{kind} changed: {key}")
    return found


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


# --------------------------------------------------------------------------------------------
# The local stack and its API
# --------------------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Stack:
    """``python -m infra.local`` in a fresh data directory, on free ports."""

    def __init__(self, data_dir: Path) -> None:
        self.port, self.moto_port = _free_port(), _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.moto_url = f"http://127.0.0.1:{self.moto_port}"
        self._log = data_dir / "stack.log"
        self._data = data_dir / "data"
        self._process: subprocess.Popen[bytes] | None = None

    def start(self, timeout_s: float = 90) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "MOTO_"))}
        env |= {"CONTINUITY_FLUSH_DELAY_SECONDS": "1", "CONTINUITY_TRANSCRIPT_CHUNK_CHARS": "16384"}
        command = [sys.executable, "-m", "infra.local", "--port", str(self.port), "--token", TOKEN]
        command += ["--moto-port", str(self.moto_port), "--data-dir", str(self._data), "--fresh"]
        with open(self._log, "ab") as log:
            self._process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if re.search(r"^ready$", self._log.read_text(errors="replace"), re.M):
                return
            if self._process.poll() is not None:
                break
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"the local stack did not start:\n{self._log.read_text(errors='replace')[-3000:]}")

    def stop(self) -> None:
        if self._process is None:
            return
        self._process.send_signal(signal.SIGTERM)
        try:
            self._process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        self._process = None

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode("utf-8")
        request = urllib.request.Request(f"{self.url}{path}", data=data, method=method)
        request.add_header("Authorization", f"Bearer {TOKEN}")
        request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")

    def hook(self, event: str, body: dict[str, Any]) -> None:
        status, answer = self.request("POST", f"/api/hooks/{event}", body)
        if status != 200:
            raise RuntimeError(f"{event} answered {status}: {answer}")

    def aws(self, service: str) -> Any:
        import boto3

        make: Any = boto3.client  # one call for every service (the stubs type each by its name)
        return make(
            service,
            endpoint_url=self.moto_url,
            region_name="us-east-1",
            aws_access_key_id="local",
            aws_secret_access_key="local",
        )


# --------------------------------------------------------------------------------------------
# The drill's steps
# --------------------------------------------------------------------------------------------


def seed(stack: Stack, sessions: int = 3, prompts: int = 12) -> list[str]:
    """Sessions as clients store them; the last one is left with prompts pending (no end)."""
    keys = [f"drill-{n}" for n in range(sessions)]
    for number, key in enumerate(keys):
        base = {"session_id": key, "cwd": PROJECT}
        stack.hook("session-start", {**base, "hook_event_name": "SessionStart", "source": "startup"})
        offset = 0
        for n in range(1, prompts + 1):
            text = (
                f"User: step {n} of {key}: keep the parser strict\n\nAssistant: " + "checked. " * 400 + "\n\n"
            )
            stack.hook(
                "user-prompt-submit",
                {
                    **base,
                    "hook_event_name": "UserPromptSubmit",
                    "prompt": f"step {n} of {key}: keep the parser strict",
                    "transcript": {"offset": offset, "text": text},
                },
            )
            offset += len(text)
        stack.hook("remember", {**base, "content": f"{key} deploys with make deploy STAGE=prod"})
        if number < len(keys) - 1:
            stack.hook("session-end", {**base, "hook_event_name": "SessionEnd", "reason": "logout"})
    return keys


def wait_for_quiet_queue(stack: Stack, timeout_s: float = 60) -> None:
    """Every flush delivered: nothing visible, in flight or delayed."""
    sqs = stack.aws("sqs")
    url = sqs.get_queue_url(QueueName=QUEUE)["QueueUrl"]
    names = ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"]
    names.append("ApproximateNumberOfMessagesDelayed")
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=names)["Attributes"]
        if all(attributes.get(name) == "0" for name in names):
            return
        time.sleep(0.5)
    raise RuntimeError("the checkpoint queue did not drain")


def _scan(dynamodb: Any, table: str) -> Iterator[dict[str, Any]]:
    for page in dynamodb.get_paginator("scan").paginate(TableName=table, ConsistentRead=True):
        yield from page["Items"]


def snapshot(stack: Stack, sessions: list[str]) -> Snapshot:
    dynamodb, s3 = stack.aws("dynamodb"), stack.aws("s3")
    items = {
        f"{item['pk']['S']}|{item['sk']['S']}": _canonical(item)
        for item in _scan(dynamodb, TABLE)
        if not item["pk"]["S"].startswith(RATE_PREFIX)
    }
    objects = {}
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=BUCKET):
        for entry in page.get("Contents", []):
            body = s3.get_object(Bucket=BUCKET, Key=entry["Key"])["Body"].read()
            objects[entry["Key"]] = hashlib.sha256(body).hexdigest()
    answers = {}
    for key in sessions:
        for path in (f"/api/checkpoints/{key}", f"/api/sessions/{key}/transcript"):
            answers[path] = _canonical(stack.request("GET", path))
    answers["/api/sessions"] = _canonical(stack.request("GET", f"/api/sessions?project={PROJECT}"))
    return Snapshot(items, objects, answers)


def back_up(stack: Stack) -> str:
    backup = stack.aws("dynamodb").create_backup(TableName=TABLE, BackupName=f"drill-{int(time.time())}")
    return str(backup["BackupDetails"]["BackupArn"])


def lose_everything(stack: Stack) -> None:
    dynamodb, s3 = stack.aws("dynamodb"), stack.aws("s3")
    keys = [{"pk": item["pk"], "sk": item["sk"]} for item in _scan(dynamodb, TABLE)]
    for start in range(0, len(keys), 25):
        batch = [{"DeleteRequest": {"Key": key}} for key in keys[start : start + 25]]
        dynamodb.batch_write_item(RequestItems={TABLE: batch})
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=BUCKET):
        for entry in page.get("Contents", []):
            s3.delete_object(Bucket=BUCKET, Key=entry["Key"])  # versioned: a delete marker


def restore(stack: Stack, backup_arn: str) -> None:
    dynamodb, s3 = stack.aws("dynamodb"), stack.aws("s3")
    restored = f"{TABLE}-restored"
    dynamodb.restore_table_from_backup(TargetTableName=restored, BackupArn=backup_arn)
    dynamodb.get_waiter("table_exists").wait(TableName=restored)
    items = list(_scan(dynamodb, restored))
    for start in range(0, len(items), 25):
        batch = [{"PutRequest": {"Item": item}} for item in items[start : start + 25]]
        dynamodb.batch_write_item(RequestItems={TABLE: batch})
    dynamodb.delete_table(TableName=restored)
    for page in s3.get_paginator("list_object_versions").paginate(Bucket=BUCKET):
        for marker in page.get("DeleteMarkers", []):
            if marker["IsLatest"]:
                s3.delete_object(Bucket=BUCKET, Key=marker["Key"], VersionId=marker["VersionId"])


def drill(work: Path) -> int:
    stack = Stack(work)
    stack.start()
    try:
        sessions = seed(stack)
        wait_for_quiet_queue(stack)
        before = snapshot(stack, sessions)
        print(
            f"stored: {len(before.items)} items, {len(before.objects)} S3 objects, {len(sessions)} sessions"
        )
        backup_arn = back_up(stack)
        print(f"backed up: {backup_arn}")
        lose_everything(stack)
        lost = snapshot(stack, sessions)
        if lost.items or lost.objects:
            print("the loss did not happen: items or objects are still there", file=sys.stderr)
            return 1
        print(f"lost: the API now answers differently for {len(differences(before, lost))} things")
        restore(stack, backup_arn)
        after = snapshot(stack, sessions)
    finally:
        stack.stop()
    found = differences(before, after)
    for line in found:
        print(line, file=sys.stderr)
    if found:
        print(f"restore drill FAILED: {len(found)} differences", file=sys.stderr)
        return 1
    print(f"restored: {len(after.items)} items, {len(after.objects)} S3 objects, every API answer identical")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m infra.restore_drill", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--work-dir", type=Path, help="where the stack's data and log go (default: a temp dir)"
    )
    args = parser.parse_args(argv)
    if args.work_dir is not None:
        args.work_dir.mkdir(parents=True, exist_ok=True)
        return drill(args.work_dir)
    with tempfile.TemporaryDirectory(prefix="continuity-restore-drill-") as work:
        return drill(Path(work))


if __name__ == "__main__":
    raise SystemExit(main())
