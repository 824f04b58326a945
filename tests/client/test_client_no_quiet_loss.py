"""No quiet data loss in the client, against the real service in-process (``real_service``): each
slip a user can make gets a clear message or just works.

remember run by hand, login's checks, doctor on a wrong base URL, a refused connection that must
not keep the next session start from its recovery, ``token revoke`` given the token itself, and
errors in words (the service's ``detail``, never a Python enum or raw JSON).
"""

from __future__ import annotations

import io
import json
from pathlib import Path

from continuity_client.agent import api
from continuity_client.hook import refusals, spool
from continuity_client.setup import doctor
from tests.client.client_support import log_text, run_cli, run_hook, spooled
from tests.client.real_service import ADMIN_TOKEN, RealService


def project_dir(tmp_path: Path, name: str = "shop") -> Path:
    path = tmp_path / name
    path.mkdir(exist_ok=True)
    return path.resolve()


def start(env: dict[str, str], session: str, project: Path) -> dict | None:
    return run_hook(
        ["session-start"], {"session_id": session, "cwd": str(project), "source": "startup"}, env
    ).output


def checkpoints_of(env: dict[str, str], session: str) -> list[dict]:
    client = api.Client(env)
    return client.call("GET", f"/api/checkpoints/{session}").get("checkpoints") or []


# -- remember, by hand -------------------------------------------------------------------------------


def test_hook_remember_by_hand_goes_to_the_projects_current_session(
    real_env: dict[str, str], tmp_path: Path
) -> None:
    # Given a session the hooks reported for this project, and no CONTINUITY_SESSION_ID
    project = project_dir(tmp_path)
    start(real_env, "s-remember", project)

    done = run_cli(["hook", "remember", "the staging DB is db-stg-3"], real_env, cwd=project)

    # Then the note reaches that session (its next checkpoint keeps it)
    assert done.returncode == 0, done.stderr
    assert run_cli(["checkpoint"], real_env, cwd=project).returncode == 0
    [written] = checkpoints_of(real_env, "s-remember")
    assert "the staging DB is db-stg-3" in json.dumps(written)


def test_hook_remember_with_no_session_anywhere_says_so_and_exits_1(
    real_env: dict[str, str], tmp_path: Path, home: Path
) -> None:
    done = run_cli(["hook", "remember", "lost words"], real_env, cwd=project_dir(tmp_path, "fresh"))

    assert done.returncode == 1
    assert "nothing remembered: no current session" in done.stderr
    assert "CONTINUITY_SESSION_ID" in done.stderr
    assert spooled(home) == []


def test_continuity_remember_sends_the_note_and_says_where(real_env: dict[str, str], tmp_path: Path) -> None:
    project = project_dir(tmp_path)
    start(real_env, "s-note", project)

    done = run_cli(["remember", "use", "port", "8788"], real_env, cwd=project)

    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "remembered for session s-note: it goes into the session's next checkpoint"
    run_cli(["checkpoint"], real_env, cwd=project)
    assert "use port 8788" in json.dumps(checkpoints_of(real_env, "s-note"))


# -- login ---------------------------------------------------------------------------------------------


def login_env(env: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if k not in ("CONTINUITY_URL", "CONTINUITY_TOKEN")}


def test_login_drops_a_trailing_api_and_saves_after_the_service_accepts_the_token(
    real_env: dict[str, str], real_service: RealService, home: Path
) -> None:
    token = real_env["CONTINUITY_TOKEN"]

    done = run_cli(["login", "--url", real_service.url + "/api/", "--token", token], login_env(real_env))

    assert done.returncode == 0, done.stderr
    assert "dropped the trailing /api" in done.stdout and "token accepted" in done.stdout
    assert json.loads((home / "config.json").read_text()) == {"url": real_service.url, "token": token}


def test_login_refuses_a_url_that_is_not_the_service_and_saves_nothing(
    real_env: dict[str, str], real_service: RealService, home: Path
) -> None:
    done = run_cli(["login", "--url", real_service.url + "/prod", "--token", "x"], login_env(real_env))

    assert done.returncode == 1
    assert f"no Continuity service at {real_service.url}/prod" in done.stderr
    assert "nothing saved" in done.stderr and not (home / "config.json").exists()


def test_login_refuses_a_token_the_service_refuses(
    real_env: dict[str, str], real_service: RealService, home: Path
) -> None:
    done = run_cli(["login", "--url", real_service.url, "--token", "ctn_made-up"], login_env(real_env))

    assert done.returncode == 1
    assert "the service refused the token (403)" in done.stderr
    assert not (home / "config.json").exists()


# -- doctor ------------------------------------------------------------------------------------------


def doctor_says(env: dict[str, str]) -> tuple[int, str]:
    out = io.StringIO()
    return doctor.main([], env=env, out=out), out.getvalue()


def test_doctor_fails_on_a_url_ending_in_api(real_env: dict[str, str], real_service: RealService) -> None:
    code, text = doctor_says({**real_env, "CONTINUITY_URL": real_service.url + "/api"})

    assert code == 1
    assert "[FAIL] the URL" in text and "ends in /api" in text
    assert "[ok] URL" not in text


def test_doctor_fails_when_the_url_is_not_the_services_base(
    real_env: dict[str, str], real_service: RealService
) -> None:
    code, text = doctor_says({**real_env, "CONTINUITY_URL": real_service.url + "/prod"})

    assert code == 1
    assert "[FAIL] no Continuity service at" in text


# -- a refused connection ------------------------------------------------------------------------------


def test_a_refused_connection_spools_without_presuming_the_service_down_and_the_next_start_recovers(
    real_env: dict[str, str], real_service: RealService, tmp_path: Path, home: Path
) -> None:
    # Given a session with three prompts (no checkpoint yet) whose end comes while the service is down
    project = project_dir(tmp_path)
    start(real_env, "s-before", project)
    for n in range(1, 4):
        body = {
            "session_id": "s-before",
            "cwd": str(project),
            "prompt": f"step {n}: make the mock deterministic",
        }
        run_hook(["user-prompt-submit"], body, real_env)
    real_service.stop()
    run_hook(["session-end"], {"session_id": "s-before", "cwd": str(project), "reason": "exit"}, real_env)
    assert [r["event"] for r in spooled(home)] == ["session-end"]
    # the refusal was instant: the service is not presumed down for the back-off (10 s here)
    assert spool.down_until(str(home)) == 0.0

    # When the service is back and a new session starts at once
    real_service.restart()
    output = start(real_env, "s-after", project)

    # Then it recovers the session that ended meanwhile (its spooled end was delivered first)
    assert output is not None, log_text(home)
    context = output["hookSpecificOutput"]["additionalContext"]
    assert "s-before" in context and "make the mock deterministic" in context
    assert spooled(home) == []


# -- token revoke ------------------------------------------------------------------------------------


def admin_env(env: dict[str, str]) -> dict[str, str]:
    return {**env, "CONTINUITY_TOKEN": ADMIN_TOKEN}


def test_token_revoke_given_the_token_itself_says_so_and_revokes_nothing(
    real_env: dict[str, str], real_service: RealService
) -> None:
    created = real_service.create_token("default")  # the admin's own agent's

    done = run_cli(["token", "revoke", created["token"]], admin_env(real_env))

    assert done.returncode == 1
    assert "that is a token (its secret), not its id" in done.stderr
    listed = json.loads(run_cli(["token", "list", "--json"], admin_env(real_env)).stdout)["tokens"]
    assert next(t for t in listed if t["token_id"] == created["token_id"])["revoked_at"] is None
    assert run_cli(["token", "revoke", created["token_id"]], admin_env(real_env)).returncode == 0


def test_token_revoke_of_an_unknown_id_says_there_is_none(real_env: dict[str, str]) -> None:
    done = run_cli(["token", "revoke", "0123456789abcdef"], admin_env(real_env))

    assert done.returncode == 1
    assert done.stderr.strip() == (
        "continuity token revoke: no token with id '0123456789abcdef'; `continuity token list` shows the ids"
    )


# -- errors in words -------------------------------------------------------------------------------------


def test_a_token_without_the_scope_is_told_which_scope_in_words(
    real_env: dict[str, str], real_service: RealService, tmp_path: Path
) -> None:
    project = project_dir(tmp_path)
    start(real_env, "s-scope", project)
    read_only = {**real_env, "CONTINUITY_TOKEN": real_service.create_token("alice", "read")["token"]}

    done = run_cli(["checkpoint"], read_only, cwd=project)

    assert done.returncode == 1
    assert done.stderr.strip() == "continuity checkpoint: HTTP 403: this token lacks the 'hooks' scope"


def test_a_refused_token_is_said_in_words_not_as_json(real_env: dict[str, str], tmp_path: Path) -> None:
    done = run_cli(["status"], {**real_env, "CONTINUITY_TOKEN": "ctn_made-up"}, cwd=project_dir(tmp_path))

    assert done.returncode == 1
    assert "the service refused the token" in done.stderr and "{" not in done.stderr


# -- a session key seen from two homes ----------------------------------------------------------


def test_a_reinstalled_client_prompts_are_not_dropped_as_replays(
    real_env: dict[str, str], tmp_path: Path, home: Path
) -> None:
    # Given an OpenClaw session (its key, agent:main:main, is the same on every machine) that got
    # three prompts from this client
    project = project_dir(tmp_path)
    session = "agent:main:main"
    for n in range(3):
        run_hook(
            ["user-prompt-submit", "--harness", "openclaw"],
            prompt_of(session, project, f"first {n}"),
            real_env,
        )

    # When the client's folder is wiped (uninstall --purge, then login again) or another machine
    # posts the same session: its sequence numbers start over at 1
    fresh = {**real_env, "CONTINUITY_HOME": str(tmp_path / "reinstalled")}
    for n in range(3):
        run_hook(
            ["user-prompt-submit", "--harness", "openclaw"], prompt_of(session, project, f"again {n}"), fresh
        )

    # Then every prompt counts: none is taken for a replay of the first three
    assert run_cli(["checkpoint", "--session", session], real_env, cwd=project).returncode == 0
    [written] = checkpoints_of(real_env, session)
    assert written["prompt_count"] == 6
    assert all(f"again {n}" in written["digest"] for n in range(3))


def prompt_of(session: str, project: Path, text: str) -> dict:
    return {"session_id": session, "cwd": str(project), "prompt": text}


# -- a digest sent again ------------------------------------------------------------------------------


def test_the_same_digest_sent_twice_is_stored_once(real_env: dict[str, str], tmp_path: Path) -> None:
    # Given a session, and an agent that calls session_digest again after an error it was shown
    project = project_dir(tmp_path)
    start(real_env, "s-digest", project)
    client = api.Client(real_env)
    target = client.target(str(project), "s-digest")
    digest = {"summary": "Billing refactor half done.", "decisions": [{"decision": "Amounts are Decimal"}]}

    first = client.digest(target, digest)
    again = client.digest(target, digest)

    # Then one checkpoint and one ledger entry, and the second answer names the first checkpoint
    assert again["id"] == first["id"]
    assert [c["trigger"] for c in checkpoints_of(real_env, "s-digest")] == ["agent"]
    ledger = client.call("GET", "/api/ledger", query={"project": str(project)})
    assert [e["decision"] for e in ledger["entries"]] == ["Amounts are Decimal"]


# -- a hook sent again under its key ---------------------------------------------------------------


TRANSCRIPT_FIXTURE = Path(__file__).parent / "fixtures" / "claude_transcript.jsonl"


def delivered_then_spooled_again(
    real_env: dict[str, str], real_service: RealService, tmp_path: Path, home: Path
) -> dict:
    """A prompt with its transcript part, spooled while the service was away, then delivered by
    ``continuity flush``; answers the record as it was spooled."""
    project = project_dir(tmp_path)
    path = tmp_path / "transcripts" / "s-again.jsonl"
    path.parent.mkdir()
    path.write_text(TRANSCRIPT_FIXTURE.read_text(encoding="utf-8"), encoding="utf-8")
    real_service.stop()
    body = {"session_id": "s-again", "cwd": str(project), "transcript_path": str(path), "prompt": "fix it"}
    run_hook(["user-prompt-submit"], body, real_env)
    [record] = spooled(home)
    assert "transcript" in record["body"]  # the part went into the spool with the hook
    real_service.restart()
    assert run_cli(["flush"], real_env).returncode == 0
    return record


def spool_again(home: Path, record: dict) -> None:
    spool.append(str(home), record["body"]["session_id"], record, 1 << 20)


def test_a_spooled_retry_of_a_delivered_prompt_replays_without_its_transcript_part(
    real_env: dict[str, str], real_service: RealService, tmp_path: Path, home: Path
) -> None:
    # Given a prompt the service took, with its transcript part
    record = delivered_then_spooled_again(real_env, real_service, tmp_path, home)

    # When the client sends it again as its watchdog spools a hook before the part is read (same key,
    # no part, no figures read with it)
    volatile = ("transcript", "transcript_chars", "context_tokens")
    spool_again(home, {**record, "body": {k: v for k, v in record["body"].items() if k not in volatile}})
    done = run_cli(["flush"], real_env)

    # Then the service takes it for the replay it is: delivered, not refused, counted once
    assert done.returncode == 0, done.stdout
    assert spooled(home) == [] and refusals.recent(str(home), 0) == []
    assert run_cli(["checkpoint", "--session", "s-again"], real_env).returncode == 0
    [written] = checkpoints_of(real_env, "s-again")
    assert written["prompt_count"] == 1


def test_a_key_reused_for_another_prompt_is_dropped_and_reported_by_doctor(
    real_env: dict[str, str], real_service: RealService, tmp_path: Path, home: Path
) -> None:
    # Given a prompt the service took
    record = delivered_then_spooled_again(real_env, real_service, tmp_path, home)

    # When a record under its key carries another prompt (a client bug, or an edited spool)
    spool_again(home, {**record, "body": {**record["body"], "prompt": "something else"}})
    run_cli(["flush"], real_env)

    # Then it is refused for good, not retried, and doctor says why
    assert spooled(home) == []
    [refused] = refusals.recent(str(home), 0)
    assert "HTTP 409: idempotency key 's-again:user-prompt-submit:" in refused["reason"]
    out = io.StringIO()
    doctor.main([], env=real_env, out=out)
    assert "was already used for a different request" in out.getvalue()
