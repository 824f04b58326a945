"""Offline spool: hooks survive an outage and replay in order, each counted once by the server."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

from continuity_client.hook import refusals, spool
from tests.client.client_support import log_text, plain, run_hook, spooled
from tests.client.fake_continuity_service import BAD_REQUEST, ERROR_500, THROTTLED, FakeService


def keys(received: list) -> list[str]:
    return [plain(r.key) for r in received]


def session_keys(received: list, session: str) -> list[str]:
    return [plain(r.key) for r in received if r.body.get("session_id") == session]


def test_hooks_spooled_during_an_outage_replay_in_order_before_the_next_hook(
    service: FakeService, client_env: dict[str, str], home: Path
) -> None:
    # Given the service goes down in the middle of two sessions
    run_hook(["session-start"], {"session_id": "a", "source": "startup"}, client_env)
    service.stop()
    run_hook(["user-prompt-submit"], {"session_id": "a", "prompt": "one"}, client_env)
    run_hook(["user-prompt-submit"], {"session_id": "b", "prompt": "b-one"}, client_env)
    run_hook(["remember"], {"session_id": "a", "content": "decided: sqlite"}, client_env)
    run_hook(["pre-compaction"], {"session_id": "a", "trigger": "auto"}, client_env)
    run_hook(["session-start"], {"session_id": "a", "source": "compact"}, client_env)
    assert len(spooled(home)) == 5

    # When it is back and session a posts its next hook
    service.restart()
    run_hook(["user-prompt-submit"], {"session_id": "a", "prompt": "two"}, client_env)

    # Then a's spooled hooks arrived first, oldest first, then the new one; then b's backlog
    assert session_keys(service.requests, "a") == [
        "a:session-start:1",
        "a:user-prompt-submit:2",
        "a:remember:3",
        "a:pre-compaction:4",
        "a:session-start:5",
        "a:user-prompt-submit:6",
    ]
    assert session_keys(service.requests, "b") == ["b:user-prompt-submit:1"]
    assert spooled(home) == []
    # Replays say so, and carry the time the hook happened
    replayed = [r for r in service.requests if r.headers.get("X-Continuity-Replay") == "1"]
    assert len(replayed) == 5
    assert all(r.headers["X-Continuity-Occurred-At"].endswith("Z") for r in replayed)
    assert [r.body["prompt"] for r in service.requests if plain(r.key) == "a:user-prompt-submit:2"] == ["one"]


def test_a_replay_repeated_after_a_crash_is_counted_once(
    service: FakeService, client_env: dict[str, str], home: Path
) -> None:
    # Given hooks spooled during an outage
    service.stop()
    for prompt in ("one", "two", "three"):
        run_hook(["user-prompt-submit"], {"session_id": "c", "prompt": prompt}, client_env)
    backup = home / "spool-copy"
    shutil.copytree(home / "spool", backup)

    # When they are replayed, and the client "crashes" before removing them (the file comes back)
    service.restart()
    run_hook(["user-prompt-submit"], {"session_id": "c", "prompt": "four"}, client_env)
    shutil.rmtree(home / "spool")
    shutil.copytree(backup, home / "spool")
    run_hook(["user-prompt-submit"], {"session_id": "c", "prompt": "five"}, client_env)

    # Then the server saw the same keys twice, and de-duplicated to one effect per hook
    assert len(service.requests) == 8
    assert keys(service.effects) == [f"c:user-prompt-submit:{n}" for n in (1, 2, 3, 4, 5)]
    by_key: dict[str, list[dict]] = {}
    for received in service.requests:
        by_key.setdefault(received.key, []).append(received.body)
    assert all(len({json.dumps(b, sort_keys=True) for b in bodies}) == 1 for bodies in by_key.values())


def test_replay_stops_at_half_the_budget_and_keeps_the_rest_in_order(
    service: FakeService, client_env: dict[str, str], home: Path
) -> None:
    # Given six spooled hooks and a slow service (0.15 s an answer), budget 1 s
    service.stop()
    for n in range(6):
        run_hook(["user-prompt-submit"], {"session_id": "d", "prompt": str(n)}, client_env)
    service.restart()
    service.delay = 0.15
    env = {**client_env, "CONTINUITY_HOOK_TIMEOUT_S": "1"}

    # When the next hook runs
    result = run_hook(["user-prompt-submit"], {"session_id": "d", "prompt": "new"}, env)

    # Then it replayed what it could start within half its budget (at 0.15 s an answer, at most
    # 4 start before 0.5 s, however slow the machine), and spooled itself behind the rest in order
    assert result.code == 0
    sent = keys(service.requests)
    assert 1 <= len(sent) <= 4
    assert sent == [f"d:user-prompt-submit:{n}" for n in range(1, len(sent) + 1)]
    left = [plain(r["key"]) for r in spooled(home)]
    assert left == [f"d:user-prompt-submit:{n}" for n in range(len(sent) + 1, 8)]

    # And the next calls drain it in order
    service.delay = 0.0
    run_hook(["user-prompt-submit"], {"session_id": "d", "prompt": "last"}, client_env)
    assert keys(service.effects) == [f"d:user-prompt-submit:{n}" for n in range(1, 9)]


def test_a_failure_mid_replay_keeps_the_unsent_hooks_and_appends_the_new_one(
    service: FakeService, client_env: dict[str, str], home: Path
) -> None:
    service.stop()
    for n in range(4):
        run_hook(["user-prompt-submit"], {"session_id": "e", "prompt": str(n)}, client_env)
    service.restart()
    service.fail_after = 2  # the third request fails

    run_hook(["user-prompt-submit"], {"session_id": "e", "prompt": "new"}, client_env)

    assert keys(service.effects) == ["e:user-prompt-submit:1", "e:user-prompt-submit:2"]
    assert [plain(r["key"]) for r in spooled(home)] == [f"e:user-prompt-submit:{n}" for n in (3, 4, 5)]


def test_a_hook_the_service_refuses_during_replay_is_dropped_and_the_rest_go_on(
    service: FakeService, client_env: dict[str, str], home: Path
) -> None:
    service.stop()
    run_hook(["user-prompt-submit"], {"session_id": "f", "prompt": "x"}, client_env)
    service.restart()
    service.mode = BAD_REQUEST

    run_hook(["session-end"], {"session_id": "f"}, client_env)

    assert keys(service.requests) == ["f:user-prompt-submit:1", "f:session-end:2"]
    assert spooled(home) == []
    assert "dropped f:user-prompt-submit:1" in plain(log_text(home))


def test_the_spool_is_bounded_and_drops_the_oldest_with_a_log_line(
    service: FakeService, client_env: dict[str, str], home: Path
) -> None:
    # Given a small cap (about four records) and an outage
    env = {**client_env, "CONTINUITY_SPOOL_MAX_BYTES": "1100"}
    service.stop()
    for n in range(1, 9):
        run_hook(["user-prompt-submit"], {"session_id": "g", "prompt": f"prompt {n}"}, env)

    # Then the newest records remain, in order, within the cap; the drops are logged
    left = [plain(r["key"]) for r in spooled(home)]
    assert left == [f"g:user-prompt-submit:{n}" for n in range(9 - len(left), 9)]
    assert 2 <= len(left) < 8
    assert sum(p.stat().st_size for p in (home / "spool").glob("*.jsonl")) <= 1100
    assert "spool full: dropped" in plain(log_text(home))
    assert "g:user-prompt-submit:1" in plain(log_text(home))


def test_the_oldest_record_across_sessions_is_dropped_first(tmp_path: Path) -> None:
    home = str(tmp_path)
    record = {"event": "remember", "body": {"content": "x" * 100}}
    spool.append(home, "old", {**record, "key": "old:remember:1", "at": 1.0}, 10_000)
    spool.append(home, "new", {**record, "key": "new:remember:1", "at": 2.0}, 10_000)
    size = sum(p.stat().st_size for p in (tmp_path / "spool").glob("*.jsonl"))

    dropped = spool.append(home, "new", {**record, "key": "new:remember:2", "at": 3.0}, size)

    assert [plain(d["key"]) for d in dropped] == ["old:remember:1"]
    assert not (tmp_path / "spool" / "old.jsonl").exists()


def test_corrupt_spool_lines_are_skipped_and_logged(
    service: FakeService, client_env: dict[str, str], home: Path
) -> None:
    service.stop()
    run_hook(["user-prompt-submit"], {"session_id": "h", "prompt": "x"}, client_env)
    with (home / "spool" / "h.jsonl").open("ab") as handle:
        handle.write(b'{"event": "user-prompt-sub')  # a write cut short by a crash
    service.restart()

    run_hook(["user-prompt-submit"], {"session_id": "h", "prompt": "y"}, client_env)

    assert keys(service.requests) == ["h:user-prompt-submit:1", "h:user-prompt-submit:2"]
    assert spooled(home) == []
    assert "corrupt line" in plain(log_text(home))


def test_concurrent_hooks_of_one_session_get_distinct_keys(
    service: FakeService, client_env: dict[str, str], home: Path
) -> None:
    # Given the service is down and eight hooks of one session run at once
    service.stop()
    payload = json.dumps({"session_id": "par", "prompt": "x"}).encode()
    processes = [
        subprocess.Popen(
            [sys.executable, "-m", "continuity_client", "hook", "user-prompt-submit"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=client_env,
        )
        for _ in range(8)
    ]
    outputs = [process.communicate(payload, timeout=30) for process in processes]

    # Then each got its own sequence number and all are spooled intact
    assert all(process.returncode == 0 for process in processes)
    assert all(out == b"" for out, _ in outputs)
    expected = sorted(f"par:user-prompt-submit:{n}" for n in range(1, 9))
    assert sorted(plain(r["key"]) for r in spooled(home)) == expected
    # and one origin among them: the first hooks of a new client agree on its id
    assert len({r["key"].rsplit(":", 1)[1].split(".")[0] for r in spooled(home)}) == 1


def test_a_hook_the_service_keeps_failing_on_is_dropped_after_the_cap_and_frees_its_session(
    service: FakeService, client_env: dict[str, str], home: Path
) -> None:
    # Given a service that answers 500 to every hook, and no back-off between runs
    env = {**client_env, "CONTINUITY_BACKOFF_S": "0"}
    service.mode = ERROR_500

    # When the session posts a hook per run, each run replaying the spool first
    for n in range(refusals.MAX_SERVER_ERRORS):
        run_hook(["user-prompt-submit"], {"session_id": "p", "prompt": str(n)}, env)

    # Then its first hook, failed on MAX_SERVER_ERRORS times, is dropped (logged and noted) and no
    # longer holds the ones after it
    first = "p:user-prompt-submit:1"
    assert first not in [plain(r["key"]) for r in spooled(home)]
    assert [plain(r.key) for r in service.requests].count(first) == refusals.MAX_SERVER_ERRORS
    assert f"dropped {first}: the service failed on it 5 times" in plain(log_text(home))
    assert [plain(e["key"]) for e in refusals.recent(str(home), 0)] == [first]


def test_a_503_is_retried_without_counting_toward_the_cap(
    service: FakeService, client_env: dict[str, str], home: Path
) -> None:
    env = {**client_env, "CONTINUITY_BACKOFF_S": "0"}
    service.mode = THROTTLED

    for n in range(refusals.MAX_SERVER_ERRORS + 1):
        run_hook(["user-prompt-submit"], {"session_id": "q", "prompt": str(n)}, env)

    assert plain(spooled(home)[0]["key"]) == "q:user-prompt-submit:1"
    assert refusals.recent(str(home), 0) == []


def test_doctor_reports_a_refused_hook(service: FakeService, client_env: dict[str, str], home: Path) -> None:
    from continuity_client.setup import doctor

    service.mode = BAD_REQUEST
    run_hook(["user-prompt-submit"], {"session_id": "r", "prompt": "x"}, client_env)
    out = io.StringIO()

    doctor.main([], env=client_env, out=out)

    said = plain(out.getvalue())
    assert "1 hook(s) dropped in the last 7 days and not retried" in said
    assert "r:user-prompt-submit:1: the service refused it (HTTP 400: malformed JSON body)" in said
