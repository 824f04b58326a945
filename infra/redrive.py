"""Move the checkpoint DLQ's messages back to the checkpoint queue: ``make redrive STAGE=…`` / ``LOCAL=1``.

    python -m infra.redrive --stage prod                  # queues from the stack's outputs
    python -m infra.redrive --queue-url Q --dlq-url D     # explicit queues
    python -m infra.redrive --local --endpoint-url http://127.0.0.1:5001   # the local stack's moto

A redriven flush is safe to deliver again: the writer is idempotent on the flush token, and a flush
whose session moved on is a no-op. Two ways to move:

* ``move-task``: SQS ``StartMessageMoveTask`` (the console's "DLQ redrive"), asynchronous; by
  default this waits until the task ends and reports how many messages it moved.
* ``copy``: receive from the DLQ in batches of 10, ``SendMessageBatch`` to the queue with the same
  body and message attributes, then delete from the DLQ only what was sent. A message that could
  not be sent stays in the DLQ (visible again after ``--visibility-timeout``).

``auto`` (the default) tries the move task and falls back to copying where the API is missing
(moto; ``--local`` copies at once); ``--max-messages`` always copies (a move task cannot be limited).
Exit status: 0 done (also when the DLQ was empty), 1 a failure, 2 bad arguments.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from infra.outputs import CHECKPOINT_DLQ_URL, CHECKPOINT_QUEUE_URL, OutputsError, describe_outputs, require

METHODS = ("auto", "move-task", "copy")
BATCH = 10  # SQS receive and send-batch maximum
# Error codes meaning "this endpoint has no StartMessageMoveTask" (moto server answers a bare 500).
_MOVE_TASK_MISSING = {"500", "InternalFailure", "InvalidAction", "UnsupportedOperation", "NotImplemented"}
_TASK_DONE = {"COMPLETED", "FAILED", "CANCELLED"}


@dataclass(frozen=True)
class Queues:
    queue_url: str  # where the messages go back to
    dlq_url: str


@dataclass
class RedriveResult:
    method: str
    moved: int = 0
    failed: list[str] = field(default_factory=list)  # "message id: reason"
    task_status: str | None = None  # move-task: the task's last status

    @property
    def ok(self) -> bool:
        return not self.failed and self.task_status in (None, "COMPLETED", "RUNNING")


def queue_arn(sqs: Any, url: str) -> str:
    return str(sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"])


def depth(sqs: Any, url: str) -> int:
    attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages"])
    return int(attributes["Attributes"].get("ApproximateNumberOfMessages", 0))


def redrive(
    sqs: Any,
    queues: Queues,
    *,
    method: str = "auto",
    max_messages: int | None = None,
    wait_s: float = 300.0,
    visibility_timeout_s: int = 60,
    receive_wait_s: int = 1,
    sleep: Callable[[float], None] = time.sleep,
) -> RedriveResult:
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}")
    if max_messages is not None or method == "copy":
        return copy_messages(
            sqs,
            queues,
            max_messages=max_messages,
            visibility_timeout_s=visibility_timeout_s,
            receive_wait_s=receive_wait_s,
        )
    try:
        return move_task(sqs, queues, wait_s=wait_s, sleep=sleep)
    except NotImplementedError:  # moto in-process
        pass
    except Exception as error:
        if method == "move-task" or _error_code(error) not in _MOVE_TASK_MISSING:
            raise
    return copy_messages(
        sqs, queues, visibility_timeout_s=visibility_timeout_s, receive_wait_s=receive_wait_s
    )


def _error_code(error: Exception) -> str:
    response = getattr(error, "response", None) or {}
    return str(response.get("Error", {}).get("Code", ""))


def move_task(sqs: Any, queues: Queues, *, wait_s: float, sleep: Callable[[float], None]) -> RedriveResult:
    """SQS StartMessageMoveTask from the DLQ to the queue; waits up to ``wait_s`` for its end."""
    source, destination = queue_arn(sqs, queues.dlq_url), queue_arn(sqs, queues.queue_url)
    handle = sqs.start_message_move_task(SourceArn=source, DestinationArn=destination)["TaskHandle"]
    result = RedriveResult(method="move-task", task_status="RUNNING")
    deadline = time.monotonic() + wait_s
    while True:
        tasks = sqs.list_message_move_tasks(SourceArn=source, MaxResults=10).get("Results", [])
        task = next((t for t in tasks if t.get("TaskHandle") == handle), tasks[0] if tasks else {})
        result.task_status = str(task.get("Status", "RUNNING"))
        result.moved = int(task.get("ApproximateNumberOfMessagesMoved", 0))
        if result.task_status in _TASK_DONE or time.monotonic() >= deadline:
            if result.task_status in ("FAILED", "CANCELLED"):
                result.failed.append(f"move task {handle}: {task.get('FailureReason', result.task_status)}")
            return result
        sleep(2.0)


def copy_messages(
    sqs: Any,
    queues: Queues,
    *,
    max_messages: int | None = None,
    visibility_timeout_s: int = 60,
    receive_wait_s: int = 1,
) -> RedriveResult:
    """Receive → SendMessageBatch (same body and attributes) → delete what was sent, until empty."""
    result = RedriveResult(method="copy")
    fifo = queues.queue_url.endswith(".fifo")
    while max_messages is None or result.moved + len(result.failed) < max_messages:
        wanted = (
            BATCH if max_messages is None else min(BATCH, max_messages - result.moved - len(result.failed))
        )
        messages = sqs.receive_message(
            QueueUrl=queues.dlq_url,
            MaxNumberOfMessages=wanted,
            WaitTimeSeconds=receive_wait_s,
            VisibilityTimeout=visibility_timeout_s,
            MessageAttributeNames=["All"],
            MessageSystemAttributeNames=["All"],
        ).get("Messages", [])
        if not messages:
            break
        entries = [_send_entry(str(n), message, fifo) for n, message in enumerate(messages)]
        sent = sqs.send_message_batch(QueueUrl=queues.queue_url, Entries=entries)
        ok = {entry["Id"] for entry in sent.get("Successful", [])}
        for failure in sent.get("Failed", []):
            message = messages[int(failure["Id"])]
            result.failed.append(
                f"{message['MessageId']}: {failure.get('Code')} {failure.get('Message', '')}"
            )
        done = [
            {"Id": str(n), "ReceiptHandle": message["ReceiptHandle"]}
            for n, message in enumerate(messages)
            if str(n) in ok
        ]
        if done:
            deleted = sqs.delete_message_batch(QueueUrl=queues.dlq_url, Entries=done)
            for failure in deleted.get("Failed", []):
                message = messages[int(failure["Id"])]
                # Sent but still in the DLQ: a later redrive sends it again (the writer is idempotent).
                result.failed.append(
                    f"{message['MessageId']}: sent, not deleted from the DLQ ({failure.get('Code')})"
                )
        result.moved += len(done)
        if len(ok) < len(messages):
            break  # the queue refuses sends: stop rather than spin on the same messages
    return result


def _send_entry(entry_id: str, message: dict[str, Any], fifo: bool) -> dict[str, Any]:
    entry: dict[str, Any] = {"Id": entry_id, "MessageBody": message["Body"]}
    attributes = {
        name: {k: v for k, v in value.items() if v not in ([], None)}
        for name, value in (message.get("MessageAttributes") or {}).items()
    }
    if attributes:
        entry["MessageAttributes"] = attributes
    system = message.get("Attributes") or {}
    if fifo:
        entry["MessageGroupId"] = system.get("MessageGroupId", "redrive")
        if "MessageDeduplicationId" in system:
            entry["MessageDeduplicationId"] = system["MessageDeduplicationId"]
    return entry


# --------------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------------


def local_queues(sqs: Any) -> Queues:
    """The local stack's checkpoint queue and its DLQ, by the names its provisioning gives them."""
    from infra.local.provision import physical_name
    from infra.wiring import CHECKPOINT_QUEUE

    name = physical_name(CHECKPOINT_QUEUE.key)
    return Queues(
        queue_url=sqs.get_queue_url(QueueName=name)["QueueUrl"],
        dlq_url=sqs.get_queue_url(QueueName=f"{name}-dlq")["QueueUrl"],
    )


def clients(args: argparse.Namespace) -> tuple[Any, Any]:
    """(sqs, cloudformation) for AWS, or for the local stack's moto (fake credentials, never AWS)."""
    import boto3

    if args.local:
        from infra.local.environment import FAKE_AWS

        session = boto3.session.Session(
            aws_access_key_id=FAKE_AWS["AWS_ACCESS_KEY_ID"],
            aws_secret_access_key=FAKE_AWS["AWS_SECRET_ACCESS_KEY"],
            aws_session_token=FAKE_AWS["AWS_SESSION_TOKEN"],
            region_name=FAKE_AWS["AWS_REGION"],
        )
        return (
            session.client("sqs", endpoint_url=args.endpoint_url),
            session.client("cloudformation", endpoint_url=args.endpoint_url),
        )
    session = boto3.session.Session(profile_name=args.profile, region_name=args.region)
    kwargs = {"endpoint_url": args.endpoint_url} if args.endpoint_url else {}
    return session.client("sqs", **kwargs), session.client("cloudformation", **kwargs)


def resolve_queues(args: argparse.Namespace, sqs: Any, cloudformation: Any) -> Queues:
    if args.queue_url or args.dlq_url:
        if not (args.queue_url and args.dlq_url):
            raise ValueError("give both --queue-url and --dlq-url")
        return Queues(args.queue_url, args.dlq_url)
    if args.local:
        return local_queues(sqs)
    outputs = describe_outputs(args.stage, cloudformation)
    return Queues(
        require(outputs, CHECKPOINT_QUEUE_URL, args.stage), require(outputs, CHECKPOINT_DLQ_URL, args.stage)
    )


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m infra.redrive", description=__doc__.split("\n\n")[0])
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--stage", help="the deployed stage: queues from the stack Continuity-{stage}")
    where.add_argument("--local", action="store_true", help="the local stack (needs --endpoint-url)")
    parser.add_argument("--queue-url", help="the queue to move messages back to")
    parser.add_argument("--dlq-url", help="the dead-letter queue to empty")
    parser.add_argument("--endpoint-url", help="SQS endpoint (the local stack's moto: see docs/DEPLOY.md)")
    parser.add_argument("--profile", help="AWS named profile")
    parser.add_argument("--region", help="AWS region")
    parser.add_argument("--method", choices=METHODS, default="auto")
    parser.add_argument("--max-messages", type=int, help="move at most this many (copies them)")
    parser.add_argument(
        "--wait", type=float, default=300.0, help="seconds to wait for a move task (0: don't)"
    )
    parser.add_argument("--visibility-timeout", type=int, default=60, help="copy: seconds a message is held")
    parser.add_argument("--dry-run", action="store_true", help="show the queues and the DLQ depth only")
    args = parser.parse_args(argv)
    if args.local and not args.endpoint_url:
        parser.error(
            "--local needs --endpoint-url (the local stack's moto URL, e.g. started with --moto-port)"
        )
    if not (args.stage or args.local or args.queue_url or args.dlq_url):
        parser.error("give --stage, --local, or --queue-url and --dlq-url")
    if args.max_messages is not None and args.max_messages < 1:
        parser.error("--max-messages must be at least 1")
    return args


def main(argv: Sequence[str] | None = None, *, sqs: Any = None, cloudformation: Any = None) -> int:
    args = parse_args(argv)
    try:
        if sqs is None or cloudformation is None:
            sqs, cloudformation = clients(args)
        queues = resolve_queues(args, sqs, cloudformation)
        waiting = depth(sqs, queues.dlq_url)
        print(f"DLQ {queues.dlq_url}: ~{waiting} message(s); queue {queues.queue_url}", flush=True)
        if args.dry_run:
            return 0
        # The local stack is moto, which has no StartMessageMoveTask: copy without trying.
        method = "copy" if args.local and args.method == "auto" else args.method
        result = redrive(
            sqs,
            queues,
            method=method,
            max_messages=args.max_messages,
            wait_s=args.wait,
            visibility_timeout_s=args.visibility_timeout,
        )
    except (OutputsError, ValueError) as error:
        print(f"redrive: {error}", file=sys.stderr)
        return 2 if isinstance(error, ValueError) else 1
    except Exception as error:  # credentials, endpoints, permissions: one clear line
        print(f"redrive: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    status = f", task {result.task_status}" if result.task_status else ""
    print(f"moved {result.moved} message(s) by {result.method}{status}")
    for failure in result.failed:
        print(f"  not moved: {failure}", file=sys.stderr)
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main())
