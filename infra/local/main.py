"""``continuity local`` / ``python -m infra.local``: run the local stack until SIGINT or SIGTERM.

Prints ``url: ...``, ``token: ...``, ``dashboard: ...`` and then ``ready`` once requests are
served. Exit status: 0 after a clean stop, 2 for a bad configuration or arguments, 1 if the stack
could not start.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
from pathlib import Path

from infra.local.environment import DEFAULT_DATA_DIR, ensure_import_paths, load_or_create_token
from infra.local.faults import FAULTS_ENV_VAR, Faults, FaultSpecError

log = logging.getLogger(__name__)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="continuity local",
        description="Run Continuity on this machine: moto as AWS, the handlers behind a local gateway.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="interface to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8787, help="gateway port (default 8787; 0 = any)")
    parser.add_argument("--token", help="API token to accept (default: <data-dir>/token, created once)")
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=DEFAULT_DATA_DIR,
        help=f"where data survives restarts (default {DEFAULT_DATA_DIR})",
    )
    parser.add_argument(
        "--fresh", action="store_true", help="start empty: delete the recorded data (the token stays)"
    )
    parser.add_argument("--moto-port", type=int, default=0, help="moto server port (default: any free)")
    parser.add_argument("--log-level", default="INFO", help="local stack log level (default INFO)")
    parser.add_argument(
        "--no-access-guard",
        dest="access_guard",
        action="store_false",
        help="do not check the functions' AWS calls against their synthesized IAM policies "
        "(the check needs a CDK synth, i.e. Node.js, whenever the CDK sources changed)",
    )
    parser.add_argument(
        "--faults",
        default=os.environ.get(FAULTS_ENV_VAR, ""),
        help="inject faults on purpose, e.g. aws_errors=0.2,writer_crash=0.1,sqs_duplicate,sqs_delay=0.1 "
        f"(default ${FAULTS_ENV_VAR}; see docs/LOCAL.md)",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(
        level=args.log_level.upper(),
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    for noisy in ("botocore", "boto3", "urllib3"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    ensure_import_paths()
    from continuity_core.kernel.config import ConfigError
    from infra.local.stack import AlreadyRunningError, LocalStack, StackOptions

    try:
        faults = Faults.parse(args.faults)
    except FaultSpecError as error:
        print(f"continuity local: --faults: {error}", file=sys.stderr)
        return 2
    data_dir: Path = args.data_dir.expanduser().resolve()
    token = args.token or load_or_create_token(data_dir)
    options = StackOptions(
        token=token,
        data_dir=data_dir,
        fresh=args.fresh,
        host=args.host,
        port=args.port,
        moto_port=args.moto_port,
        access_guard=args.access_guard,
        faults=faults,
    )
    stack = LocalStack(options)
    try:
        stack.start()
    except ConfigError as error:
        print(f"continuity local: {error}", file=sys.stderr)
        return 2
    except (OSError, AlreadyRunningError, RuntimeError, ValueError) as error:
        print(f"continuity local: cannot start: {error}", file=sys.stderr)
        return 1

    stopping = threading.Event()
    _on_signals(stopping)
    print(f"Continuity local stack (data in {data_dir})")
    print(f"url: {stack.url}")
    print(f"token: {token}")
    print(f"dashboard: {stack.url}/dashboard")
    print("ready", flush=True)
    try:
        while not stopping.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    log.info("stopping")
    stack.stop()
    return 0


def _on_signals(stopping: threading.Event) -> None:
    if threading.current_thread() is not threading.main_thread():
        return  # signals can only be handled on the main thread; the caller stops us otherwise

    def handle(signum: int, _frame: object) -> None:
        stopping.set()

    signal.signal(signal.SIGINT, handle)
    signal.signal(signal.SIGTERM, handle)
