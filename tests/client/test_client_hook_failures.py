"""A hook never harms the agent: exit 0, nothing on stdout, a line in the local log."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from continuity_client.hook import delivery, harness, run, spool, transport
from tests.client.client_support import SLACK_S, eventually, log_text, plain, run_hook, run_hook_cli, spooled
from tests.client.fake_continuity_service import (
    BAD_REQUEST,
    ERROR_500,
    HANG,
    HANG_S,
    MALFORMED,
    TOO_MANY,
    UNAUTHORIZED,
    FakeService,
    closed_port,
)

PROMPT = {"session_id": "s-1", "cwd": "/tmp", "prompt": "go on"}
START = {"session_id": "s-1", "cwd": "/tmp", "source": "startup"}


@pytest.mark.parametrize("mode", [HANG, ERROR_500, TOO_MANY, UNAUTHORIZED, MALFORMED, BAD_REQUEST, "refused"])
@pytest.mark.parametrize("args", [["session-start"], ["user-prompt-submit", "--harness", "codex"]])
def test_the_process_exits_0_silently_whatever_the_service_does(
    mode: str, args: list[str], service: FakeService, client_env: dict[str, str], home: Path
) -> None:
    # Given a service that fails in one way
    env = {**client_env, "CONTINUITY_HOOK_TIMEOUT_S": "0.5"}
    if mode == "refused":
        env["CONTINUITY_URL"] = f"http://127.0.0.1:{closed_port()}"
    else:
        service.mode = mode
    service.answers["session-start"] = {"hookSpecificOutput": {"additionalContext": "never shown"}}

    # When the harness runs the hook
    started = time.monotonic()
    result = run_hook_cli(args, START if args[0] == "session-start" else PROMPT, env)
    elapsed = time.monotonic() - started

    # Then it exits 0 with empty stdout and stderr, and a hung service did not hold it past its
    # budget (the service would have held it HANG_S)
    assert (result.code, result.stdout, result.stderr) == (0, "", "")
    assert elapsed < 0.5 + SLACK_S < HANG_S
    # And the hook (the prompt's: in the background) made one attempt and logged why it failed
    attempts = 0 if mode == "refused" else 1
    assert eventually(lambda: len(service.requests) == attempts and log_text(home).strip())
    assert len(service.requests) == attempts


def test_a_hung_service_is_cut_at_the_deadline_and_the_hook_spooled(
    service: FakeService, client_env: dict[str, str], home: Path
) -> None:
    # Given a service that holds every request for HANG_S without answering, and a 0.3 s budget
    service.mode = HANG
    env = {**client_env, "CONTINUITY_HOOK_TIMEOUT_S": "0.3"}

    # When a prompt's hook runs
    started = time.monotonic()
    result = run_hook(["user-prompt-submit"], PROMPT, env)
    elapsed = time.monotonic() - started

    # Then it waited for the one request until a grace before its budget (time to spool and exit
    # within it), gave up, and spooled the hook
    assert 0.3 - 0.3 / 4 <= elapsed < 0.3 + SLACK_S < HANG_S
    assert len(service.requests) == 1
    assert (result.code, result.stdout) == (0, "")
    assert [plain(r["key"]) for r in spooled(home)] == ["s-1:user-prompt-submit:1"]
    assert "timed out" in plain(log_text(home))


@pytest.mark.parametrize("mode", [ERROR_500, TOO_MANY, UNAUTHORIZED, "refused"])
def test_retryable_failures_spool_the_hook(
    mode: str, service: FakeService, client_env: dict[str, str], home: Path
) -> None:
    env = dict(client_env)
    if mode == "refused":
        env["CONTINUITY_URL"] = f"http://127.0.0.1:{closed_port()}"
    service.mode = mode

    run_hook(["user-prompt-submit"], PROMPT, env)

    (record,) = spooled(home)
    assert plain(record["key"]) == "s-1:user-prompt-submit:1"
    assert record["body"]["prompt"] == "go on"
    assert "spooled s-1:user-prompt-submit:1" in plain(log_text(home))


def test_a_4xx_is_logged_and_dropped_not_spooled(
    service: FakeService, client_env: dict[str, str], home: Path
) -> None:
    service.mode = BAD_REQUEST
    result = run_hook(["user-prompt-submit"], PROMPT, client_env)
    assert (result.code, result.stdout, spooled(home)) == (0, "", [])
    assert "dropped s-1:user-prompt-submit:1" in plain(log_text(home))
    assert "the service refused it (HTTP 400: malformed JSON body)" in plain(log_text(home))


def test_a_malformed_answer_counts_as_delivered_and_prints_nothing(
    service: FakeService, client_env: dict[str, str], home: Path
) -> None:
    service.mode = MALFORMED
    result = run_hook(["session-start"], START, client_env)
    assert (result.code, result.stdout, spooled(home)) == (0, "", [])
    assert "malformed answer" in plain(log_text(home))


def test_429_retry_after_keeps_hooks_off_the_network_until_it_passes(
    service: FakeService, client_env: dict[str, str], home: Path
) -> None:
    # Given the service asked us to come back in 30 s
    service.mode = TOO_MANY
    service.retry_after = "30"
    run_hook(["user-prompt-submit"], PROMPT, client_env)
    assert 25 < spool.down_until(str(home)) - time.time() <= 30

    # When more prompts come meanwhile
    service.mode = "ok"
    run_hook(["user-prompt-submit"], PROMPT, client_env)
    run_hook(["session-end"], {"session_id": "s-1"}, client_env)

    # Then they go straight to the spool, in order, without a request
    assert len(service.requests) == 1
    assert [plain(r["key"]) for r in spooled(home)] == [
        "s-1:user-prompt-submit:1",
        "s-1:user-prompt-submit:2",
        "s-1:session-end:3",
    ]


def test_session_start_still_reads_while_the_service_is_marked_down(
    service: FakeService, client_env: dict[str, str], home: Path
) -> None:
    spool.mark_down(str(home), 60)
    service.answers["session-start"] = {"hookSpecificOutput": {"additionalContext": "recovered"}}
    result = run_hook(["session-start"], START, client_env)
    expected = {"hookEventName": "SessionStart", "additionalContext": "recovered"}
    assert result.output == {"hookSpecificOutput": expected}
    assert spool.down_until(str(home)) == 0.0  # a success clears the mark


def test_empty_stdin_still_posts_and_exits_0(
    service: FakeService, client_env: dict[str, str], home: Path
) -> None:
    result = run_hook_cli(["user-prompt-submit"], "", client_env)
    assert (result.code, result.stderr) == (0, "")
    assert eventually(lambda: len(service.requests) == 1)


@pytest.mark.parametrize("stdin", ["not json at all {", "[1, 2]", "\x00\xff", '{"session_id": "s", '])
def test_stdin_that_is_not_a_json_object_exits_0_posts_nothing_and_says_so(
    stdin: str, service: FakeService, client_env: dict[str, str], home: Path
) -> None:
    result = run_hook_cli(["user-prompt-submit"], stdin, client_env)
    assert (result.code, result.stderr) == (0, "")
    assert "stdin is " in log_text(home) and "not " in log_text(home)
    assert service.requests == []


@pytest.mark.parametrize("args", [[], ["no-such-event"], ["session-start", "--harness", "vim"]])
def test_bad_arguments_exit_0_post_nothing_and_log(
    args: list[str], service: FakeService, client_env: dict[str, str], home: Path
) -> None:
    result = run_hook_cli(args, START, client_env)
    assert (result.code, result.stdout, result.stderr, service.requests) == (0, "", "", [])
    assert "bad arguments" in plain(log_text(home))


def test_the_watchdog_spools_and_exits_when_the_network_call_ignores_its_timeout(
    monkeypatch: pytest.MonkeyPatch, client_env: dict[str, str], home: Path
) -> None:
    # Given a network call that ignores its timeout (as a stuck DNS lookup does): it returns only
    # once the watchdog has ended the process
    exits: list[int] = []
    ended = threading.Event()

    def exit_process(code: int) -> None:
        exits.append(code)
        ended.set()

    def stuck(*args: object, **kwargs: object) -> transport.Response:
        ended.wait(HANG_S)
        raise transport.TransportError("finally gave up")

    monkeypatch.setattr(delivery, "request", stuck)
    env = {**client_env, "CONTINUITY_HOOK_TIMEOUT_S": "0.2"}

    # When the hook runs
    run.main(["user-prompt-submit"], stdin=b'{"session_id": "w"}', env=env, exit_process=exit_process)

    # Then the watchdog spooled it once and ended the process with 0
    assert exits == [0]
    assert [plain(r["key"]) for r in spooled(home)] == ["w:user-prompt-submit:1"]
    assert "deadline passed" in plain(log_text(home))


def test_an_internal_error_is_logged_and_swallowed(
    monkeypatch: pytest.MonkeyPatch, service: FakeService, client_env: dict[str, str], home: Path
) -> None:
    def boom(*args: object, **kwargs: object) -> dict:
        raise RuntimeError("bug in the client")

    monkeypatch.setattr(harness, "build_body", boom)  # the module run calls it through
    result = run_hook(["user-prompt-submit"], PROMPT, client_env)
    assert (result.code, result.stdout) == (0, "")
    assert "hook failed in normalise: RuntimeError: bug in the client" in plain(log_text(home))


def test_a_503_retry_after_is_honoured(service: FakeService, client_env: dict[str, str], home: Path) -> None:
    # Given the store is throttling (503 with Retry-After, as the API documents)
    service.mode = "503"
    service.retry_after = "40"

    run_hook(["user-prompt-submit"], PROMPT, client_env)

    assert 35 < spool.down_until(str(home)) - time.time() <= 40
    assert [plain(r["key"]) for r in spooled(home)] == ["s-1:user-prompt-submit:1"]


def test_a_stdin_that_never_closes_cannot_hold_the_agent(client_env: dict[str, str], home: Path) -> None:
    # Given a harness that writes nothing and never closes the hook's stdin
    env = {**client_env, "CONTINUITY_HOOK_TIMEOUT_S": "0.3"}
    process = subprocess.Popen(
        [sys.executable, "-m", "continuity_client", "hook", "user-prompt-submit"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    stdin, stdout, stderr = process.stdin, process.stdout, process.stderr
    assert stdin is not None and stdout is not None and stderr is not None  # all three are pipes
    try:
        # Then the hook still ends, with 0 and no output, at its deadline (not waiting for stdin)
        code = process.wait(timeout=0.3 + SLACK_S)
        assert (code, stdout.read(), stderr.read()) == (0, b"", b"")
    finally:
        process.kill()
        stdin.close()
    assert "deadline passed" in plain(log_text(home))


def test_a_hook_that_can_be_neither_delivered_nor_spooled_is_logged_as_lost(
    service: FakeService, client_env: dict[str, str], home: Path
) -> None:
    # Given a failing service and a spool folder that cannot be created (a file is in its place)
    service.mode = ERROR_500
    home.mkdir(parents=True)
    (home / "spool").write_text("not a folder")

    # When a prompt's hook runs
    result = run_hook(["user-prompt-submit"], PROMPT, client_env)

    # Then it still exits 0 silently, and the log says the hook was lost, and why
    assert (result.code, result.stdout) == (0, "")
    assert "ERROR event=user-prompt-submit session=s-1 lost s-1:user-prompt-submit:1" in plain(log_text(home))
    assert "spool write failed" in plain(log_text(home))


def test_a_hook_whose_start_up_used_its_budget_spools_at_once(
    service: FakeService, client_env: dict[str, str], home: Path
) -> None:
    # Given a hung service, and a hook process that took 1.95 s of its 2 s to start (a loaded machine)
    service.mode = HANG
    env = {**client_env, "CONTINUITY_HOOK_TIMEOUT_S": "2"}
    data = json.dumps(PROMPT).encode()

    # When it runs, its time counted from the process's start
    began = time.monotonic()
    code = run.main(["user-prompt-submit"], data, io.StringIO(), env, lambda _code: None, began - 1.95)
    elapsed = time.monotonic() - began

    # Then it does not wait the 1.5 s a fresh hook would give the service: it spools at once
    assert code == 0
    assert elapsed < 1.0
    assert [plain(r["key"]) for r in spooled(home)] == ["s-1:user-prompt-submit:1"]


def test_the_process_start_is_read_from_the_system() -> None:
    # This test process started well before this line (pytest's own start-up alone takes longer)
    assert time.monotonic() - run.process_started() > 0.05
