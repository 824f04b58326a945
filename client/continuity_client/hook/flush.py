"""``continuity flush``: replay the spooled hooks now (a person's command; not on the hook run's path)."""

from __future__ import annotations

import argparse
import os
import sys
import time

from continuity_client.hook import locallog, spool
from continuity_client.hook.delivery import Delivery, logger
from continuity_client.setup import config


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="continuity flush", description="Replay spooled hooks now.")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds to spend at most (default 30)")
    args = parser.parse_args(argv)
    settings = config.load()
    if not settings.configured:
        print("not configured: run `continuity login --url URL --token TOKEN`", file=sys.stderr)
        return 1
    files = spool.pending_files(settings.home)
    if not files:
        print("spool empty")
        return 0
    deadline = time.monotonic() + args.timeout
    delivery = Delivery(settings, os.environ, logger(settings.home), deadline)
    spool.mark_up(settings.home)
    status, handled = delivery.replay(files, deadline)
    left = spool.summary(settings.home)["records"]
    print(f"replayed {handled} hook(s); {left} left ({status})")
    if left:
        print(f"see {locallog.log_path(settings.home)} for why")
    return 0 if not left else 1
