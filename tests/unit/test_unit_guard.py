"""The unit layer's guard: a unit test that reaches outside the process fails, naming where it belongs."""

from __future__ import annotations

import socket
import subprocess
import threading
import time
from collections.abc import Iterator

import boto3
import pytest

from tests.support.unit_guard import UnitTestEscaped


def test_a_unit_test_cannot_open_a_socket_start_a_process_sleep_or_call_aws() -> None:
    with pytest.raises(UnitTestEscaped, match="network connection: move the test to tests/integration"):
        socket.create_connection(("127.0.0.1", 9))
    with pytest.raises(UnitTestEscaped, match="start a process"):
        subprocess.run(["true"], check=False)
    with pytest.raises(UnitTestEscaped, match="sleep"):
        time.sleep(0.01)
    time.sleep(0)  # only yields
    sqs = boto3.client("sqs", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x")
    with pytest.raises(UnitTestEscaped, match="call AWS"):
        sqs.list_queues()


@pytest.fixture(scope="module")
def earlier_thread() -> Iterator[tuple[threading.Event, threading.Event, list[str]]]:
    """A thread started before the test (as another layer's server loop is in `make test`)."""
    go, done, outcome = threading.Event(), threading.Event(), []

    def run() -> None:
        go.wait(10)
        try:
            time.sleep(0.001)
            outcome.append("slept")
        except UnitTestEscaped:
            outcome.append("refused")
        done.set()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    yield go, done, outcome
    thread.join(10)


def test_a_thread_running_before_the_test_is_left_alone(
    earlier_thread: tuple[threading.Event, threading.Event, list[str]],
) -> None:
    go, done, outcome = earlier_thread
    go.set()

    assert done.wait(10)
    assert outcome == ["slept"]
